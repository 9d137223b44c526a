// LRN kernels as plain loops compiled per ISA; pow(base, -beta) as exp(-beta * ln(base))
// (base >= bias > 0, checked by the layer).
#include <algorithm>
#include <vector>

#include "runtime/layers/lrn_kernels.h"
#include "runtime/layers/simd_math.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

void lrn_normalize(float* x, const float* square_sum, long n, float bias, float alpha_div_size, float beta) {
  namespace sm = simd_math;
  for (long i = 0; i < n; i++) x[i] *= sm::exp_f(-beta * sm::log_f(bias + alpha_div_size * square_sum[i]));
}

void lrn_across_channels(const LrnAcrossJob& job) {
  namespace sm = simd_math;
  constexpr long kBlock = 64;  // pixels per block: the channel-major squares stay in L1
  const int channels = job.packs * job.pack, P = job.pack, half = job.local_size / 2;
  const long blocks = (job.pixels + kBlock - 1) / kBlock;
#pragma omp parallel num_threads(job.num_threads)
  {
    // squares[c][i] and the running window sum, channel-major for the block.
    std::vector<float> squares(static_cast<size_t>(channels) * kBlock), sum(kBlock), scale(static_cast<size_t>(channels) * kBlock);
#pragma omp for schedule(static)
    for (long b = 0; b < blocks; b++) {
      const long i0 = b * kBlock, n = std::min(kBlock, job.pixels - i0);
      for (int g = 0; g < job.packs; g++) {
        const float* src = job.x + g * job.cstep + i0 * P;
        for (long i = 0; i < n; i++)
          for (int l = 0; l < P; l++) {
            const float v = src[i * P + l];
            squares[static_cast<size_t>(g * P + l) * kBlock + i] = v * v;
          }
      }
      // Window over channels c - half .. c + half, summed afresh for every channel (a
      // running sum would lose small squares next to a large one leaving the window).
      for (int c = 0; c < channels; c++) {
        std::fill(sum.begin(), sum.begin() + n, 0.f);
        for (int p = std::max(0, c - half); p <= std::min(channels - 1, c + half); p++)
          for (long i = 0; i < n; i++) sum[i] += squares[static_cast<size_t>(p) * kBlock + i];
        float* s = &scale[static_cast<size_t>(c) * kBlock];
        for (long i = 0; i < n; i++) s[i] = sm::exp_f(-job.beta * sm::log_f(job.bias + job.alpha_div_size * sum[i]));
      }
      for (int g = 0; g < job.packs; g++) {
        float* dst = job.x + g * job.cstep + i0 * P;
        for (long i = 0; i < n; i++)
          for (int l = 0; l < P; l++) dst[i * P + l] *= scale[static_cast<size_t>(g * P + l) * kBlock + i];
      }
    }
  }
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
