// Internal: the per-ISA blocked matrix-vector / matrix-matrix product of InnerProduct
// (innerproduct_simd.inl).
#pragma once
#include "runtime/simd_dispatch.h"

namespace jitconv {
namespace layers {

constexpr int kInnerProductBlock = 16;  // outputs per weight block

// y[r][p] = bias[p] + sum_k x[r][k] * W[p][k] for r < rows, p < num_output, where
//   weight = [blocks][num_input][16]: W[b*16 + j][k] at weight[(b*num_input + k)*16 + j],
//            zero rows past num_output;  bias = [blocks*16] (zeros past num_output).
struct InnerProductJob {
  const float* weight;
  const float* bias;
  const float* x;
  long x_stride;  // floats between input rows
  float* y;
  long y_stride;  // floats between output rows
  int rows, num_input, num_output, blocks;
  int num_threads;
};

}  // namespace layers

JITCONV_SIMD_DECLARE(void, innerproduct_kernel, (const layers::InnerProductJob& job))

}  // namespace jitconv
