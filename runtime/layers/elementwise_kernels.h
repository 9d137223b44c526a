// Internal: per-ISA elementwise kernels (elementwise_simd.inl) behind the activation
// layers, BinaryOp, Eltwise, Scale/Bias/BatchNorm and the fused activations.
#pragma once
#include "runtime/activation.h"
#include "runtime/simd_dispatch.h"

namespace jitconv {
namespace layers {

enum class UnaryKind {
  relu, clip, sigmoid, swish, hardsigmoid, hardswish, mish,
  // ncnn UnaryOp's operations, in the order of its op_type 0..19 (unary_op_kind).
  abs, neg, floor, ceil, square, sqrt, rsqrt, exp, log, sin, cos, tan, asin, acos, atan, reciprocal, tanh, log10,
  round, trunc,
  elu, selu, bnll, gelu_erf, gelu_tanh, softplus,
  power, exp_affine, pow_base, log_affine,
};

// relu: a = negative slope. clip: [a, b]. hardsigmoid/hardswish: gate = x * a + b
// clamped to [0, 1] (any a, 0 included: the gate is then b clamped).
// elu: a = alpha. selu: a = alpha * lambda, b = lambda. With y = c + x * b:
// power: y^a; exp_affine: e^y; pow_base: a^y; log_affine: ln(y) * a.
struct UnaryOp {
  UnaryKind kind = UnaryKind::relu;
  float a = 0.f;
  float b = 0.f;
  float c = 0.f;
};

constexpr int kUnaryOpTypeCount = 20;  // ncnn UnaryOp op_type 0 (abs) .. 19 (trunc)
inline UnaryKind unary_op_kind(int op_type) {
  return static_cast<UnaryKind>(static_cast<int>(UnaryKind::abs) + op_type);
}

// The fused activation as a UnaryOp; false for ActivationType::none.
inline bool unary_from_activation(const Activation& act, UnaryOp& op) {
  switch (act.type) {
    case ActivationType::none: return false;
    case ActivationType::relu: op = {UnaryKind::relu, 0.f, 0.f}; return true;
    case ActivationType::leaky_relu: op = {UnaryKind::relu, act.alpha, 0.f}; return true;
    case ActivationType::clip: op = {UnaryKind::clip, act.alpha, act.beta}; return true;
    case ActivationType::sigmoid: op = {UnaryKind::sigmoid, 0.f, 0.f}; return true;
    case ActivationType::mish: op = {UnaryKind::mish, 0.f, 0.f}; return true;
    case ActivationType::hardswish: op = {UnaryKind::hardswish, act.alpha, act.beta}; return true;
  }
  return false;
}

// `rows` runs of `count` floats, `stride` floats apart (channels of a Mat).
struct FloatRows {
  float* data;
  long rows;
  long count;
  long stride;
};

// ncnn BinaryOp operation ids.
enum class BinaryKind { add = 0, sub, mul, div, max, min, pow, rsub, rdiv, rpow, atan2, ratan2 };
constexpr int kBinaryKindCount = 12;

// How a BinaryOp operand is read along one output row of n floats.
enum class RowMode {
  contiguous,  // x[i]
  pattern,     // x[i % 16], a 16-float pattern (a scalar or L lanes repeated)
};

}  // namespace layers

JITCONV_SIMD_DECLARE(void, unary_inplace, (const layers::UnaryOp& op, const layers::FloatRows& rows, int num_threads))
// out[i] = op(a, b) for i < n with each operand read as its mode says; out may be a.
JITCONV_SIMD_DECLARE(void, binary_row, (layers::BinaryKind op, const float* a, layers::RowMode a_mode, const float* b,
                                        layers::RowMode b_mode, float* out, long n))
// x[i] = op(x[i], b) in place.
JITCONV_SIMD_DECLARE(void, binary_scalar_inplace, (layers::BinaryKind op, float* x, float b, long n))
// PReLU: v = v < 0 ? v * slope : v with v = x[i*L + l] and slope = slope[l], for i < count
// (L = lanes, 1..16).
JITCONV_SIMD_DECLARE(void, prelu_lanes, (float* x, long count, int lanes, const float* slope))
// PReLU with one slope per value: x[i] < 0 ? x[i] * slope[i] : x[i].
JITCONV_SIMD_DECLARE(void, prelu_row, (float* x, const float* slope, long n))
// x[i*L + l] = x[i*L + l] * scale[l] + bias[l] for i < count (null scale: 1, null bias: 0).
JITCONV_SIMD_DECLARE(void, affine_lanes, (float* x, long count, int lanes, const float* scale, const float* bias))
// out[i] = first ? in[i] * coeff : out[i] + in[i] * coeff
JITCONV_SIMD_DECLARE(void, axpy_row, (float* out, const float* in, float coeff, bool first, long n))

}  // namespace jitconv
