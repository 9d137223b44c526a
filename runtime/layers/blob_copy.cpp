#include "runtime/layers/blob_copy.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/lane_copy_kernels.h"

namespace jitconv {
namespace layers {

namespace {

// Below this many bytes a copy runs on the calling thread: waking the pool costs more.
constexpr long kParallelBytes = 1 << 16;

struct GroupView {
  unsigned char* data = nullptr;
  int elempack = 1;
  long group_stride = 0;  // in lanes
  int iw = 1, ih = 1, id = 1;
};

GroupView group_view(const Mat& m) {
  GroupView v;
  v.data = static_cast<unsigned char*>(m.data);
  v.elempack = m.elempack;
  switch (m.dims) {
    case 1: v.group_stride = m.elempack; break;
    case 2: v.iw = m.w; v.group_stride = static_cast<long>(m.w) * m.elempack; break;
    case 3:
      v.iw = m.w;
      v.ih = m.h;
      v.group_stride = static_cast<long>(m.cstep) * m.elempack;
      break;
    default:
      v.iw = m.w;
      v.ih = m.h;
      v.id = m.d;
      v.group_stride = static_cast<long>(m.cstep) * m.elempack;
  }
  return v;
}

// The inner part (axes 1..dims-1) of a region as an x/y/z box.
struct Box {
  int x = 0, y = 0, z = 0;
  int w = 1, h = 1, d = 1;
};

Box inner_box(int dims, const int* off, const int* len) {
  Box b;
  if (dims == 2) {
    b.x = off[1];
    b.w = len[1];
  } else if (dims == 3) {
    b.y = off[1];
    b.h = len[1];
    b.x = off[2];
    b.w = len[2];
  } else if (dims == 4) {
    b.z = off[1];
    b.d = len[1];
    b.y = off[2];
    b.h = len[2];
    b.x = off[3];
    b.w = len[3];
  }
  return b;
}

// A compile-time lane count lets the compiler move each element's run with vector loads.
template <typename T, int kLanes>
void copy_lanes_fixed(const T* src, long src_step, T* dst, long dst_step, long count) {
  for (long i = 0; i < count; i++)
    for (int l = 0; l < kLanes; l++) dst[i * dst_step + l] = src[i * src_step + l];
}

// `count` packed elements: lanes [0, lanes) of each source element to the destination's.
template <typename T>
void copy_lanes(const T* src, long src_step, T* dst, long dst_step, int lanes, long count) {
  if (lanes == src_step && lanes == dst_step) {
    memcpy(dst, src, sizeof(T) * lanes * count);
    return;
  }
  switch (lanes) {
    case 1: return copy_lanes_fixed<T, 1>(src, src_step, dst, dst_step, count);
    case 4: return copy_lanes_fixed<T, 4>(src, src_step, dst, dst_step, count);
    case 8: return copy_lanes_fixed<T, 8>(src, src_step, dst, dst_step, count);
    case 16: return copy_lanes_fixed<T, 16>(src, src_step, dst, dst_step, count);
    default:
      for (long i = 0; i < count; i++)
        for (int l = 0; l < lanes; l++) dst[i * dst_step + l] = src[i * src_step + l];
  }
}

struct Run {
  long src_group;
  int src_lane;
  long dst_group;
  int dst_lane;
  int lanes;
};

// Calls row(src_elem, dst_elem, length) for each row of the inner boxes sb (source) and db
// (destination, same extents): element indices within a group. Rows spanning the full
// width of both blobs are contiguous and merge, whole planes too when the box also spans
// the full height.
template <typename RowFn>
void for_each_row(const GroupView& s, const Box& sb, const GroupView& d, const Box& db, RowFn row_fn) {
  long row = sb.w, rows_y = sb.h, rows_z = sb.d;
  if (sb.w == s.iw && sb.w == d.iw) {
    row *= rows_y;
    rows_y = 1;
    if (sb.h == s.ih && sb.h == d.ih) {
      row *= rows_z;
      rows_z = 1;
    }
  }
  for (long z = 0; z < rows_z; z++) {
    for (long y = 0; y < rows_y; y++) {
      const long src_elem = ((sb.z + z) * s.ih + (sb.y + y)) * static_cast<long>(s.iw) + sb.x;
      const long dst_elem = ((db.z + z) * d.ih + (db.y + y)) * static_cast<long>(d.iw) + db.x;
      row_fn(src_elem, dst_elem, row);
    }
  }
}

// One run of lanes over the inner boxes.
template <typename T>
void copy_run(const GroupView& s, const Box& sb, const GroupView& d, const Box& db, const Run& run) {
  const T* src_group = reinterpret_cast<const T*>(s.data) + run.src_group * s.group_stride + run.src_lane;
  T* dst_group = reinterpret_cast<T*>(d.data) + run.dst_group * d.group_stride + run.dst_lane;
  for_each_row(s, sb, d, db, [&](long src_elem, long dst_elem, long length) {
    copy_lanes<T>(src_group + src_elem * s.elempack, s.elempack, dst_group + dst_elem * d.elempack, d.elempack,
                  run.lanes, length);
  });
}

// A whole destination group whose lanes come from several runs: one pass over the
// destination with the lanes gathered per element (run by run, each run would sweep the
// group again with strided scalar stores: ShuffleChannel on 116 channels at pack 4 moved
// 364 KB in 0.06 ms).
template <typename T>
void gather_group(const GroupView& s, const Box& sb, const GroupView& d, const Box& db, long dst_group,
                  const long* lane_source) {
  const T* lane_base[16];
  for (int l = 0; l < d.elempack; l++)
    lane_base[l] = reinterpret_cast<const T*>(s.data) + lane_source[l] / s.elempack * s.group_stride +
                   lane_source[l] % s.elempack;
  T* dst_base = reinterpret_cast<T*>(d.data) + dst_group * d.group_stride;
  for_each_row(s, sb, d, db, [&](long src_elem, long dst_elem, long length) {
    const void* lane_src[16];
    for (int l = 0; l < d.elempack; l++) lane_src[l] = lane_base[l] + src_elem * s.elempack;
    const LaneGatherJob job{lane_src, s.elempack, dst_base + dst_elem * d.elempack, d.elempack, sizeof(T), length};
    JITCONV_SIMD_CALL(gather_lanes, job);
  });
}

// A run of lanes into pack-1 destination planes (run.dst_group on, one per lane): each
// plane in one pass with the source step known at compile time (lane by lane with a
// run-time step, Slice of 116 channels at pack 4 into two pack-1 halves took 0.05-0.10 ms
// for 364 KB).
template <typename T>
void scatter_run(const GroupView& s, const Box& sb, const GroupView& d, const Box& db, const Run& run) {
  const T* src_base = reinterpret_cast<const T*>(s.data) + run.src_group * s.group_stride + run.src_lane;
  T* plane[16];
  for (int l = 0; l < run.lanes; l++) plane[l] = reinterpret_cast<T*>(d.data) + (run.dst_group + l) * d.group_stride;
  for_each_row(s, sb, d, db, [&](long src_elem, long dst_elem, long length) {
    void* lane_dst[16];
    for (int l = 0; l < run.lanes; l++) lane_dst[l] = plane[l] + dst_elem;
    const LaneScatterJob job{src_base + src_elem * s.elempack, s.elempack, lane_dst, run.lanes, sizeof(T), length};
    JITCONV_SIMD_CALL(scatter_lanes, job);
  });
}

// Destination axis-0 scalars [dst_first, dst_first + count) from source scalars
// src_index[i] (or src_first + i when src_index is null).
template <typename T>
void copy_axis0(const GroupView& s, const Box& sb, const GroupView& d, const Box& db, const long* src_index,
                long src_first, long dst_first, long count, int num_threads) {
  if (count <= 0 || sb.w <= 0 || sb.h <= 0 || sb.d <= 0) return;
  const auto source_of = [&](long i) { return src_index ? src_index[i] : src_first + i; };
  const long group_begin = dst_first / d.elempack;
  const long group_end = (dst_first + count - 1) / d.elempack + 1;
  const long bytes = count * static_cast<long>(sb.w) * sb.h * sb.d * static_cast<long>(sizeof(T));
  // The lane kernels (lane_copy_simd.inl) move 4- and 2-byte lanes.
  const bool lane_kernels = sizeof(T) == 4 || sizeof(T) == 2;
  // Destination scalars from o on (before end) that take consecutive lanes of one source
  // group, from source scalar first = source_of(o - dst_first) on.
  const auto run_lanes = [&](long o, long first, long end) {
    long lanes = 1;
    while (o + lanes < end && (first + lanes) % s.elempack != 0 && source_of(o + lanes - dst_first) == first + lanes)
      lanes++;
    return lanes;
  };
  if (lane_kernels && d.elempack == 1 && s.elempack >= 4) {
    // Unpacking: each run of destination planes goes out in one call, a plane per lane.
    std::vector<Run> runs;
    for (long o = dst_first; o < dst_first + count;) {
      const long first = source_of(o - dst_first), lanes = run_lanes(o, first, dst_first + count);
      runs.push_back(Run{first / s.elempack, static_cast<int>(first % s.elempack), o, 0, static_cast<int>(lanes)});
      o += lanes;
    }
#pragma omp parallel for num_threads(num_threads) if (bytes > kParallelBytes) schedule(static)
    for (size_t r = 0; r < runs.size(); r++) scatter_run<T>(s, sb, d, db, runs[r]);
    return;
  }
  const bool gather_fits = lane_kernels && d.elempack >= 4 &&
                           (s.elempack == 1 || s.elempack == 4 || s.elempack == 8 || s.elempack == 16);
#pragma omp parallel for num_threads(num_threads) if (bytes > kParallelBytes) schedule(static)
  for (long g = group_begin; g < group_end; g++) {
    const long o_end = std::min(dst_first + count, (g + 1) * d.elempack);
    long o = std::max(dst_first, g * d.elempack);
    // A whole group of several runs: gathered in one pass.
    if (gather_fits && o_end - o == d.elempack && run_lanes(o, source_of(o - dst_first), o_end) < d.elempack) {
      long lane_source[16];
      for (int l = 0; l < d.elempack; l++) lane_source[l] = source_of(o + l - dst_first);
      gather_group<T>(s, sb, d, db, g, lane_source);
      continue;
    }
    while (o < o_end) {
      const long first = source_of(o - dst_first), lanes = run_lanes(o, first, o_end);
      const Run run{first / s.elempack, static_cast<int>(first % s.elempack), g,
                    static_cast<int>(o - g * d.elempack), static_cast<int>(lanes)};
      copy_run<T>(s, sb, d, db, run);
      o += lanes;
    }
  }
}

void dispatch(size_t lanes, const GroupView& s, const Box& sb, const GroupView& d, const Box& db,
              const long* src_index, long src_first, long dst_first, long count, int num_threads) {
  switch (lanes) {
    case 4: return copy_axis0<uint32_t>(s, sb, d, db, src_index, src_first, dst_first, count, num_threads);
    case 2: return copy_axis0<uint16_t>(s, sb, d, db, src_index, src_first, dst_first, count, num_threads);
    case 1: return copy_axis0<uint8_t>(s, sb, d, db, src_index, src_first, dst_first, count, num_threads);
    default: fail("blob copy: unsupported lane size ", lanes, " bytes");
  }
}

void check_pair(const Mat& src, const Mat& dst) {
  if (src.dims != dst.dims) fail("blob copy: source has dims ", src.dims, ", destination ", dst.dims);
  if (lane_bytes(src) != lane_bytes(dst))
    fail("blob copy: source lanes are ", lane_bytes(src), " bytes, destination ", lane_bytes(dst));
}

}  // namespace

Region full_region(const AxisShape& shape) {
  Region r;
  for (int axis = 0; axis < shape.dims; axis++) r.len[axis] = shape.len[axis];
  return r;
}

void copy_region(const Mat& src, const Region& region, Mat& dst, const int* dst_off, int num_threads) {
  check_pair(src, dst);
  const size_t lanes = lane_bytes(src);
  if (src.dims == 1) {  // 1-D blobs hold their scalars contiguously whatever the elempack
    memcpy(static_cast<unsigned char*>(dst.data) + dst_off[0] * lanes,
           static_cast<const unsigned char*>(src.data) + region.off[0] * lanes, region.len[0] * lanes);
    return;
  }
  dispatch(lanes, group_view(src), inner_box(src.dims, region.off, region.len), group_view(dst),
           inner_box(dst.dims, dst_off, region.len), nullptr, region.off[0], dst_off[0], region.len[0], num_threads);
}

void gather_axis0(const Mat& src, const long* src_index, Mat& dst, int num_threads) {
  check_pair(src, dst);
  const AxisShape shape = axis_shape(dst);
  const Region region = full_region(shape);
  const Box box = inner_box(dst.dims, region.off, region.len);
  dispatch(lane_bytes(src), group_view(src), box, group_view(dst), box, src_index, 0, 0, shape.len[0], num_threads);
}

}  // namespace layers
}  // namespace jitconv
