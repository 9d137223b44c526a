// Internal: per-ISA loops of Deconvolution / DeconvolutionDepthWise
// (deconvolution_simd.inl).
#pragma once
#include "runtime/simd_dispatch.h"

namespace jitconv {
namespace layers {

// C[m][n] = sum_k A[m][k] * B[k][n] for m < M, n < N, k < K (row strides lda, ldb, ldc).
struct GemmJob {
  const float* a;
  long lda;
  const float* b;
  long ldb;
  float* c;
  long ldc;
  int m, n, k;
};

// Scatter-add of one output channel's columns: for every kernel tap t = (ky, kx),
//   out[(i*stride_h + ky*dilation_h) * out_w + j*stride_w + kx*dilation_w] += col[t][i*w + j]
// with col rows `col_stride` floats apart.
struct Col2ImJob {
  const float* col;
  long col_stride;
  float* out;
  int w, h, out_w;
  int kernel_w, kernel_h, stride_w, stride_h, dilation_w, dilation_h;
};

// Depthwise transposed convolution of one packed channel of `lanes` channels:
//   out[(i*sh + ky*dh)][(j*sw + kx*dw)][l] += in[i][j][l] * weight[ky*kw + kx][l]
// with weight rows `weight_stride` floats apart.
struct DepthwiseJob {
  const float* in;
  const float* weight;
  long weight_stride;
  float* out;
  int w, h, out_w, lanes;
  int kernel_w, kernel_h, stride_w, stride_h, dilation_w, dilation_h;
};

}  // namespace layers

JITCONV_SIMD_DECLARE(void, deconv_gemm, (const layers::GemmJob& job))
JITCONV_SIMD_DECLARE(void, deconv_col2im, (const layers::Col2ImJob& job))
JITCONV_SIMD_DECLARE(void, deconv_depthwise, (const layers::DepthwiseJob& job))

}  // namespace jitconv
