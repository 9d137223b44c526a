// One way of computing a convolution (direct JIT, GEMM, Winograd, ...). The Convolution
// layer picks one at create_pipeline; each owns its transformed weights and kernels.
#pragma once
#include <string>

#include "runtime/conv_params.h"
#include "runtime/mat.h"
#include "runtime/option.h"

namespace jitconv {

class ConvImpl {
 public:
  virtual ~ConvImpl() = default;
  // Input elempack the implementation wants (the layer repacks other inputs).
  virtual int in_elempack() const = 0;
  virtual int out_elempack() const = 0;
  // Generate the kernels for an input size ahead of the first forward (optional: forward
  // generates what it lacks).
  virtual void prepare(int ih, int iw) {}
  // bottom: ic channels packed by in_elempack(); top is (re)allocated.
  virtual void forward(const Mat& bottom, Mat& top, const Option& opt) const = 0;
  // Residual fusion: an implementation built with params.residual that returns true here
  // adds the residual in its kernels' epilogue (before the activation) in
  // forward_residual, and its plain forward is not used. False: the Convolution layer
  // builds it without residual and activation and adds both itself.
  virtual bool fuses_residual() const { return false; }
  // residual: laid out like top (out_elempack(), the standard cstep).
  virtual void forward_residual(const Mat& bottom, const Mat& residual, Mat& top, const Option& opt) const;
  virtual std::string name() const = 0;       // "direct", "gemm", "winograd43", ...
  virtual std::string describe() const = 0;   // name plus kernels and blocking
  virtual size_t weight_bytes() const = 0;
};

// For kernels that address the residual relative to the output: the byte offset from
// top's data to the residual's, after checking that the residual has top's shape,
// packing and channel stride. Throws jitconv::Error otherwise.
long residual_byte_offset(const Mat& residual, const Mat& top);

}  // namespace jitconv
