// Interp (ncnn): resize of a 1-D (to [outw, outh, w], every channel filled with its
// value), 2-D (along w) or 3-D blob. Params: 0 resize_type (1 nearest, 2 bilinear,
// 3 bicubic), 1 height_scale, 2 width_scale, 3 output_height, 4 output_width (both set:
// they win over the scales), 5 dynamic_target_size (the size comes from a second input's
// w/h), 6 align_corner.
//
// Coordinates follow ncnn: nearest takes min(int(x * w / outw), w - 1) (or x / scale when
// scales give the size) in fp32; bilinear/bicubic sample at (x + 0.5) * w / outw - 0.5
// (x * (w - 1) / (outw - 1) with align_corner). Taps outside the input clamp to the edge,
// which is what ncnn's coefficient folding amounts to; unlike ncnn it also covers inputs
// narrower than the kernel, and align_corner with outw 1 samples at 0.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/layers/interp_kernels.h"
#include "runtime/layers/math_util.h"

namespace jitconv {
namespace layers {

namespace {

enum ResizeType { kNearest = 1, kBilinear = 2, kBicubic = 3 };

// Per output coordinate: `taps` source indices and weights.
struct AxisTaps {
  int taps = 0;
  std::vector<int> offset;
  std::vector<float> weight;
};

double sample_scale(int in, int out, bool align_corner) {
  if (align_corner) return out > 1 ? static_cast<double>(in - 1) / (out - 1) : 0.0;
  return static_cast<double>(in) / out;
}

float sample_position(int dx, double scale, bool align_corner) {
  return align_corner ? static_cast<float>(dx * scale) : static_cast<float>((dx + 0.5) * scale - 0.5);
}

AxisTaps linear_taps(int in, int out, bool align_corner) {
  AxisTaps t;
  t.taps = 2;
  const double scale = sample_scale(in, out, align_corner);
  for (int dx = 0; dx < out; dx++) {
    float fx = sample_position(dx, scale, align_corner);
    int sx = static_cast<int>(std::floor(fx));
    fx -= sx;
    if (sx < 0) sx = 0, fx = 0.f;
    if (sx >= in - 1) sx = in - 2, fx = 1.f;
    if (in == 1) sx = 0, fx = 0.f;
    t.offset.push_back(sx);
    t.offset.push_back(std::min(sx + 1, in - 1));
    t.weight.push_back(1.f - fx);
    t.weight.push_back(fx);
  }
  return t;
}

AxisTaps cubic_taps(int in, int out, bool align_corner) {
  AxisTaps t;
  t.taps = 4;
  const double scale = sample_scale(in, out, align_corner);
  const float a = -0.75f;
  for (int dx = 0; dx < out; dx++) {
    float fx = sample_position(dx, scale, align_corner);
    const int sx = static_cast<int>(std::floor(fx));
    fx -= sx;
    const float f0 = fx + 1, f1 = fx, f2 = 1 - fx;
    const float c0 = a * f0 * f0 * f0 - 5 * a * f0 * f0 + 8 * a * f0 - 4 * a;
    const float c1 = (a + 2) * f1 * f1 * f1 - (a + 3) * f1 * f1 + 1;
    const float c2 = (a + 2) * f2 * f2 * f2 - (a + 3) * f2 * f2 + 1;
    const float coeffs[4] = {c0, c1, c2, 1.f - c0 - c1 - c2};
    for (int k = 0; k < 4; k++) {
      t.offset.push_back(std::min(std::max(sx - 1 + k, 0), in - 1));
      t.weight.push_back(coeffs[k]);
    }
  }
  return t;
}

}  // namespace

class Interp final : public Layer {
 public:
  Interp() {
    one_blob_only = true;
    support_inplace = false;
    support_packing = true;
  }

  void load_param(const ParamDict& pd) override {
    resize_type_ = pd.get(0, 0);
    height_scale_ = pd.get(1, 1.f);
    width_scale_ = pd.get(2, 1.f);
    output_height_ = pd.get(3, 0);
    output_width_ = pd.get(4, 0);
    dynamic_ = pd.get(5, 0);
    align_corner_ = pd.get(6, 0);
    const std::string me = layer_label(*this);
    if (resize_type_ < 0 || resize_type_ > kBicubic)
      fail(me, ": resize_type (param 0) must be 1 (nearest), 2 (bilinear) or 3 (bicubic), got ", resize_type_);
    if (pd.has(9)) fail(me, ": size_expr (param 9) is not supported");
    if (dynamic_) one_blob_only = false;
  }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    check_fp32_blob(*this, bottom);
    int outw = output_width_, outh = output_height_;
    if (outw == 0 || outh == 0) {
      const int w = bottom.dims == 1 ? 1 : bottom.w, h = bottom.dims == 1 ? 1 : bottom.h;
      outw = scaled_extent(w, width_scale_, "width");
      outh = scaled_extent(h, height_scale_, "height");
    }
    resize(bottom, top, outw, outh, output_width_ != 0, output_height_ != 0, opt);
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    if (!dynamic_) return Layer::forward(bottoms, tops, opt);
    if (bottoms.size() != 2) fail(layer_label(*this), ": dynamic_target_size needs two inputs, got ", bottoms.size());
    check_fp32_blob(*this, bottoms[0]);
    tops.resize(1);
    resize(bottoms[0], tops[0], bottoms[1].w, bottoms[1].h, true, true, opt);
  }

 private:
  // int(extent * scale) as ncnn computes it (fp32 product, truncated), when it is an int
  // at all: a NaN, infinite or huge scale is an error, not an undefined conversion.
  int scaled_extent(int extent, float scale, const char* axis) const {
    const float v = extent * scale;
    if (!(std::fabs(v) < 2147483648.f))
      fail(layer_label(*this), ": ", axis, "_scale ", scale, " makes a ", axis, " of ", v, " from ", extent);
    return static_cast<int>(v);
  }

  // size_w/size_h: the output size came from an explicit size, not a scale (nearest
  // then maps through in / out, as ncnn does).
  void resize(const Mat& in, Mat& top, int outw, int outh, bool size_w, bool size_h, const Option& opt) const {
    const std::string me = layer_label(*this);
    if (in.dims == 4) fail(me, ": 4-D input is not supported");
    if (in.dims == 2) outh = 1;  // a 2-D blob is resized along w only
    if (outw <= 0 || outh <= 0) fail(me, ": output size ", outw, "x", outh, " is not positive");
    const int lanes = in.elempack;
    const size_t es = static_cast<size_t>(lanes) * sizeof(float);
    if (in.dims == 1) {
      Mat out;
      create_blob(out, 3, outw, outh, 1, in.w, lanes, opt.blob_allocator);
      const long n = static_cast<long>(outw) * outh;
#pragma omp parallel for num_threads(thread_count(opt, static_cast<size_t>(n) * in.w * lanes))
      for (int q = 0; q < in.w; q++) {
        const float* v = static_cast<const float*>(in.data) + q * lanes;
        float* dst = channel_ptr(out, q);
        for (long i = 0; i < n; i++) std::memcpy(dst + i * lanes, v, es);
      }
      top = out;
      return;
    }
    const int w = in.w, h = in.dims == 2 ? 1 : in.h;
    if (outw == w && outh == h) {
      top = in;
      return;
    }
    if (resize_type_ == 0) fail(me, ": resize_type 0 cannot resize ", w, "x", h, " to ", outw, "x", outh);

    Mat out;
    if (in.dims == 2)
      create_blob(out, 2, outw, in.h, 1, 1, lanes, opt.blob_allocator);
    else
      create_blob(out, 3, outw, outh, 1, in.c, lanes, opt.blob_allocator);
    // A 2-D blob is resized row by row: its packed rows act as channels of height 1.
    const int channels = in.dims == 2 ? in.h : in.c;
    auto src_channel = [&](int q) {
      return in.dims == 2 ? static_cast<const float*>(in.data) + static_cast<size_t>(q) * w * lanes : channel_ptr(in, q);
    };
    auto dst_channel = [&](int q) {
      return in.dims == 2 ? static_cast<float*>(out.data) + static_cast<size_t>(q) * outw * lanes : channel_ptr(out, q);
    };

    if (resize_type_ == kNearest) {
      const float ws = size_w ? static_cast<float>(w) / outw : 1.f / width_scale_;
      const float hs = size_h ? static_cast<float>(h) / outh : 1.f / height_scale_;
      std::vector<int> xs(outw);
      for (int x = 0; x < outw; x++) xs[x] = std::min(static_cast<int>(x * ws), w - 1);
#pragma omp parallel for num_threads(thread_count(opt, static_cast<size_t>(channels) * outw * outh * lanes))
      for (int q = 0; q < channels; q++) {
        const float* src = src_channel(q);
        float* dst = dst_channel(q);
        for (int y = 0; y < outh; y++) {
          const int sy = in.dims == 2 ? 0 : std::min(static_cast<int>(y * hs), h - 1);
          const float* row = src + static_cast<size_t>(sy) * w * lanes;
          float* out_row = dst + static_cast<size_t>(y) * outw * lanes;
          for (int x = 0; x < outw; x++) std::memcpy(out_row + x * lanes, row + xs[x] * lanes, es);
        }
      }
      top = out;
      return;
    }

    const bool cubic = resize_type_ == kBicubic;
    const AxisTaps tx = cubic ? cubic_taps(w, outw, align_corner_) : linear_taps(w, outw, align_corner_);
    const AxisTaps ty = cubic ? cubic_taps(h, outh, align_corner_) : linear_taps(h, outh, align_corner_);
    const long row_floats = static_cast<long>(outw) * lanes;
    const int threads = thread_count(opt, static_cast<size_t>(channels) * (h + outh) * row_floats * tx.taps);
#pragma omp parallel num_threads(threads)
    {
      std::vector<float> rows(static_cast<size_t>(h) * row_floats);  // every source row, resized along w
#pragma omp for
      for (int q = 0; q < channels; q++) {
        const float* src = src_channel(q);
        float* dst = dst_channel(q);
        if (in.dims == 2) {
          JITCONV_SIMD_CALL(interp_horizontal, src, dst, tx.offset.data(), tx.weight.data(), outw, tx.taps, lanes);
          continue;
        }
        for (int y = 0; y < h; y++)
          JITCONV_SIMD_CALL(interp_horizontal, src + static_cast<size_t>(y) * w * lanes, &rows[y * row_floats],
                            tx.offset.data(), tx.weight.data(), outw, tx.taps, lanes);
        for (int y = 0; y < outh; y++) {
          const float* taps[4];
          for (int t = 0; t < ty.taps; t++) taps[t] = &rows[ty.offset[y * ty.taps + t] * row_floats];
          JITCONV_SIMD_CALL(interp_vertical, taps, &ty.weight[y * ty.taps], ty.taps, dst + y * row_floats, row_floats);
        }
      }
    }
    top = out;
  }

  int resize_type_ = 0;
  float height_scale_ = 1.f, width_scale_ = 1.f;
  int output_height_ = 0, output_width_ = 0, dynamic_ = 0, align_corner_ = 0;
};

std::unique_ptr<Layer> make_Interp() { return std::make_unique<Interp>(); }

}  // namespace layers
}  // namespace jitconv
