// InnerProduct on the GEMM microkernel: y = W x + bias (+ activation) as a GEMV per input
// row. W is stored transposed in chunk groups, fp16 when fp16 weight storage is on (as
// ncnn's x86 InnerProduct does with F16C: half the bytes of a layer that streams its
// weights from memory), fp32 otherwise.
//
//   weights = group - [K16][chunks in group][vlen]   (K = num_input padded to 16)
#pragma once
#include <memory>
#include <string>

#include "runtime/activation.h"
#include "runtime/cpu.h"
#include "runtime/gemm_kernel_cache.h"
#include "runtime/mat.h"
#include "runtime/option.h"

namespace jitconv {

class InnerProductGemm {
 public:
  // weights: num_output x num_input (ncnn order); bias: num_output values or null.
  InnerProductGemm(const float* weights, const float* bias, int num_output, int num_input, const Activation& act,
                   Isa isa, bool fp16_weights);

  // x: `rows` dense rows of num_input floats (row stride x_stride); y: rows of
  // num_output floats (row stride y_stride). Threads over chunk groups.
  void forward(const float* x, long x_stride, int rows, float* y, long y_stride, const Option& opt) const;

  size_t weight_bytes() const { return weights_.bytes() + bias_.bytes(); }
  std::string describe() const;

 private:
  int num_output_, num_input_;
  long k16_;  // num_input padded to 16
  Isa isa_;
  int vlen_;
  bool fp16_;
  long group_bytes_;
  std::unique_ptr<GemmKernelCache> kernels_;
  Mat weights_;  // fp32 or fp16 bits
  Mat bias_;     // chunks * vlen, zero-padded
};

}  // namespace jitconv
