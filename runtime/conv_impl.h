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
  virtual std::string name() const = 0;       // "direct", "gemm", "winograd43", ...
  virtual std::string describe() const = 0;   // name plus kernels and blocking
  virtual size_t weight_bytes() const = 0;
};

}  // namespace jitconv
