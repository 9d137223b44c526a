// BinaryOp (ncnn): C = op(A, B) with ncnn's broadcasting. Params: 0 = op_type (add, sub,
// mul, div, max, min, pow, rsub, rdiv, rpow, atan2, ratan2), 1 = with_scalar (B is
// param 2, in place), 2 = b.
//
// Broadcasting, as current ncnn: the operand with fewer dims is first expanded to the
// other's dims (a 1-D operand becomes per-row / per-channel when its length matches the
// other's h / c, else it runs along w; 2-D [w,h] becomes [1,w,h] or [1,1,w,h]; 3-D
// [w,h,c] becomes [1,w,h,c]); then every axis must be equal or 1 and 1 broadcasts.
//
// Any elempack: the output packs like the operand that spans the packing axis; each
// output row is one binary_row call where an operand is either contiguous or a 16-float
// pattern (constant along the row), rows merging across h and d where both operands
// allow it.
#include <algorithm>
#include <memory>
#include <vector>

#include "runtime/layers/elementwise_kernels.h"
#include "runtime/layers/math_util.h"

namespace jitconv {
namespace layers {

namespace {

constexpr long kChunk = 16384;  // floats per parallel work item (a multiple of 16)

// A 1-D blob's scalars as a dense elempack-1 view of `dims` dims running along w.
Mat flat_view(const Mat& m, int dims) {
  Mat v = m;
  v.dims = dims;
  v.w = m.w * m.elempack;
  v.h = v.d = v.c = 1;
  v.elempack = 1;
  v.elemsize = 4;
  v.cstep = dims >= 3 ? aligned_cstep(v.w, 4) : v.w;
  return v;
}

// ncnn's expansion of the lower-dims operand x against `other` (which has outdims).
Mat expand_operand(const Mat& x, const Mat& other, const Option& opt) {
  const int outdims = other.dims;
  if (x.dims == outdims) return x;
  Allocator* ws = opt.workspace_allocator;
  const int len = x.w * x.elempack;
  if (x.dims == 1) {
    if (outdims == 2) return len == other.h * other.elempack ? x.reshape(1, x.w, ws) : flat_view(x, 2);
    if (outdims == 3) return len == other.c * other.elempack ? x.reshape(1, 1, x.w, ws) : flat_view(x, 3);
    return len == other.c * other.elempack ? x.reshape(1, 1, 1, x.w, ws) : flat_view(x, 4);
  }
  if (x.dims == 2) return outdims == 3 ? x.reshape(1, x.w, x.h, ws) : x.reshape(1, 1, x.w, x.h, ws);
  return x.reshape(1, x.w, x.h, x.c, ws);
}

struct Axes {
  int w, h, d, p;  // p: scalars along the packing axis (w for 1-D, h for 2-D, c otherwise)
};

Axes scalar_axes(const Mat& m) {
  if (m.dims == 1) return {m.w * m.elempack, 1, 1, m.w * m.elempack};
  if (m.dims == 2) return {m.w, m.h * m.elempack, 1, m.h * m.elempack};
  return {m.w, m.h, m.d, m.c * m.elempack};
}

// How one operand is walked while producing the output.
struct OperandWalk {
  const Mat* m;
  bool full_w, full_h, full_d, full_p;  // spans the output along that axis (else size 1)
};

// Where row (q, z, y) of operand o starts; broadcast axes stay at index 0.
const float* row_start(const OperandWalk& o, int q, int z, int y) {
  const Mat& m = *o.m;
  const int qq = o.full_p ? q : 0, zz = o.full_d ? z : 0, yy = o.full_h ? y : 0;
  const float* base = static_cast<const float*>(m.data);
  if (m.dims == 1) return base;
  if (m.dims == 2) return base + static_cast<size_t>(qq) * m.w * m.elempack;
  return base + (m.cstep * qq + (static_cast<size_t>(zz) * m.h + yy) * m.w) * m.elempack;
}

// Prepares operand o's view of one row chunk [begin, begin + len) of `lanes`-lane
// elements: a pointer and mode for binary_row, using `pattern` (16 floats) or `expand`
// (len floats) as scratch.
const float* operand_row(const OperandWalk& o, const float* start, bool w_runs, int lanes, long begin, long len,
                         float* pattern, std::vector<float>& expand, RowMode& mode) {
  const bool lanes_match = o.m->elempack == lanes;
  if (w_runs && lanes_match) {
    mode = RowMode::contiguous;
    return start + begin;
  }
  if (!w_runs) {  // one element repeated: its lanes, or one scalar for every lane
    for (int j = 0; j < 16; j++) pattern[j] = lanes_match ? start[j % lanes] : start[0];
    mode = RowMode::pattern;
    return pattern;
  }
  // Elements run along the row but each scalar covers every output lane.
  expand.resize(len);
  for (long i = 0; i < len; i++) expand[i] = start[(begin + i) / lanes];
  mode = RowMode::contiguous;
  return expand.data();
}

}  // namespace

class BinaryOp final : public Layer {
 public:
  BinaryOp() {
    one_blob_only = false;
    support_inplace = false;
    support_packing = true;
  }

  void load_param(const ParamDict& pd) override {
    op_type_ = pd.get(0, 0);
    with_scalar_ = pd.get(1, 0);
    b_ = pd.get(2, 0.f);
    if (op_type_ < 0 || op_type_ >= kBinaryKindCount)
      fail(layer_label(*this), ": op_type (param 0) must be 0..", kBinaryKindCount - 1, ", got ", op_type_);
    if (with_scalar_) {
      one_blob_only = true;
      support_inplace = true;
    }
  }

  void forward_inplace(Mat& blob, const Option& opt) const override {
    if (!with_scalar_) fail(layer_label(*this), ": expects two inputs (with_scalar is 0)");
    check_fp32_blob(*this, blob);
    const long n = static_cast<long>(plane_elements(blob)) * blob.elempack;
    const long chunks = (n + kChunk - 1) / kChunk;
    const long items = channel_count(blob) * chunks;
    const BinaryKind kind = static_cast<BinaryKind>(op_type_);
    const int threads = thread_count(opt, static_cast<size_t>(n) * channel_count(blob));
#pragma omp parallel for num_threads(threads)
    for (long item = 0; item < items; item++) {
      const long begin = item % chunks * kChunk;
      float* x = channel_ptr(blob, static_cast<int>(item / chunks)) + begin;
      JITCONV_SIMD_CALL(binary_scalar_inplace, kind, x, b_, std::min(kChunk, n - begin));
    }
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    if (with_scalar_) return Layer::forward(bottoms, tops, opt);
    if (bottoms.size() != 2) fail(layer_label(*this), ": expects two inputs, got ", bottoms.size());
    check_fp32_blob(*this, bottoms[0], "input A");
    check_fp32_blob(*this, bottoms[1], "input B");
    const Mat& a0 = bottoms[0];
    const Mat& b0 = bottoms[1];
    Mat a = a0.dims < b0.dims ? expand_operand(a0, b0, opt) : a0;
    Mat b = b0.dims < a0.dims ? expand_operand(b0, a0, opt) : b0;
    const Axes aa = scalar_axes(a), ba = scalar_axes(b);
    const Axes out{std::max(aa.w, ba.w), std::max(aa.h, ba.h), std::max(aa.d, ba.d), std::max(aa.p, ba.p)};
    for (const Axes& x : {aa, ba}) {
      if ((x.w != out.w && x.w != 1) || (x.h != out.h && x.h != 1) || (x.d != out.d && x.d != 1) ||
          (x.p != out.p && x.p != 1))
        fail(layer_label(*this), ": cannot broadcast A (", a0.dims, "-D ", shape_text(a0), ") with B (", b0.dims,
             "-D ", shape_text(b0), ")");
    }

    // The output packs like the widest operand that spans the packing axis.
    int lanes = 1;
    if (aa.p == out.p) lanes = std::max(lanes, a.elempack);
    if (ba.p == out.p) lanes = std::max(lanes, b.elempack);
    if (aa.p == out.p && a.elempack != lanes) a = repack_workspace(a, lanes, opt);
    if (ba.p == out.p && b.elempack != lanes) b = repack_workspace(b, lanes, opt);

    const int dims = a.dims;
    Mat top;
    if (dims == 1) {
      create_blob(top, 1, out.w / lanes, 1, 1, 1, lanes, opt.blob_allocator);
    } else if (dims == 2) {
      create_blob(top, 2, out.w, out.h / lanes, 1, 1, lanes, opt.blob_allocator);
    } else {
      create_blob(top, dims, out.w, out.h, out.d, out.p / lanes, lanes, opt.blob_allocator);
    }

    OperandWalk wa{&a, aa.w == out.w, aa.h == out.h, aa.d == out.d, aa.p == out.p};
    OperandWalk wb{&b, ba.w == out.w, ba.h == out.h, ba.d == out.d, ba.p == out.p};
    if (dims == 1) {  // the packing axis is w itself: a dense run of scalars
      wa.full_w = wa.full_p;
      wb.full_w = wb.full_p;
    }
    run(wa, wb, top, opt);
    tops.assign(1, top);
  }

 private:
  static std::string shape_text(const Mat& m) {
    return str_cat(m.w, "x", m.h, "x", m.d, "x", m.c, " elempack ", m.elempack);
  }

  // Walks the output in rows that each operand reads contiguously or as a pattern.
  void run(const OperandWalk& wa, const OperandWalk& wb, Mat& top, const Option& opt) const {
    const int dims = top.dims;
    const int lanes = top.elempack;
    // Merge h (and then d) into the row when each operand treats them like w.
    const bool merge_h = dims >= 3 && wa.full_h == wa.full_w && wb.full_h == wb.full_w;
    const bool merge_d = merge_h && wa.full_d == wa.full_w && wb.full_d == wb.full_w;
    const int outer = dims == 1 ? 1 : dims == 2 ? top.h : top.c;
    const int depth = dims >= 3 && !merge_d ? top.d : 1;
    const int height = dims >= 3 && !merge_h ? top.h : 1;
    const long row_elems = dims == 1 ? top.w
                           : merge_d ? static_cast<long>(plane_elements(top))
                           : merge_h ? static_cast<long>(top.w) * top.h
                                     : top.w;
    const long n = row_elems * lanes;
    const long chunks = (n + kChunk - 1) / kChunk;
    const long rows = static_cast<long>(outer) * depth * height;
    const BinaryKind kind = static_cast<BinaryKind>(op_type_);

    const int threads = thread_count(opt, static_cast<size_t>(rows) * n);
#pragma omp parallel num_threads(threads)
    {
      float pattern_a[16], pattern_b[16];
      std::vector<float> expand_a, expand_b;
#pragma omp for
      for (long item = 0; item < rows * chunks; item++) {
        const long row = item / chunks;
        const long begin = item % chunks * kChunk;
        const long len = std::min(kChunk, n - begin);
        const int y = static_cast<int>(row % height);
        const int z = static_cast<int>(row / height % depth);
        const int q = static_cast<int>(row / height / depth);
        float* dst = static_cast<float*>(top.data) +
                     (dims <= 2 ? static_cast<size_t>(q) * n
                                : (top.cstep * q + (static_cast<size_t>(z) * top.h + y) * top.w) * lanes) +
                     begin;
        RowMode am, bm;
        const float* pa = operand_row(wa, row_start(wa, q, z, y), wa.full_w, lanes, begin, len, pattern_a, expand_a, am);
        const float* pb = operand_row(wb, row_start(wb, q, z, y), wb.full_w, lanes, begin, len, pattern_b, expand_b, bm);
        JITCONV_SIMD_CALL(binary_row, kind, pa, am, pb, bm, dst, len);
      }
    }
  }

  int op_type_ = 0;
  int with_scalar_ = 0;
  float b_ = 0.f;
};

std::unique_ptr<Layer> make_BinaryOp() { return std::make_unique<BinaryOp>(); }

}  // namespace layers
}  // namespace jitconv
