// Reshape (0/1/11/2 = w/h/d/c, 3 = permute): the same scalars in a new shape.
//
// The shape's dims is the number of leading params set (w, h, d, c in that order; -233 =
// unset): 0 keeps the input's extent of that name, -1 infers it from the element count.
// permute = 1 flattens channel-last (Caffe / TensorFlow flatten semantics, as ncnn's
// Reshape did while it read param 3): a 3-D / 4-D input reshaped to 1-D is walked as
// [h][w][c] / [d][h][w][c]. ncnn never applied it to other shapes (and current ncnn ignores
// the param): there the flag changes nothing.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "runtime/layers/data_shape.h"

namespace jitconv {
namespace layers {

namespace {

// dst[c][r] = src[r][c] for r < rows, c < cols, in 16x16 tiles to keep both sides in cache.
template <typename T>
void transpose(const T* src, long src_stride, T* dst, long dst_stride, long rows, long cols, int num_threads) {
  constexpr long kTile = 16;
  const long row_tiles = (rows + kTile - 1) / kTile;
#pragma omp parallel for num_threads(num_threads) schedule(static)
  for (long rt = 0; rt < row_tiles; rt++) {
    const long r0 = rt * kTile, r1 = std::min(rows, r0 + kTile);
    for (long c0 = 0; c0 < cols; c0 += kTile) {
      const long c1 = std::min(cols, c0 + kTile);
      for (long r = r0; r < r1; r++)
        for (long c = c0; c < c1; c++) dst[c * dst_stride + r] = src[r * src_stride + c];
    }
  }
}

// A blob as rows along its outermost axis: `rows` rows of `cols` scalars, `stride` apart.
struct Rows {
  long rows, cols, stride;
};

Rows as_rows(const Mat& m) {
  switch (m.dims) {
    case 1: return {1, m.w, m.w};
    case 2: return {m.h, m.w, m.w};
    default: return {m.c, static_cast<long>(m.w) * m.h * m.d, static_cast<long>(m.cstep)};
  }
}

// Copies the dense scalar sequence of src into dst (same count, any channel padding),
// threading over whichever side has more rows.
template <typename T>
void copy_dense(const Mat& src, Mat& dst, int num_threads) {
  const Rows s = as_rows(src), d = as_rows(dst);
  const T* src_data = static_cast<const T*>(src.data);
  T* dst_data = static_cast<T*>(dst.data);
  const bool by_dst = d.rows >= s.rows;
  const long units = by_dst ? d.rows : s.rows;
#pragma omp parallel for num_threads(num_threads) schedule(static)
  for (long u = 0; u < units; u++) {
    long pos = u * (by_dst ? d.cols : s.cols);
    const long end = pos + (by_dst ? d.cols : s.cols);
    while (pos < end) {
      const long sr = pos / s.cols, sc = pos % s.cols, dr = pos / d.cols, dc = pos % d.cols;
      const long chunk = std::min({end - pos, s.cols - sc, d.cols - dc});
      memcpy(dst_data + dr * d.stride + dc, src_data + sr * s.stride + sc, chunk * sizeof(T));
      pos += chunk;
    }
  }
}

template <typename T>
void reshape_channel_last(const Mat& src, Mat& dst, const Option& opt) {
  const Rows s = as_rows(src), d = as_rows(dst);
  // Channel-last order: element (row r, col i) of a blob sits at i * rows + r.
  Mat flat(static_cast<int>(s.rows * s.cols), sizeof(T), 1, opt.workspace_allocator);
  T* flat_data = static_cast<T*>(flat.data);
  transpose(static_cast<const T*>(src.data), s.stride, flat_data, s.rows, s.rows, s.cols, opt.num_threads);
  transpose(flat_data, d.rows, static_cast<T*>(dst.data), d.stride, d.cols, d.rows, opt.num_threads);
}

class Reshape final : public Layer {
 public:
  Reshape() {
    one_blob_only = true;
    support_inplace = false;
  }

  void load_param(const ParamDict& pd) override {
    shape_[0] = pd.get(0, -233);
    shape_[1] = pd.get(1, -233);
    shape_[2] = pd.get(11, -233);
    shape_[3] = pd.get(2, -233);
    permute_ = pd.get(3, 0);
    ndim_ = 4;
    if (shape_[2] == -233) ndim_ = 3;
    if (shape_[3] == -233) ndim_ = 2;
    if (shape_[1] == -233) ndim_ = 1;
    if (shape_[0] == -233) ndim_ = 0;
    if (ndim_ == 0) layer_fail(*this, "needs at least w (param 0)");
    int infer = 0;
    for (int i = 0; i < 4; i++) {
      if (!used(i)) continue;
      if (shape_[i] < -1) layer_fail(*this, "extent ", shape_[i], " (use a size, 0 = keep or -1 = infer)");
      infer += shape_[i] == -1;
    }
    if (infer > 1) layer_fail(*this, "can infer only one extent, ", infer, " are -1");
  }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    if (bottom.dims < 1 || bottom.dims > 4) layer_fail(*this, "input has dims ", bottom.dims);
    if (bottom.elempack != 1) layer_fail(*this, "expects elempack 1, got ", bottom.elempack);
    const long total = static_cast<long>(bottom.w) * bottom.h * bottom.d * bottom.c;
    long out[4] = {1, 1, 1, 1};  // w, h, d, c
    const long keep[4] = {bottom.w, bottom.h, bottom.d, bottom.c};
    long known = 1;
    int infer_at = -1;
    for (int i = 0; i < 4; i++) {
      if (!used(i)) continue;
      if (shape_[i] == -1) {
        infer_at = i;
        continue;
      }
      out[i] = shape_[i] == 0 ? keep[i] : shape_[i];
      known *= out[i];
    }
    if (infer_at >= 0) {
      if (known == 0 || total % known != 0)
        layer_fail(*this, total, " elements do not divide by the other extents' product ", known);
      out[infer_at] = total / known;
    }
    if (known * (infer_at >= 0 ? out[infer_at] : 1) != total || total == 0)
      layer_fail(*this, "cannot reshape ", total, " elements to w=", out[0], " h=", out[1], " d=", out[2], " c=", out[3]);
    for (int i = 0; i < 4; i++)
      if (out[i] > 0x7fffffff) layer_fail(*this, "extent ", out[i], " is too large");

    const int w = static_cast<int>(out[0]), h = static_cast<int>(out[1]), d = static_cast<int>(out[2]),
              c = static_cast<int>(out[3]);
    const long in_outer = bottom.dims == 1 ? bottom.w : bottom.dims == 2 ? bottom.h : bottom.c;
    const long out_outer = ndim_ == 1 ? w : ndim_ == 2 ? h : c;
    if (bottom.dims == ndim_ && in_outer == out_outer) {  // same rows, so both orders agree
      top = view_as(bottom, w, h, d, c);
      return;
    }
    const size_t lanes = lane_bytes(bottom);
    if (permute_ == 1 && ndim_ == 1 && bottom.dims >= 3) {
      top = create_output(w, h, d, c, bottom.elemsize, opt.blob_allocator);
      switch (lanes) {
        case 4: return reshape_channel_last<uint32_t>(bottom, top, opt);
        case 2: return reshape_channel_last<uint16_t>(bottom, top, opt);
        default: return reshape_channel_last<uint8_t>(bottom, top, opt);
      }
    }
    if (can_view(bottom, w, h, d, c)) {
      top = view_as(bottom, w, h, d, c);
      return;
    }
    top = create_output(w, h, d, c, bottom.elemsize, opt.blob_allocator);
    switch (lanes) {
      case 4: return copy_dense<uint32_t>(bottom, top, opt.num_threads);
      case 2: return copy_dense<uint16_t>(bottom, top, opt.num_threads);
      default: return copy_dense<uint8_t>(bottom, top, opt.num_threads);
    }
  }

 private:
  // Whether extent i (w, h, d, c) belongs to the output's dims: 3-D has no d.
  bool used(int i) const { return i == 2 ? ndim_ == 4 : i == 3 ? ndim_ >= 3 : i < ndim_; }

  Mat create_output(int w, int h, int d, int c, size_t elemsize, Allocator* allocator) const {
    Mat m;
    switch (ndim_) {
      case 1: m.create(w, elemsize, 1, allocator); break;
      case 2: m.create(w, h, elemsize, 1, allocator); break;
      case 3: m.create(w, h, c, elemsize, 1, allocator); break;
      default: m.create(w, h, d, c, elemsize, 1, allocator); break;
    }
    return m;
  }

  // True when the output's rows line up with the input's memory: both dense, or the
  // same channel count and plane (so the same channel padding).
  bool can_view(const Mat& bottom, int w, int h, int d, int c) const {
    const Rows s = as_rows(bottom);
    const bool src_dense = s.rows == 1 || s.stride == s.cols;
    if (ndim_ <= 2) return src_dense;
    const size_t plane = static_cast<size_t>(w) * h * (ndim_ == 4 ? d : 1);
    const bool dst_dense = c == 1 || aligned_cstep(plane, bottom.elemsize) == plane;
    return (src_dense && dst_dense) || (bottom.dims >= 3 && c == bottom.c && static_cast<long>(plane) == s.cols);
  }

  // The input's data (shared, reference counted) under the new shape. A single row needs
  // no padding; several rows keep the input's when they match its channels, else the
  // data is dense and so is the new shape (can_view checked).
  Mat view_as(const Mat& bottom, int w, int h, int d, int c) const {
    Mat view = bottom;
    view.dims = ndim_;
    view.w = w;
    view.h = ndim_ >= 2 ? h : 1;
    view.d = ndim_ == 4 ? d : 1;
    view.c = ndim_ >= 3 ? c : 1;
    const size_t plane = static_cast<size_t>(view.w) * view.h * view.d;
    const bool same_rows = bottom.dims >= 3 && view.c == bottom.c && static_cast<long>(plane) == as_rows(bottom).cols;
    view.cstep = ndim_ <= 2 || view.c == 1 ? plane : same_rows ? bottom.cstep : plane;
    return view;
  }

  int shape_[4] = {-233, -233, -233, -233};  // w, h, d, c
  int ndim_ = 0;
  int permute_ = 0;
};

}  // namespace

std::unique_ptr<Layer> make_Reshape() { return std::make_unique<Reshape>(); }

}  // namespace layers
}  // namespace jitconv
