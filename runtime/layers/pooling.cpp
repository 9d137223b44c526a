// Pooling (ncnn): max / average over 2-D windows of each channel of a 3-D blob.
// Params: 0 pooling_type (0 max, 1 avg), 1 kernel_w, 11 kernel_h, 2 stride_w,
// 12 stride_h, 3 pad_left, 14 pad_right, 13 pad_top, 15 pad_bottom, 4 global_pooling,
// 5 pad_mode (0 full: pads plus a tail so every input column is covered, i.e. ceil
// rounding; 1 valid: the given pads, floor rounding; 2 SAME_UPPER; 3 SAME_LOWER),
// 6 avgpool_count_include_pad, 7 adaptive_pooling, 8 out_w, 18 out_h.
//
// As in ncnn, an average that excludes padding counts and sums the window positions inside
// [pad_left, padded_w - pad_right - tail) using the pad *parameters*, also in the SAME
// modes: their computed padding then counts (as zeros) where the parameters are smaller,
// and input samples outside the region are left out where the parameters are larger. ncnn does not drop a last window
// that starts in the padding (Caffe does): such a window yields -FLT_MAX (max) or 0
// (average over the kernel area); an excluding average of it would be 0/0 and is rejected.
#include <algorithm>
#include <memory>

#include "runtime/layers/math_util.h"
#include "runtime/layers/pooling_kernels.h"

namespace jitconv {
namespace layers {

class Pooling final : public Layer {
 public:
  Pooling() {
    one_blob_only = true;
    support_inplace = false;
    support_packing = true;
  }

  void load_param(const ParamDict& pd) override {
    pooling_type_ = pd.get(0, 0);
    kernel_w_ = pd.get(1, 0);
    kernel_h_ = pd.get(11, kernel_w_);
    stride_w_ = pd.get(2, 1);
    stride_h_ = pd.get(12, stride_w_);
    pad_left_ = pd.get(3, 0);
    pad_right_ = pd.get(14, pad_left_);
    pad_top_ = pd.get(13, pad_left_);
    pad_bottom_ = pd.get(15, pad_top_);
    global_ = pd.get(4, 0);
    pad_mode_ = pd.get(5, 0);
    count_include_pad_ = pd.get(6, 0);
    adaptive_ = pd.get(7, 0);
    out_w_ = pd.get(8, 0);
    out_h_ = pd.get(18, out_w_);
    const std::string me = layer_label(*this);
    if (pooling_type_ != 0 && pooling_type_ != 1) fail(me, ": pooling_type (param 0) must be 0 or 1, got ", pooling_type_);
    if (global_) return;
    if (adaptive_) {
      // -233 keeps that input extent (pnnx writes it for AdaptiveAvgPool2d((None, n))).
      auto valid = [](int v) { return v > 0 || v == -233; };
      if (!valid(out_w_) || !valid(out_h_))
        fail(me, ": adaptive pooling needs out_w/out_h (params 8/18) > 0 or -233 (the input's), got ", out_w_, "x",
             out_h_);
      return;
    }
    if (kernel_w_ <= 0 || kernel_h_ <= 0) fail(me, ": kernel (params 1/11) must be positive, got ", kernel_w_, "x", kernel_h_);
    if (stride_w_ <= 0 || stride_h_ <= 0) fail(me, ": stride (params 2/12) must be positive, got ", stride_w_, "x", stride_h_);
    if (pad_left_ < 0 || pad_right_ < 0 || pad_top_ < 0 || pad_bottom_ < 0)
      fail(me, ": negative padding (params 3/14/13/15)");
    if (pad_mode_ < 0 || pad_mode_ > 3) fail(me, ": pad_mode (param 5) must be 0..3, got ", pad_mode_);
  }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    check_fp32_blob(*this, bottom);
    if (bottom.dims != 3) fail(layer_label(*this), ": expects a 3-D input, got ", bottom.dims, "-D");
    const int lanes = bottom.elempack;
    const bool is_max = pooling_type_ == 0;
    if (global_) {
      Mat out;
      create_blob(out, 1, bottom.c, 1, 1, 1, lanes, opt.blob_allocator);
      const long count = static_cast<long>(plane_elements(bottom));
#pragma omp parallel for num_threads(thread_count(opt, static_cast<size_t>(count) * bottom.c * lanes))
      for (int q = 0; q < bottom.c; q++)
        JITCONV_SIMD_CALL(pool_global_channel, channel_ptr(bottom, q), count, lanes, is_max,
                          static_cast<float*>(out.data) + q * lanes);
      top = out;
      return;
    }
    if (adaptive_) {
      const int out_w = out_w_ == -233 ? bottom.w : out_w_, out_h = out_h_ == -233 ? bottom.h : out_h_;
      Mat out;
      create_blob(out, 3, out_w, out_h, 1, bottom.c, lanes, opt.blob_allocator);
#pragma omp parallel for num_threads(thread_count(opt, plane_elements(bottom) * bottom.c * lanes))
      for (int q = 0; q < bottom.c; q++) {
        const PoolAdaptiveJob job{channel_ptr(bottom, q), channel_ptr(out, q), bottom.w, bottom.h, lanes,
                                  out_w, out_h, is_max};
        JITCONV_SIMD_CALL(pool_adaptive_channel, job);
      }
      top = out;
      return;
    }

    PoolWindowJob base{};
    plan_windows(bottom.w, bottom.h, base);
    Mat out;
    create_blob(out, 3, base.outw, base.outh, 1, bottom.c, lanes, opt.blob_allocator);
    const size_t work = static_cast<size_t>(base.outw) * base.outh * bottom.c * lanes * kernel_w_ * kernel_h_;
#pragma omp parallel for num_threads(thread_count(opt, work))
    for (int q = 0; q < bottom.c; q++) {
      PoolWindowJob job = base;
      job.src = channel_ptr(bottom, q);
      job.dst = channel_ptr(out, q);
      job.lanes = lanes;
      JITCONV_SIMD_CALL(pool_window_channel, job);
    }
    top = out;
  }

 private:
  // ncnn's padding for each pad_mode, the output size, and the counted region.
  void plan_windows(int w, int h, PoolWindowJob& job) const {
    int pl = pad_left_, pr = pad_right_, pt = pad_top_, pb = pad_bottom_;
    int wtail = 0, htail = 0;
    if (pad_mode_ == 0) {
      // In 64 bits, as the padded extents below: pads and strides may be near INT_MAX.
      const long long span_w = static_cast<long long>(w) + pl + pr, span_h = static_cast<long long>(h) + pt + pb;
      const long long wrem = (span_w - kernel_w_) % stride_w_, hrem = (span_h - kernel_h_) % stride_h_;
      if (span_w >= kernel_w_ && wrem != 0) wtail = static_cast<int>(stride_w_ - wrem);
      if (span_h >= kernel_h_ && hrem != 0) htail = static_cast<int>(stride_h_ - hrem);
    } else if (pad_mode_ >= 2) {
      const int wpad = kernel_w_ + (w - 1) / stride_w_ * stride_w_ - w;
      const int hpad = kernel_h_ + (h - 1) / stride_h_ * stride_h_ - h;
      const int wsplit = pad_mode_ == 2 ? wpad / 2 : wpad - wpad / 2;
      const int hsplit = pad_mode_ == 2 ? hpad / 2 : hpad - hpad / 2;
      pl = wpad > 0 ? wsplit : 0;
      pr = wpad > 0 ? wpad - wsplit : 0;
      pt = hpad > 0 ? hsplit : 0;
      pb = hpad > 0 ? hpad - hsplit : 0;
    }
    const int padded_w = checked_extent(static_cast<long long>(w) + pl + pr + wtail, "padded input width");
    const int padded_h = checked_extent(static_cast<long long>(h) + pt + pb + htail, "padded input height");
    if (padded_w < kernel_w_ || padded_h < kernel_h_)
      fail(layer_label(*this), ": kernel ", kernel_w_, "x", kernel_h_, " is larger than the padded input ", padded_w,
           "x", padded_h);
    job.w = w;
    job.h = h;
    job.outw = (padded_w - kernel_w_) / stride_w_ + 1;
    job.outh = (padded_h - kernel_h_) / stride_h_ + 1;
    job.kernel_w = kernel_w_;
    job.kernel_h = kernel_h_;
    job.stride_w = stride_w_;
    job.stride_h = stride_h_;
    job.pad_left = pl;
    job.pad_top = pt;
    job.max = pooling_type_ == 0;
    job.count_include_pad = count_include_pad_ != 0;
    job.lo_x = pad_left_;
    job.hi_x = padded_w - pad_right_ - wtail;
    job.lo_y = pad_top_;
    job.hi_y = padded_h - pad_bottom_ - htail;
    // The input read: all of it, or for an excluding average the part inside the counted
    // region (the whole input unless SAME modes meet larger pad parameters).
    auto clamp = [](long long v, int hi) { return static_cast<int>(std::max(0LL, std::min<long long>(v, hi))); };
    const bool region = !job.max && !job.count_include_pad;
    job.x_begin = region ? clamp(static_cast<long long>(job.lo_x) - pl, w) : 0;
    job.x_end = region ? std::max(job.x_begin, clamp(static_cast<long long>(job.hi_x) - pl, w)) : w;
    job.y_begin = region ? clamp(static_cast<long long>(job.lo_y) - pt, h) : 0;
    job.y_end = region ? std::max(job.y_begin, clamp(static_cast<long long>(job.hi_y) - pt, h)) : h;
    if (!job.max && !job.count_include_pad) {
      auto counted = [](int start, int len, int lo, int hi) { return std::min(start + len, hi) - std::max(start, lo); };
      if (counted(0, kernel_w_, job.lo_x, job.hi_x) <= 0 ||
          counted((job.outw - 1) * stride_w_, kernel_w_, job.lo_x, job.hi_x) <= 0 ||
          counted(0, kernel_h_, job.lo_y, job.hi_y) <= 0 ||
          counted((job.outh - 1) * stride_h_, kernel_h_, job.lo_y, job.hi_y) <= 0)
        fail(layer_label(*this), ": an average window has nothing to count (kernel ", kernel_w_, "x", kernel_h_,
             ", pads l", pl, " r", pr + wtail, " t", pt, " b", pb + htail, ", input ", w, "x", h, ")");
    }
  }

  int pooling_type_ = 0;
  int kernel_w_ = 0, kernel_h_ = 0, stride_w_ = 1, stride_h_ = 1;
  int pad_left_ = 0, pad_right_ = 0, pad_top_ = 0, pad_bottom_ = 0;
  int global_ = 0, pad_mode_ = 0, count_include_pad_ = 0, adaptive_ = 0;
  int out_w_ = 0, out_h_ = 0;
};

std::unique_ptr<Layer> make_Pooling() { return std::make_unique<Pooling>(); }

}  // namespace layers
}  // namespace jitconv
