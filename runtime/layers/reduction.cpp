// Reduction (ncnn). Params: 0 operation (0 sum, 1 asum, 2 sumsq, 3 mean, 4 max, 5 min,
// 6 prod, 7 L1, 8 L2, 9 log_sum, 10 log_sum_exp), 1 reduce_all (default 1), 2 coeff
// (the result is multiplied by it; mean divides it by the reduced count), 3 axes (ncnn
// order: c/d/h/w from the outermost, negative from the end), 4 keepdims, 5 fixbug0
// (must be 1 with axes, as ncnn demands). A 1-D input is always reduced whole.
//
// The input is seen as groups [G][D][H][W][lanes], G the packed outer axis. When the
// outer axis is not reduced the lanes are independent and the packing carries over to
// the output (whose outer axis is still c); otherwise the input is unpacked first.
// Reducing G runs in two stages: every group reduces itself in parallel, then the
// per-group partials are combined. LogSumExp is max + log(sum exp(x - max)), two passes:
// finite where ncnn's plain float sum of exp overflows to inf or underflows to 0.
#include <cfloat>
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "runtime/layers/math_util.h"
#include "runtime/layers/reduction_kernels.h"

namespace jitconv {
namespace layers {

namespace {
enum Operation { kSum, kAsum, kSumsq, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp };

struct Plan {
  bool rg, rd, rh, rw;  // reduce groups (outer axis), depth, rows, columns
  int outdims, outw, outh, outd, outc;  // scalar output shape, ncnn's rules
};
}  // namespace

class Reduction final : public Layer {
 public:
  Reduction() {
    one_blob_only = true;
    support_inplace = false;
    support_packing = true;
  }

  void load_param(const ParamDict& pd) override {
    operation_ = pd.get(0, 0);
    reduce_all_ = pd.get(1, 1);
    coeff_ = pd.get(2, 1.f);
    axes_ = pd.get_ints(3);
    keepdims_ = pd.get(4, 0);
    const int fixbug0 = pd.get(5, 0);
    if (operation_ < kSum || operation_ > kLogSumExp)
      fail(layer_label(*this), ": operation (param 0) must be 0..10, got ", operation_);
    if (fixbug0 == 0 && !axes_.empty())
      fail(layer_label(*this), ": axes without fixbug0 (param 5) come from an old converter; regenerate the param");
  }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    check_fp32_blob(*this, bottom);
    const Plan plan = make_plan(bottom);
    // Unpack when the packed axis itself is reduced.
    const Mat in = plan.rg && bottom.elempack > 1 ? repack_workspace(bottom, 1, opt) : bottom;
    const int lanes = in.elempack;

    // Input as [G][D][H][W][lanes].
    const int dims = in.dims;
    const int G = dims == 1 ? 1 : dims == 2 ? in.h : in.c;
    const int D = dims == 4 ? in.d : 1, H = dims >= 3 ? in.h : 1, W = in.w;
    const long group_stride = dims >= 3 ? static_cast<long>(in.cstep) * lanes : static_cast<long>(W) * H * D * lanes;
    const int Dp = plan.rd ? 1 : D, Hp = plan.rh ? 1 : H, Wp = plan.rw ? 1 : W;
    const long block = static_cast<long>(Dp) * Hp * Wp * lanes;  // output floats per group

    Mat out;
    const int out_lanes = lanes;
    const int outer = plan.outdims >= 3 ? plan.outc : plan.outdims == 2 ? plan.outh : plan.outw;
    create_blob(out, plan.outdims, plan.outdims == 1 ? outer / out_lanes : plan.outw,
                plan.outdims == 2 ? outer / out_lanes : plan.outh, plan.outd, outer / out_lanes, out_lanes,
                opt.blob_allocator);
    const long out_stride = plan.outdims >= 3 ? static_cast<long>(out.cstep) * lanes : block;

    ReduceCombine combine;
    ReducePre pre;
    float init;
    kernel_of(combine, pre, init);
    const float* src = static_cast<const float*>(in.data);

    // Reduces group g into dst (block floats, initialized here). With `shift` (laid out
    // like dst), LogSumExp's second pass: it adds exp(x - shift) of each input value.
    auto reduce_group = [&](ReduceCombine comb, ReducePre pr, float start, const float* shift, int g, float* dst,
                            long dst_offset) {
      for (long i = 0; i < block; i++) dst[i] = start;
      for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++) {
          const float* row = src + g * group_stride + (static_cast<long>(z) * H + y) * W * lanes;
          const long at = ((static_cast<long>(plan.rd ? 0 : z) * Hp + (plan.rh ? 0 : y)) * Wp) * lanes;
          float* acc = dst + at;
          if (shift) {
            const float* s = shift + dst_offset + at;
            if (plan.rw)
              for (long k = 0; k < static_cast<long>(W) * lanes; k++) acc[k % lanes] += std::exp(row[k] - s[k % lanes]);
            else
              for (long k = 0; k < static_cast<long>(W) * lanes; k++) acc[k] += std::exp(row[k] - s[k]);
          } else if (plan.rw) {
            JITCONV_SIMD_CALL(reduce_lanes, comb, pr, acc, row, static_cast<long>(W), lanes);
          } else {
            JITCONV_SIMD_CALL(reduce_accumulate, comb, pr, acc, row, static_cast<long>(W) * lanes);
          }
        }
    };

    const int threads = thread_count(opt, plane_elements(in) * channel_count(in) * lanes);
    float* dst = static_cast<float*>(out.data);
    // Reducing only c of a 4-D blob keeps w, h, d: the output is 3-D with d as channels,
    // so the dense [d][h][w] result is spread over the padded channels afterwards.
    Mat dense;
    const bool spread = plan.rg && plan.outdims >= 3 && out.c > 1;
    if (spread) {
      dense.create(static_cast<int>(block), 4u, 1, opt.workspace_allocator);
      dst = static_cast<float*>(dense.data);
    }
    // The reduction into dst: per group when the groups are kept (dst + g * out_stride),
    // else every group into a partial, then the partials combined into dst.
    const long groups_out = plan.rg ? 1 : G;
    const long dst_stride = plan.rg ? block : out_stride;
    auto reduce_all = [&](ReduceCombine comb, ReducePre pr, float start, const float* shift, float* into) {
      if (!plan.rg) {
#pragma omp parallel for num_threads(threads)
        for (int g = 0; g < G; g++) reduce_group(comb, pr, start, shift, g, into + g * out_stride, g * out_stride);
        return;
      }
      Mat partial(static_cast<int>(block), G, 4u, 1, opt.workspace_allocator);
      float* part = static_cast<float*>(partial.data);
#pragma omp parallel for num_threads(threads)
      for (int g = 0; g < G; g++) reduce_group(comb, pr, start, shift, g, part + g * block, 0);
      // The partials of a shifted pass are sums, whatever comb says.
      const ReduceCombine merge = shift ? ReduceCombine::add : comb;
      for (long i = 0; i < block; i++) into[i] = start;
      for (int g = 0; g < G; g++) JITCONV_SIMD_CALL(reduce_accumulate, merge, ReducePre::none, into, part + g * block, block);
    };
    if (operation_ == kLogSumExp) {
      // max + log(sum exp(x - max)): exact where ncnn's plain float sum of exp overflows
      // to inf (any input above 88.7) or underflows (every input below -87); the same
      // value elsewhere. A non-finite max (all -inf, an inf, a NaN) shifts by 0.
      Mat maxes(static_cast<int>(groups_out * dst_stride), 4u, 1, opt.workspace_allocator);
      float* mx = static_cast<float*>(maxes.data);
      reduce_all(ReduceCombine::max, ReducePre::none, -INFINITY, nullptr, mx);
      for (long g = 0; g < groups_out; g++)
        for (long i = 0; i < block; i++) {
          float& m = mx[g * dst_stride + i];
          if (!std::isfinite(m)) m = 0.f;
        }
      reduce_all(ReduceCombine::add, ReducePre::none, 0.f, mx, dst);
      for (long g = 0; g < groups_out; g++)
        for (long i = 0; i < block; i++) dst[g * dst_stride + i] = mx[g * dst_stride + i] + std::log(dst[g * dst_stride + i]);
    } else {
      reduce_all(combine, pre, init, nullptr, dst);
    }
    if (spread) {
      const size_t plane = plane_elements(out);
      for (int q = 0; q < out.c; q++)
        std::copy(dst + q * plane, dst + (q + 1) * plane, channel_ptr(out, q));
    }
    finish(out, plan, bottom, opt);
    top = out;
  }

 private:
  // Reduce flags and the output shape, as ncnn resolves them.
  Plan make_plan(const Mat& m) const {
    const int dims = m.dims;
    Plan p{};
    const int w = m.w, h = dims == 2 ? m.h * m.elempack : m.h, d = m.d, c = dims >= 3 ? m.c * m.elempack : 1;
    bool rc = false;
    if (dims == 1) {
      p.rw = true;
    } else if (reduce_all_) {
      p.rw = p.rh = p.rd = rc = true;
    } else {
      for (int axis : axes_) {
        const int a = axis < 0 ? axis + dims : axis;
        if (a < 0 || a >= dims) fail(layer_label(*this), ": axis ", axis, " is out of range for a ", dims, "-D input");
        // Axis 0 is the outermost: c (3-D/4-D) or h (2-D).
        const int from_inner = dims - 1 - a;  // 0 = w, 1 = h, 2 = d (4-D) or c (3-D), 3 = c
        if (from_inner == 0) p.rw = true;
        if (from_inner == 1) p.rh = true;
        if (from_inner == 2) (dims == 4 ? p.rd : rc) = true;
        if (from_inner == 3) rc = true;
      }
      if (!p.rw && !p.rh && !p.rd && !rc) fail(layer_label(*this), ": no axis to reduce (reduce_all 0, axes empty)");
    }
    if (dims == 1) p.rw = true;
    p.rg = dims == 1 || (dims == 2 && p.rh) || (dims >= 3 && rc);
    if (dims == 2) p.rh = false;  // the rows are the groups of a 2-D blob
    if (dims == 3) p.rd = false;

    const bool reduce_h_scalar = dims == 2 ? p.rg : p.rh;
    if (keepdims_) {
      p.outdims = dims;
      p.outw = p.rw ? 1 : w;
      p.outh = reduce_h_scalar ? 1 : h;
      p.outd = p.rd ? 1 : d;
      p.outc = rc ? 1 : c;
      return p;
    }
    std::vector<int> shape;
    if (!p.rw) shape.push_back(w);
    if (dims >= 2 && !reduce_h_scalar) shape.push_back(h);
    if (dims == 4 && !p.rd) shape.push_back(d);
    if (dims >= 3 && !rc) shape.push_back(c);
    p.outdims = shape.empty() ? 1 : static_cast<int>(shape.size());
    p.outw = shape.size() > 0 ? shape[0] : 1;
    p.outh = shape.size() > 1 ? shape[1] : 1;
    p.outd = shape.size() > 3 ? shape[2] : 1;
    p.outc = shape.size() > 3 ? shape[3] : shape.size() > 2 ? shape[2] : 1;
    return p;
  }

  void kernel_of(ReduceCombine& combine, ReducePre& pre, float& init) const {
    combine = ReduceCombine::add;
    pre = ReducePre::none;
    init = 0.f;
    switch (operation_) {
      case kAsum: case kL1: pre = ReducePre::abs; break;
      case kSumsq: case kL2: pre = ReducePre::square; break;
      case kMax: combine = ReduceCombine::max, init = -FLT_MAX; break;
      case kMin: combine = ReduceCombine::min, init = FLT_MAX; break;
      case kProd: combine = ReduceCombine::mul, init = 1.f; break;
      default: break;
    }
  }

  // log / sqrt / mean / coeff on every output value.
  void finish(Mat& out, const Plan& p, const Mat& in, const Option& opt) const {
    float coeff = coeff_;
    if (operation_ == kMean) {
      const int dims = in.dims;
      const long c = dims >= 3 ? static_cast<long>(in.c) * in.elempack : 1;
      const long h = dims == 2 ? static_cast<long>(in.h) * in.elempack : in.h;
      long count = 1;
      if (p.rw) count *= dims == 1 ? static_cast<long>(in.w) * in.elempack : in.w;
      if (dims == 2 ? p.rg : p.rh) count *= h;
      if (p.rd) count *= in.d;
      if (dims >= 3 && p.rg) count *= c;
      coeff = coeff / static_cast<float>(count);
    }
    const bool take_log = operation_ == kLogSum;  // LogSumExp took its log in forward
    const bool take_sqrt = operation_ == kL2;
    if (!take_log && !take_sqrt && coeff == 1.f) return;
    const int channels = channel_count(out);
    const long n = static_cast<long>(plane_elements(out)) * out.elempack;
#pragma omp parallel for num_threads(thread_count(opt, static_cast<size_t>(n) * channels))
    for (int q = 0; q < channels; q++) {
      float* x = channel_ptr(out, q);
      for (long i = 0; i < n; i++) {
        float v = x[i];
        if (take_log) v = std::log(v);
        if (take_sqrt) v = std::sqrt(v < FLT_MIN ? 0.f : v);
        x[i] = v * coeff;
      }
    }
  }

  int operation_ = kSum;
  int reduce_all_ = 1;
  float coeff_ = 1.f;
  std::vector<int> axes_;
  int keepdims_ = 0;
};

std::unique_ptr<Layer> make_Reduction() { return std::make_unique<Reduction>(); }

}  // namespace layers
}  // namespace jitconv
