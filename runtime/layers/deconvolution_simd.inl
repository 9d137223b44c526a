// Deconvolution loops: a register-blocked GEMM (4 rows of A by one vector-width strip of
// B, accumulators live across the whole k loop), the col2im scatter, and the depthwise
// scatter with the lane count as a template parameter. Included per ISA.
#include "runtime/layers/deconvolution_kernels.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

#if defined(__AVX512F__)
constexpr int kStrip = 32;
#else
constexpr int kStrip = 16;
#endif
constexpr int kRows = 4;

template <int R, int NB>
void gemm_tile(const layers::GemmJob& j, int m0, int n0) {
  float acc[R][NB];
  for (int r = 0; r < R; r++)
    for (int x = 0; x < NB; x++) acc[r][x] = 0.f;
  for (int k = 0; k < j.k; k++) {
    const float* b = j.b + k * j.ldb + n0;
    for (int r = 0; r < R; r++) {
      const float a = j.a[(m0 + r) * j.lda + k];
      for (int x = 0; x < NB; x++) acc[r][x] += a * b[x];
    }
  }
  for (int r = 0; r < R; r++)
    for (int x = 0; x < NB; x++) j.c[(m0 + r) * j.ldc + n0 + x] = acc[r][x];
}

// Edge tiles: any row and column count.
void gemm_edge(const layers::GemmJob& j, int m0, int rows, int n0, int cols) {
  for (int r = 0; r < rows; r++) {
    float* c = j.c + (m0 + r) * j.ldc + n0;
    for (int x = 0; x < cols; x++) c[x] = 0.f;
    for (int k = 0; k < j.k; k++) {
      const float a = j.a[(m0 + r) * j.lda + k];
      const float* b = j.b + k * j.ldb + n0;
      for (int x = 0; x < cols; x++) c[x] += a * b[x];
    }
  }
}

template <int L>
void depthwise(const layers::DepthwiseJob& j) {
  for (int ky = 0; ky < j.kernel_h; ky++)
    for (int kx = 0; kx < j.kernel_w; kx++) {
      float wv[L];
      for (int l = 0; l < L; l++) wv[l] = j.weight[(ky * j.kernel_w + kx) * j.weight_stride + l];
      for (int i = 0; i < j.h; i++) {
        const float* in = j.in + static_cast<long>(i) * j.w * L;
        float* out = j.out + (static_cast<long>(i * j.stride_h + ky * j.dilation_h) * j.out_w + kx * j.dilation_w) * L;
        if (L == 1 && j.stride_w == 1) {
          for (int x = 0; x < j.w; x++) out[x] += in[x] * wv[0];
        } else {
          for (int x = 0; x < j.w; x++)
            for (int l = 0; l < L; l++) out[x * j.stride_w * L + l] += in[x * L + l] * wv[l];
        }
      }
    }
}

}  // namespace

void deconv_gemm(const layers::GemmJob& job) {
  const int m_full = job.m / kRows * kRows, n_full = job.n / kStrip * kStrip;
  for (int n0 = 0; n0 < n_full; n0 += kStrip) {
    for (int m0 = 0; m0 < m_full; m0 += kRows) gemm_tile<kRows, kStrip>(job, m0, n0);
    if (m_full < job.m) gemm_edge(job, m_full, job.m - m_full, n0, kStrip);
  }
  if (n_full < job.n) gemm_edge(job, 0, job.m, n_full, job.n - n_full);
}

void deconv_col2im(const layers::Col2ImJob& j) {
  for (int ky = 0; ky < j.kernel_h; ky++)
    for (int kx = 0; kx < j.kernel_w; kx++) {
      const float* col = j.col + (ky * j.kernel_w + kx) * j.col_stride;
      for (int i = 0; i < j.h; i++) {
        const float* src = col + static_cast<long>(i) * j.w;
        float* out = j.out + static_cast<long>(i * j.stride_h + ky * j.dilation_h) * j.out_w + kx * j.dilation_w;
        if (j.stride_w == 1) {
          for (int x = 0; x < j.w; x++) out[x] += src[x];
        } else {
          for (int x = 0; x < j.w; x++) out[x * j.stride_w] += src[x];
        }
      }
    }
}

void deconv_depthwise(const layers::DepthwiseJob& job) {
  switch (job.lanes) {
    case 1: return depthwise<1>(job);
    case 4: return depthwise<4>(job);
    case 8: return depthwise<8>(job);
    default: return depthwise<16>(job);
  }
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
