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
// in the same pack or in the next/previous pack's: the three packs' squares are laid side by
// side ([prev | cur | next], zeros past the ends) and each lane sums its window of that row
// (plain loops over fixed P that the compiler vectorizes; portable to GCC and clang). The
// squares of a block of pixels are kept for all packs before any is scaled in place.
template <int P>
void across_packs(const LrnAcrossJob& job) {
  constexpr long kBlock = 64;
  const int half = job.local_size / 2, packs = job.packs;
  const int reach = std::min(half, P);  // the layer sends half > P to across_planes
  const long blocks = (job.pixels + kBlock - 1) / kBlock;
#pragma omp parallel num_threads(job.num_threads)
  {
    std::vector<float> squares(static_cast<size_t>(packs) * kBlock * P);
    auto square_ptr = [&](int g, long i) { return &squares[(static_cast<size_t>(g) * kBlock + i) * P]; };
#pragma omp for schedule(static)
    for (long b = 0; b < blocks; b++) {
      const long i0 = b * kBlock, n = std::min(kBlock, job.pixels - i0);
      for (int g = 0; g < packs; g++) {
        const float* x = job.x + g * job.cstep + i0 * P;
        float* s = square_ptr(g, 0);
        for (long k = 0; k < n * P; k++) s[k] = x[k] * x[k];
      }
      for (int g = 0; g < packs; g++) {
        float* x = job.x + g * job.cstep + i0 * P;
        for (long i = 0; i < n; i++) {
          float row[3 * P] = {};
          if (g > 0) std::memcpy(row, square_ptr(g - 1, i), P * sizeof(float));
          std::memcpy(row + P, square_ptr(g, i), P * sizeof(float));
          if (g + 1 < packs) std::memcpy(row + 2 * P, square_ptr(g + 1, i), P * sizeof(float));
          float window[P] = {};
          for (int d = -reach; d <= reach; d++)
            for (int l = 0; l < P; l++) window[l] += row[P + l + d];
          float* v = x + i * P;
          for (int l = 0; l < P; l++) v[l] *= lrn_scale(window[l], job);
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
