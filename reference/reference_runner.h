// The scalar oracle (reference_conv2d) behind the ConvRunner interface, so `jitconv
// check` and `jitconv bench` drive it like any other implementation; plus the seeded
// random tensors they feed every implementation.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/conv_runner.h"

namespace jitconv {

// algo() == "reference". weights: g x oc/g x ic/g x kh x kw; bias: oc values or nullptr.
// Both are copied.
std::unique_ptr<ConvRunner> make_reference_conv_runner(const ConvProblem& problem, int num_threads,
                                                       const float* weights, const float* bias);

// Uniform random tensors in [-1, 1] for one problem, the same for the same seed.
struct ConvData {
  std::vector<float> src;      // mb x ic x ih x iw
  std::vector<float> weights;  // g x oc/g x ic/g x kh x kw
  std::vector<float> bias;     // oc
  std::vector<float> dst;      // mb x oc x oh x ow, zeroed: room for an output
};
ConvData make_random_conv_data(const ConvDesc& desc, uint32_t seed);

}  // namespace jitconv
