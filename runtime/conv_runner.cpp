#include "runtime/conv_runner.h"

namespace jitconv {

const char* conv_algo_names() { return "auto, direct, gemm, winograd23, winograd43, winograd63"; }

std::unique_ptr<ConvRunner> make_conv_runner(const ConvProblem& problem, const std::string& algo, Isa isa,
                                             int num_threads, const float* weights, const float* bias) {
  if (algo != "auto" && algo != "direct" && algo != "gemm" && algo != "winograd23" && algo != "winograd43" &&
      algo != "winograd63")
    fail("unknown algorithm '", algo, "' (expected ", conv_algo_names(), ")");
  if (!isa_supported(isa)) fail("ISA ", isa_name(isa), " is not supported by this CPU");
  throw NotApplicable("the " + algo + " path is not built yet");
}

}  // namespace jitconv
