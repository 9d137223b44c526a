// One convolution problem prepared for repeated runs: what `jitconv check`, `jitconv
// bench`, the benchmarks and the autotuner drive. Weights are transformed and kernels
// generated when the runner is made; set_input() converts a user NCHW tensor into the
// internal layout (untimed); run() is the timed part; get_output() converts back.
#pragma once
#include <memory>
#include <string>

#include "loader/param_dict.h"
#include "runtime/activation.h"
#include "runtime/conv_desc.h"
#include "runtime/cpu.h"
#include "runtime/error.h"

namespace jitconv {

struct ConvProblem {
  ConvDesc desc;
  Activation act;
  float pad_value = 0.f;
};

// The ncnn parameters of the Convolution (g == 1) or ConvolutionDepthWise layer computing
// `problem` (fp32 weights; bias term as given), and its weight count.
ParamDict conv_layer_params(const ConvProblem& problem, bool bias);
int conv_weight_count(const ConvDesc& desc);

// Thrown when the requested algorithm cannot serve a problem (e.g. Winograd on a
// strided convolution); what() is the reason, printed by `check` as SKIP.
class NotApplicable : public Error {
 public:
  explicit NotApplicable(const std::string& why) : Error(why) {}
};

class ConvRunner {
 public:
  virtual ~ConvRunner() = default;
  // The path actually taken ("direct", "gemm", "winograd43", "reference", ...).
  virtual std::string algo() const = 0;
  // Kernel names and choices, for `jitconv dump` and profiles.
  virtual std::string detail() const { return std::string(); }
  // src: mb x ic x ih x iw.
  virtual void set_input(const float* src_nchw) = 0;
  virtual void run() = 0;
  // dst: mb x oc x oh x ow.
  virtual void get_output(float* dst_nchw) const = 0;
};

// The algorithms make_conv_runner accepts, for --help texts.
const char* conv_algo_names();

// algo: "auto" (the layer's own choice), "direct", "gemm", "winograd23", "winograd43",
// "winograd53", "winograd63". weights: g x oc/g x ic/g x kh x kw; bias: oc values or nullptr.
// Throws NotApplicable when algo does not apply, jitconv::Error on bad arguments
// (unknown algo, ISA not supported by this CPU). generate_only: an ISA this CPU lacks is
// accepted; the kernels for the problem's shape are generated (detail() names them) and
// run() throws.
std::unique_ptr<ConvRunner> make_conv_runner(const ConvProblem& problem, const std::string& algo, Isa isa,
                                             int num_threads, const float* weights, const float* bias,
                                             bool generate_only = false);

}  // namespace jitconv
