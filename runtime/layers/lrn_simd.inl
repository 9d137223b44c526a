// LRN kernels as plain loops and generic vectors compiled per ISA; pow(base, -beta) as
// exp(-beta * ln(base)) (base >= bias > 0, checked by the layer).
#include <algorithm>
#include <cstring>
#include <vector>

#include "runtime/layers/lrn_kernels.h"
#include "runtime/layers/simd_math.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

namespace sm = simd_math;

inline float lrn_scale(float square_sum, const LrnAcrossJob& job) {
  return sm::exp_f(-job.beta * sm::log_f(job.bias + job.alpha_div_size * square_sum));
}

// elempack 1: channels are planes; sum the window's planes, vectorized over pixels.
void across_planes(const LrnAcrossJob& job) {
  const int channels = job.packs, half = job.local_size / 2;
  constexpr long kBlock = 256;
  const long blocks = (job.pixels + kBlock - 1) / kBlock;
#pragma omp parallel num_threads(job.num_threads)
  {
    std::vector<float> squares(static_cast<size_t>(channels) * kBlock), sum(kBlock);
#pragma omp for schedule(static)
    for (long b = 0; b < blocks; b++) {
      const long i0 = b * kBlock, n = std::min(kBlock, job.pixels - i0);
      for (int c = 0; c < channels; c++) {
        const float* x = job.x + c * job.cstep + i0;
        float* s = &squares[static_cast<size_t>(c) * kBlock];
        for (long i = 0; i < n; i++) s[i] = x[i] * x[i];
      }
      for (int c = 0; c < channels; c++) {
        std::fill(sum.begin(), sum.begin() + n, 0.f);
        for (int p = std::max(0, c - half); p <= std::min(channels - 1, c + half); p++)
          for (long i = 0; i < n; i++) sum[i] += squares[static_cast<size_t>(p) * kBlock + i];
        float* x = job.x + c * job.cstep + i0;
        for (long i = 0; i < n; i++) x[i] *= lrn_scale(sum[i], job);
      }
    }
  }
}

// elempack P: one vector = P channels of a pixel. A channel's neighbours d lanes away sit
// in the same vector or in the next/previous pack's: picked with two-vector shuffles. The
// squares of a block of pixels are kept for all packs before any is scaled in place.
template <int P>
void across_packs(const LrnAcrossJob& job) {
  typedef float vec __attribute__((vector_size(P * 4)));
  typedef int idx __attribute__((vector_size(P * 4)));
  constexpr long kBlock = 64;
  const int half = job.local_size / 2, packs = job.packs;
  idx up[P], down[P];  // up[d]: lane l <- channel l + d of [cur, next]; down[d]: l - d of [prev, cur]
  for (int d = 0; d < P; d++)
    for (int l = 0; l < P; l++) {
      up[d][l] = l + d;
      down[d][l] = P + l - d;
    }
  const long blocks = (job.pixels + kBlock - 1) / kBlock;
#pragma omp parallel num_threads(job.num_threads)
  {
    // (std::vector<vec> would drop the vector attribute: floats, copied in and out.)
    std::vector<float> squares(static_cast<size_t>(packs) * kBlock * P);
    auto square_ptr = [&](int g, long i) { return &squares[(static_cast<size_t>(g) * kBlock + i) * P]; };
#pragma omp for schedule(static)
    for (long b = 0; b < blocks; b++) {
      const long i0 = b * kBlock, n = std::min(kBlock, job.pixels - i0);
      for (int g = 0; g < packs; g++) {
        const float* x = job.x + g * job.cstep + i0 * P;
        for (long i = 0; i < n; i++) {
          vec v;
          std::memcpy(&v, x + i * P, sizeof(v));
          v = v * v;
          std::memcpy(&squares[(static_cast<size_t>(g) * kBlock + i) * P], &v, sizeof(v));
        }
      }
      const vec zero = {};
      for (int g = 0; g < packs; g++) {
        float* x = job.x + g * job.cstep + i0 * P;
        for (long i = 0; i < n; i++) {
          vec cur, prev = zero, next = zero;
          std::memcpy(&cur, square_ptr(g, i), sizeof(vec));
          if (g > 0) std::memcpy(&prev, square_ptr(g - 1, i), sizeof(vec));
          if (g + 1 < packs) std::memcpy(&next, square_ptr(g + 1, i), sizeof(vec));
          vec window = cur;
          for (int d = 1; d <= half && d < P; d++)
            window += __builtin_shuffle(cur, next, up[d]) + __builtin_shuffle(prev, cur, down[d]);
          float w[P], v[P];
          std::memcpy(w, &window, sizeof(w));
          std::memcpy(v, x + i * P, sizeof(v));
          for (int l = 0; l < P; l++) v[l] *= lrn_scale(w[l], job);
          std::memcpy(x + i * P, v, sizeof(v));
        }
      }
    }
  }
}

}  // namespace

void lrn_normalize(float* x, const float* square_sum, long n, float bias, float alpha_div_size, float beta) {
  for (long i = 0; i < n; i++) x[i] *= sm::exp_f(-beta * sm::log_f(bias + alpha_div_size * square_sum[i]));
}

void lrn_across_channels(const LrnAcrossJob& job) {
  // Windows reaching past the neighbouring packs (local_size > 2 * pack + 1) go plane by
  // plane; the layer unpacks for that.
  switch (job.pack) {
    case 4: across_packs<4>(job); break;
    case 8: across_packs<8>(job); break;
    case 16: across_packs<16>(job); break;
    default: across_planes(job); break;
  }
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
