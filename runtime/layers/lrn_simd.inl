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

// x[i] *= (bias + alpha_div_size * sum[i])^-beta. The parameters come by value: read
// through the job inside the loop, a store to x could alias them and the loop would not
// vectorize (exp and log then cost ~14 cycles per value instead of ~2).
inline void scale_by_window(float* x, const float* sum, long n, float bias, float alpha_div_size, float beta) {
  for (long i = 0; i < n; i++) x[i] *= sm::exp_f(-beta * sm::log_f(bias + alpha_div_size * sum[i]));
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
        scale_by_window(job.x + c * job.cstep + i0, sum.data(), n, job.bias, job.alpha_div_size, job.beta);
      }
    }
  }
}

// elempack P: one vector = P channels of a pixel. A block of pixels' squares is first laid
// out channel-contiguous per pixel with P zeros on each side ([pixel][P + channels + P]), so
// a channel's window is 2 * reach + 1 unaligned P-wide loads at shifts -reach..reach, read
// well after the stores (no store-forwarding stalls; portable generic vectors, no shuffles).
// All squares of the block exist before any value is scaled in place.
template <int P>
void across_packs(const LrnAcrossJob& job) {
  typedef float vec __attribute__((vector_size(P * 4)));
  constexpr long kBlock = 32;
  const int half = job.local_size / 2, packs = job.packs;
  const int reach = std::min(half, P);  // the layer sends half > P to across_planes
  const long row_len = static_cast<long>(packs + 2) * P;
  const long blocks = (job.pixels + kBlock - 1) / kBlock;
#pragma omp parallel num_threads(job.num_threads)
  {
    std::vector<float> squares(static_cast<size_t>(kBlock * row_len), 0.f), window(kBlock * P);
#pragma omp for schedule(static)
    for (long b = 0; b < blocks; b++) {
      const long i0 = b * kBlock, n = std::min(kBlock, job.pixels - i0);
      for (int g = 0; g < packs; g++) {
        const float* x = job.x + g * job.cstep + i0 * P;
        for (long i = 0; i < n; i++) {
          vec v;
          std::memcpy(&v, x + i * P, sizeof v);
          v *= v;
          std::memcpy(&squares[i * row_len + (g + 1) * P], &v, sizeof v);
        }
      }
      for (int g = 0; g < packs; g++) {
        for (long i = 0; i < n; i++) {
          const float* centre = &squares[i * row_len + (g + 1) * P];
          vec sum = {};
          for (int d = -reach; d <= reach; d++) {
            vec t;
            std::memcpy(&t, centre + d, sizeof t);
            sum += t;
          }
          std::memcpy(&window[i * P], &sum, sizeof sum);
        }
        scale_by_window(job.x + g * job.cstep + i0 * P, window.data(), n * P, job.bias, job.alpha_div_size, job.beta);
      }
    }
  }
}

}  // namespace

void lrn_normalize(float* x, const float* square_sum, long n, float bias, float alpha_div_size, float beta) {
  scale_by_window(x, square_sum, n, bias, alpha_div_size, beta);
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
