// LRN (ncnn): x * (bias + alpha / n * sum of squares over a window) ^ -beta, in place on
// a 3-D blob. Params: 0 region_type (0 across channels: channels q - size/2 .. q + size/2;
// 1 within channel: a size x size window, zero padded size/2 before), 1 local_size (5),
// 2 alpha (1), 3 beta (0.75), 4 bias (1). n is local_size, or local_size^2 within a
// channel. Across channels works on any elempack (AlexNet's LRNs sit between packed
// convolutions and pools); within a channel takes elempack 1.
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/layers/lrn_kernels.h"
#include "runtime/packing.h"
#include "runtime/layers/math_util.h"

namespace jitconv {
namespace layers {

class LRN final : public Layer {
 public:
  LRN() {
    one_blob_only = true;
    support_inplace = true;
    support_packing = true;
  }

  void load_param(const ParamDict& pd) override {
    region_type_ = pd.get(0, 0);
    local_size_ = pd.get(1, 5);
    alpha_ = pd.get(2, 1.f);
    beta_ = pd.get(3, 0.75f);
    bias_ = pd.get(4, 1.f);
    const std::string me = layer_label(*this);
    if (region_type_ != 0 && region_type_ != 1) fail(me, ": region_type (param 0) must be 0 or 1, got ", region_type_);
    if (local_size_ <= 0) fail(me, ": local_size (param 1) must be positive, got ", local_size_);
    if (!(bias_ > 0.f) || !(alpha_ >= 0.f)) fail(me, ": needs bias > 0 and alpha >= 0, got ", bias_, " and ", alpha_);
  }

  void forward_inplace(Mat& blob, const Option& opt) const override {
    check_fp32_blob(*this, blob);
    if (blob.dims != 3) fail(layer_label(*this), ": expects a 3-D input, got ", blob.dims, "-D");
    if (region_type_ == 0 && (blob.elempack == 1 || local_size_ / 2 <= blob.elempack)) {
      LrnAcrossJob job{static_cast<float*>(blob.data), static_cast<long>(blob.cstep) * blob.elempack, blob.c,
                       blob.elempack, static_cast<long>(blob.w) * blob.h, local_size_, bias_,
                       alpha_ / local_size_, beta_,
                       thread_count(opt, static_cast<size_t>(blob.w) * blob.h * blob.c * blob.elempack * 8)};
      JITCONV_SIMD_CALL(lrn_across_channels, job);
      return;
    }
    if (blob.elempack != 1) {  // within a channel, or a window wider than two packs: unpacked
      Mat plain = repack_workspace(blob, 1, opt);
      forward_inplace(plain, opt);
      Mat packed;
      Option pack_opt = opt;
      convert_packing(plain, packed, blob.elempack, pack_opt);
      const size_t bytes = blob.total() * blob.elemsize;
      std::memcpy(blob.data, packed.data, bytes);
      return;
    }
    const int w = blob.w, h = blob.h, c = blob.c;
    const long size = static_cast<long>(w) * h;
    Mat squares(w, h, c, 4u, 1, opt.workspace_allocator);
    const int threads = thread_count(opt, static_cast<size_t>(size) * c * local_size_);
#pragma omp parallel for num_threads(threads)
    for (int q = 0; q < c; q++) {
      const float* x = channel_ptr(blob, q);
      float* s = channel_ptr(squares, q);
      for (long i = 0; i < size; i++) s[i] = x[i] * x[i];
    }

    // Within channel: a separable box sum of the squares, zero outside the plane.
    // local_size may be anything positive: its square in float, the window ends in 64 bits.
    const float alpha_div = alpha_ / (static_cast<float>(local_size_) * static_cast<float>(local_size_));
    const int before = local_size_ / 2;
#pragma omp parallel num_threads(threads)
    {
      std::vector<float> rows(size), sum(size);
#pragma omp for
      for (int q = 0; q < c; q++) {
        const float* s = channel_ptr(squares, q);
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++) {
            float acc = 0.f;
            for (long k = std::max(0, x - before); k <= std::min<long>(w - 1, x - before + local_size_ - 1L); k++)
              acc += s[y * w + k];
            rows[y * w + x] = acc;
          }
        std::fill(sum.begin(), sum.end(), 0.f);
        for (int y = 0; y < h; y++)
          for (long k = std::max(0, y - before); k <= std::min<long>(h - 1, y - before + local_size_ - 1L); k++) {
            const float* r = &rows[static_cast<size_t>(k) * w];
            float* dst = &sum[static_cast<size_t>(y) * w];
            for (int x = 0; x < w; x++) dst[x] += r[x];
          }
        JITCONV_SIMD_CALL(lrn_normalize, channel_ptr(blob, q), sum.data(), size, bias_, alpha_div, beta_);
      }
    }
  }

 private:
  int region_type_ = 0, local_size_ = 5;
  float alpha_ = 1.f, beta_ = 0.75f, bias_ = 1.f;
};

std::unique_ptr<Layer> make_LRN() { return std::make_unique<LRN>(); }

}  // namespace layers
}  // namespace jitconv
