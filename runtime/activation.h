// ncnn's fused activations (activation_type / activation_params of Convolution,
// InnerProduct, ...). One definition for layers, generated kernels and the reference.
#pragma once
#include <cmath>
#include <string>
#include <vector>

namespace jitconv {

enum class ActivationType {
  none = 0,
  relu = 1,        // max(x, 0)
  leaky_relu = 2,  // x > 0 ? x : x * alpha
  clip = 3,        // min(max(x, alpha), beta)
  sigmoid = 4,     // 1 / (1 + exp(-x))
  mish = 5,        // x * tanh(log(1 + exp(x)))
  hardswish = 6,   // x * clamp(x * alpha + beta, 0, 1)
};

struct Activation {
  ActivationType type = ActivationType::none;
  float alpha = 0.f;  // leaky slope, clip min, hardswish alpha
  float beta = 0.f;   // clip max, hardswish beta

  // From ncnn's activation_type and activation_params (defaults as ncnn's layers use).
  static Activation from_ncnn(int type, const std::vector<float>& params);
  // Parses "none", "relu", "leaky:0.1", "clip:-1:6", "sigmoid", "mish", "hardswish[:a:b]".
  static Activation parse(const std::string& text);
  std::string name() const;  // "relu", "leaky", ... ("" for none)
  std::string to_string() const;  // parseable form
  // Identifies the activation with its exact parameters for kernel names ("" for none),
  // e.g. "leaky0.100000001", "clip-1_6"; safe in file names.
  std::string kernel_tag() const;
  bool operator==(const Activation& o) const { return type == o.type && alpha == o.alpha && beta == o.beta; }

  // Scalar definition: the oracle every vector implementation is tested against.
  template <typename T>
  T apply(T x) const {
    switch (type) {
      case ActivationType::none: return x;
      case ActivationType::relu: return x > T(0) ? x : T(0);
      case ActivationType::leaky_relu: return x > T(0) ? x : x * T(alpha);
      case ActivationType::clip: return x < T(alpha) ? T(alpha) : (x > T(beta) ? T(beta) : x);
      case ActivationType::sigmoid: return T(1) / (T(1) + std::exp(-x));
      case ActivationType::mish: return x * std::tanh(std::log1p(std::exp(x)));
      case ActivationType::hardswish: {
        T gate = x * T(alpha) + T(beta);
        gate = gate < T(0) ? T(0) : (gate > T(1) ? T(1) : gate);
        return x * gate;
      }
    }
    return x;
  }
};

}  // namespace jitconv
