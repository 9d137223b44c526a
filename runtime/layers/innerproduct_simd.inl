// InnerProduct's blocked product: 16 outputs (one weight block) by up to 4 input rows
// per step, accumulators held across the whole reduction; a single row splits the
// reduction over 4 accumulators so the FMAs do not wait on each other. Included per ISA.
#include "runtime/layers/innerproduct_kernels.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

constexpr int B = layers::kInnerProductBlock;
constexpr int kRows = 4;

// acc[r][j] over R rows of x for one weight block.
template <int R>
void block_rows(const float* w, const float* const* x, int K, float (*acc)[B]) {
  for (int k = 0; k < K; k++) {
    const float* wk = w + static_cast<long>(k) * B;
    for (int r = 0; r < R; r++) {
      const float xv = x[r][k];
      for (int j = 0; j < B; j++) acc[r][j] += xv * wk[j];
    }
  }
}

void block_one_row(const float* w, const float* x, int K, float* out) {
  float a0[B] = {}, a1[B] = {}, a2[B] = {}, a3[B] = {};
  int k = 0;
  for (; k + 4 <= K; k += 4) {
    const float* wk = w + static_cast<long>(k) * B;
    for (int j = 0; j < B; j++) {
      a0[j] += x[k] * wk[j];
      a1[j] += x[k + 1] * wk[B + j];
      a2[j] += x[k + 2] * wk[2 * B + j];
      a3[j] += x[k + 3] * wk[3 * B + j];
    }
  }
  for (; k < K; k++)
    for (int j = 0; j < B; j++) a0[j] += x[k] * w[static_cast<long>(k) * B + j];
  for (int j = 0; j < B; j++) out[j] += (a0[j] + a1[j]) + (a2[j] + a3[j]);
}

}  // namespace

void innerproduct_kernel(const layers::InnerProductJob& job) {
  const int row_groups = (job.rows + kRows - 1) / kRows;
  const long items = static_cast<long>(row_groups) * job.blocks;
#pragma omp parallel for num_threads(job.num_threads) schedule(static)
  for (long item = 0; item < items; item++) {
    const int b = static_cast<int>(item % job.blocks);
    const int r0 = static_cast<int>(item / job.blocks) * kRows;
    const int nr = job.rows - r0 < kRows ? job.rows - r0 : kRows;
    const float* w = job.weight + static_cast<long>(b) * job.num_input * B;
    float acc[kRows][B];
    for (int r = 0; r < kRows; r++)
      for (int j = 0; j < B; j++) acc[r][j] = job.bias[b * B + j];
    const float* x[kRows];
    for (int r = 0; r < nr; r++) x[r] = job.x + (r0 + r) * job.x_stride;
    switch (nr) {
      case 1: block_one_row(w, x[0], job.num_input, acc[0]); break;
      case 2: block_rows<2>(w, x, job.num_input, acc); break;
      case 3: block_rows<3>(w, x, job.num_input, acc); break;
      default: block_rows<4>(w, x, job.num_input, acc); break;
    }
    const int count = job.num_output - b * B < B ? job.num_output - b * B : B;
    for (int r = 0; r < nr; r++)
      for (int j = 0; j < count; j++) job.y[(r0 + r) * job.y_stride + b * B + j] = acc[r][j];
  }
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
