#include "runtime/border.h"

#include <cmath>
#include <cstring>

#include "runtime/convert_layout.h"
#include "runtime/error.h"
#include "runtime/packing.h"

namespace jitconv {

namespace {

// One packed element filled with `value` in the lane type.
struct PackedValue {
  unsigned char bytes[64];
  size_t size;
};

PackedValue make_packed_value(float value, size_t elemsize, int elempack, const Option& opt) {
  PackedValue pv{};
  pv.size = elemsize;
  const size_t lane = elempack > 0 ? elemsize / elempack : 0;
  if ((lane != 1 && lane != 2 && lane != 4) || lane * elempack != elemsize || elemsize > sizeof(pv.bytes))
    fail("copy_make_border: unsupported element of ", elemsize, " bytes in ", elempack,
         " lanes (lanes of 1, 2 or 4 bytes, at most 16 of them)");
  for (int j = 0; j < elempack; j++) {
    unsigned char* dst = pv.bytes + j * lane;
    if (lane == 4) {
      memcpy(dst, &value, 4);
    } else if (lane == 2) {
      // The 16-bit type the options select, as convert_layout reads it back (bf16 wins).
      const uint16_t bits =
          requested_storage(opt) == Storage::bf16 ? float32_to_bfloat16(value) : float32_to_float16(value);
      memcpy(dst, &bits, 2);
    } else {
      const float r = std::nearbyint(value);
      // NaN falls to -127 (as int8_round_clamp): converting it to int8 is undefined.
      const int8_t v = static_cast<int8_t>(r > 127.f ? 127.f : r > -127.f ? r : -127.f);
      memcpy(dst, &v, 1);
    }
  }
  return pv;
}

void fill_elements(unsigned char* dst, long count, const PackedValue& pv) {
  for (long i = 0; i < count; i++) memcpy(dst + i * pv.size, pv.bytes, pv.size);
}

// Pads one (h, w) plane.
void pad_plane(const unsigned char* src, int w, int h, unsigned char* dst, int outw, int top, int bottom, int left,
               int right, const PackedValue& pv) {
  const size_t es = pv.size;
  fill_elements(dst, static_cast<long>(top) * outw, pv);
  unsigned char* out = dst + static_cast<size_t>(top) * outw * es;
  for (int y = 0; y < h; y++) {
    fill_elements(out, left, pv);
    memcpy(out + left * es, src + static_cast<size_t>(y) * w * es, w * es);
    fill_elements(out + (left + w) * es, right, pv);
    out += outw * es;
  }
  fill_elements(out, static_cast<long>(bottom) * outw, pv);
}

void check_margins(const char* what, int top, int bottom, int left, int right, int front, int behind) {
  if (top < 0 || bottom < 0 || left < 0 || right < 0 || front < 0 || behind < 0)
    fail(what, ": negative margin (top ", top, ", bottom ", bottom, ", left ", left, ", right ", right, ", front ",
         front, ", behind ", behind, ")");
}

// A 2-D Mat packs its rows: top and bottom count scalar rows, as in ncnn's Padding. Whole
// packed rows stay packed (the margins become packed-row counts); otherwise the Mat goes
// through elempack 1 and the result keeps it.
void unpack_rows_for_margins(Mat& src, int& top, int& bottom, const Option& opt) {
  if (src.dims != 2 || src.elempack == 1 || (top == 0 && bottom == 0)) return;
  if (top % src.elempack == 0 && bottom % src.elempack == 0) {
    top /= src.elempack;
    bottom /= src.elempack;
  } else {
    Mat plain;
    convert_packing(src, plain, 1, opt);
    src = plain;
  }
}

}  // namespace

void copy_make_border_3d(const Mat& src_in, Mat& dst, int top, int bottom, int left, int right, int front, int behind,
                         float value, const Option& opt) {
  check_margins("copy_make_border", top, bottom, left, right, front, behind);
  if (src_in.dims < 2) fail("copy_make_border: needs a 2-D, 3-D or 4-D Mat, got dims ", src_in.dims);
  Mat src = src_in;
  unpack_rows_for_margins(src, top, bottom, opt);
  if (top == 0 && bottom == 0 && left == 0 && right == 0 && front == 0 && behind == 0) {
    dst = src;
    return;
  }
  const int outw = src.w + left + right;
  const int outh = src.h + top + bottom;
  const int outd = src.d + front + behind;
  Mat result;
  if (src.dims == 2) {
    if (front || behind) fail("copy_make_border: a 2-D Mat has no depth to pad");
    result.create(outw, outh, src.elemsize, src.elempack, opt.blob_allocator);
  } else if (src.dims == 3) {
    if (front || behind) fail("copy_make_border: a 3-D Mat has no depth to pad");
    result.create(outw, outh, src.c, src.elemsize, src.elempack, opt.blob_allocator);
  } else {
    result.create(outw, outh, outd, src.c, src.elemsize, src.elempack, opt.blob_allocator);
  }
  const PackedValue pv = make_packed_value(value, src.elemsize, src.elempack, opt);
  const size_t es = src.elemsize;
  const size_t src_plane = static_cast<size_t>(src.w) * src.h * es;
  const size_t dst_plane = static_cast<size_t>(outw) * outh * es;
  const int channels = src.dims == 2 ? 1 : src.c;
#pragma omp parallel for num_threads(opt.num_threads)
  for (int q = 0; q < channels; q++) {
    const unsigned char* s = static_cast<const unsigned char*>(src.data) + src.cstep * q * es;
    unsigned char* o = static_cast<unsigned char*>(result.data) + result.cstep * q * es;
    fill_elements(o, static_cast<long>(front) * outw * outh, pv);
    o += front * dst_plane;
    for (int z = 0; z < src.d; z++) {
      pad_plane(s, src.w, src.h, o, outw, top, bottom, left, right, pv);
      s += src_plane;
      o += dst_plane;
    }
    fill_elements(o, static_cast<long>(behind) * outw * outh, pv);
  }
  dst = std::move(result);
}

void copy_make_border(const Mat& src, Mat& dst, int top, int bottom, int left, int right, float value,
                      const Option& opt) {
  copy_make_border_3d(src, dst, top, bottom, left, right, 0, 0, value, opt);
}

void copy_cut_border_3d(const Mat& src_in, Mat& dst, int top, int bottom, int left, int right, int front, int behind,
                        const Option& opt) {
  check_margins("copy_cut_border", top, bottom, left, right, front, behind);
  if (src_in.dims < 2) fail("copy_cut_border: needs a 2-D, 3-D or 4-D Mat, got dims ", src_in.dims);
  Mat src = src_in;
  unpack_rows_for_margins(src, top, bottom, opt);
  const int outw = src.w - left - right;
  const int outh = src.h - top - bottom;
  const int outd = src.d - front - behind;
  if (outw <= 0 || outh <= 0 || outd <= 0)
    fail("copy_cut_border: margins remove the whole ", src.w, "x", src.h, "x", src.d, " plane");
  if (top == 0 && bottom == 0 && left == 0 && right == 0 && front == 0 && behind == 0) {
    dst = src;
    return;
  }
  Mat result;
  if (src.dims == 2)
    result.create(outw, outh, src.elemsize, src.elempack, opt.blob_allocator);
  else if (src.dims == 3)
    result.create(outw, outh, src.c, src.elemsize, src.elempack, opt.blob_allocator);
  else
    result.create(outw, outh, outd, src.c, src.elemsize, src.elempack, opt.blob_allocator);
  const size_t es = src.elemsize;
  const int channels = src.dims == 2 ? 1 : src.c;
#pragma omp parallel for num_threads(opt.num_threads)
  for (int q = 0; q < channels; q++) {
    const unsigned char* s = static_cast<const unsigned char*>(src.data) + src.cstep * q * es;
    unsigned char* o = static_cast<unsigned char*>(result.data) + result.cstep * q * es;
    for (int z = 0; z < outd; z++) {
      const unsigned char* plane = s + (static_cast<size_t>(z + front) * src.h * src.w) * es;
      for (int y = 0; y < outh; y++) {
        memcpy(o, plane + (static_cast<size_t>(y + top) * src.w + left) * es, outw * es);
        o += outw * es;
      }
    }
  }
  dst = std::move(result);
}

void copy_cut_border(const Mat& src, Mat& dst, int top, int bottom, int left, int right, const Option& opt) {
  copy_cut_border_3d(src, dst, top, bottom, left, right, 0, 0, opt);
}

}  // namespace jitconv
