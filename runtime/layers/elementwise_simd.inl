// Elementwise kernels as plain loops over compile-time operations, so each ISA build
// vectorizes them (cmake/simd.cmake). A 16-float pattern stands for any operand that is
// constant along a row: a scalar, or the L lanes of one packed element repeated
// (16 is a multiple of every elempack).
#include <cmath>

#include "runtime/layers/elementwise_kernels.h"
#include "runtime/layers/simd_math.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

using layers::BinaryKind;
using layers::RowMode;
using layers::UnaryKind;
using layers::UnaryOp;
namespace sm = simd_math;

constexpr long kChunk = 16384;  // floats per parallel work item (a multiple of 16)

template <typename F>
void map_inplace(float* x, long n, F f) {
  for (long i = 0; i < n; i++) x[i] = f(x[i]);
}

// ncnn's UnaryOp operations and the one-input math layers (ELU, SELU, BNLL, GELU,
// Softplus, Power, Exp, Log), each the formula of ncnn's layer in fp32. exp, log and tanh
// are simd_math.h's (a few ulp, tests/layers_math_unary_test.cpp measures them); sin, cos,
// tan, asin, acos, atan, erfc and pow with a general exponent call libm one value at a time.
void unary_run_math(const UnaryOp& op, float* x, long n) {
  const float a = op.a, b = op.b, c = op.c;
  switch (op.kind) {
    case UnaryKind::abs: map_inplace(x, n, [](float v) { return std::fabs(v); }); return;
    case UnaryKind::neg: map_inplace(x, n, [](float v) { return -v; }); return;
    case UnaryKind::floor: map_inplace(x, n, [](float v) { return std::floor(v); }); return;
    case UnaryKind::ceil: map_inplace(x, n, [](float v) { return std::ceil(v); }); return;
    case UnaryKind::square: map_inplace(x, n, [](float v) { return v * v; }); return;
    case UnaryKind::sqrt: map_inplace(x, n, [](float v) { return std::sqrt(v); }); return;
    case UnaryKind::rsqrt: map_inplace(x, n, [](float v) { return 1.f / std::sqrt(v); }); return;
    case UnaryKind::exp: map_inplace(x, n, [](float v) { return sm::exp_f(v); }); return;
    case UnaryKind::log: map_inplace(x, n, [](float v) { return sm::log_f(v); }); return;
    case UnaryKind::sin: map_inplace(x, n, [](float v) { return std::sin(v); }); return;
    case UnaryKind::cos: map_inplace(x, n, [](float v) { return std::cos(v); }); return;
    case UnaryKind::tan: map_inplace(x, n, [](float v) { return std::tan(v); }); return;
    case UnaryKind::asin: map_inplace(x, n, [](float v) { return std::asin(v); }); return;
    case UnaryKind::acos: map_inplace(x, n, [](float v) { return std::acos(v); }); return;
    case UnaryKind::atan: map_inplace(x, n, [](float v) { return std::atan(v); }); return;
    case UnaryKind::reciprocal: map_inplace(x, n, [](float v) { return 1.f / v; }); return;
    case UnaryKind::tanh: map_inplace(x, n, [](float v) { return sm::tanh_f(v); }); return;
    // ncnn x86's log10: ln(x) times a float 1/ln(10) (its generic layer calls log10f).
    case UnaryKind::log10: map_inplace(x, n, [](float v) { return sm::log_f(v) * 0.434294481903f; }); return;
    case UnaryKind::round: map_inplace(x, n, [](float v) { return sm::round_half_even_f(v); }); return;
    case UnaryKind::trunc: map_inplace(x, n, [](float v) { return std::trunc(v); }); return;
    case UnaryKind::elu: map_inplace(x, n, [a](float v) { return v < 0.f ? a * (sm::exp_f(v) - 1.f) : v; }); return;
    case UnaryKind::selu:
      map_inplace(x, n, [a, b](float v) { return v < 0.f ? (sm::exp_f(v) - 1.f) * a : v * b; });
      return;
    case UnaryKind::bnll:
      map_inplace(x, n, [](float v) {
        return (v > 0.f ? v : 0.f) + sm::log_f(1.f + sm::exp_f(-std::fabs(v)));
      });
      return;
    case UnaryKind::gelu_erf:
      map_inplace(x, n, [](float v) { return 0.5f * v * std::erfc(-0.70710678f * v); });
      return;
    // 0.5 x (1 + tanh(u)) is x sigmoid(2u): the same function without 1 + tanh's
    // cancellation for negative x (ncnn's fp32 form loses 3e-3 of its value at x = -4).
    case UnaryKind::gelu_tanh:
      map_inplace(x, n, [](float v) {
        const float u = 0.79788452f * (v + 0.044715f * v * v * v);
        return v / (1.f + sm::exp_f(-2.f * u));
      });
      return;
    case UnaryKind::softplus: map_inplace(x, n, [](float v) { return sm::log_f(sm::exp_f(v) + 1.f); }); return;
    case UnaryKind::power:
      // powf(y, 1) is y and powf(y, 2) is y * y (both exactly rounded): no libm call.
      if (a == 1.f)
        map_inplace(x, n, [b, c](float v) { return c + v * b; });
      else if (a == 2.f)
        map_inplace(x, n, [b, c](float v) {
          const float y = c + v * b;
          return y * y;
        });
      else
        map_inplace(x, n, [a, b, c](float v) { return std::pow(c + v * b, a); });
      return;
    case UnaryKind::exp_affine: map_inplace(x, n, [b, c](float v) { return sm::exp_f(c + v * b); }); return;
    case UnaryKind::pow_base: map_inplace(x, n, [a, b, c](float v) { return std::pow(a, c + v * b); }); return;
    case UnaryKind::log_affine: map_inplace(x, n, [a, b, c](float v) { return sm::log_f(c + v * b) * a; }); return;
    default: return;
  }
}

void unary_run(const UnaryOp& op, float* x, long n) {
  const float a = op.a, b = op.b;
  switch (op.kind) {
    case UnaryKind::relu:
      if (a == 0.f)
        map_inplace(x, n, [](float v) { return sm::max_f(v, 0.f); });
      else
        map_inplace(x, n, [a](float v) { return v < 0.f ? v * a : v; });
      return;
    case UnaryKind::clip: map_inplace(x, n, [a, b](float v) { return sm::min_f(sm::max_f(v, a), b); }); return;
    case UnaryKind::sigmoid: map_inplace(x, n, [](float v) { return sm::sigmoid_f(v); }); return;
    case UnaryKind::swish: map_inplace(x, n, [](float v) { return v * sm::sigmoid_f(v); }); return;
    case UnaryKind::mish: map_inplace(x, n, [](float v) { return sm::mish_f(v); }); return;
    // The gate clamped to [0, 1], as ncnn's x86 vector code and the fused epilogue compute
    // it (ncnn's generic code compares x with -b / a and 1 / a - b / a instead: the same for
    // a > 0 but at the boundaries' rounding; nonsense for a <= 0). A NaN input stays NaN;
    // hardswish(-inf) is 0 and hardswish(+inf) is +inf where the gate saturates.
    case UnaryKind::hardsigmoid:
      map_inplace(x, n, [=](float v) {
        const float t = v * a + b;
        return t < 0.f ? 0.f : (t > 1.f ? 1.f : t);
      });
      return;
    case UnaryKind::hardswish:
      map_inplace(x, n, [=](float v) {
        const float t = v * a + b;
        return t <= 0.f ? 0.f : (t >= 1.f ? v : v * t);
      });
      return;
    default: return unary_run_math(op, x, n);
  }
}

struct OpAdd { static float f(float x, float y) { return x + y; } };
struct OpSub { static float f(float x, float y) { return x - y; } };
struct OpMul { static float f(float x, float y) { return x * y; } };
struct OpDiv { static float f(float x, float y) { return x / y; } };
struct OpMax { static float f(float x, float y) { return sm::max_f(x, y); } };
struct OpMin { static float f(float x, float y) { return sm::min_f(x, y); } };
struct OpPow { static float f(float x, float y) { return std::pow(x, y); } };
struct OpRsub { static float f(float x, float y) { return y - x; } };
struct OpRdiv { static float f(float x, float y) { return y / x; } };
struct OpRpow { static float f(float x, float y) { return std::pow(y, x); } };
struct OpAtan2 { static float f(float x, float y) { return std::atan2(x, y); } };
struct OpRatan2 { static float f(float x, float y) { return std::atan2(y, x); } };

template <typename Op>
void row_vv(const float* a, const float* b, float* out, long n) {
  for (long i = 0; i < n; i++) out[i] = Op::f(a[i], b[i]);
}

// The pattern operands are copied into a local array first. Read through the pointer, a
// pattern might alias `out`, and GCC 12 then vectorized the outer loop instead (a 16-way
// interleave of permutes and spills, 3-5x slower than a plain pass on AVX2); a local copy
// leaves the inner loop to become two / one full-width operations per 16 floats.
struct Pattern {
  explicit Pattern(const float* src) {
    for (int j = 0; j < 16; j++) v[j] = src[j];
  }
  float v[16];
};

template <typename Op>
void row_vp(const float* a, const float* pattern, float* out, long n) {
  const Pattern p(pattern);
  long i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; j++) out[i + j] = Op::f(a[i + j], p.v[j]);
  for (int j = 0; i + j < n; j++) out[i + j] = Op::f(a[i + j], p.v[j]);
}

template <typename Op>
void row_pv(const float* pattern, const float* b, float* out, long n) {
  const Pattern p(pattern);
  long i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; j++) out[i + j] = Op::f(p.v[j], b[i + j]);
  for (int j = 0; i + j < n; j++) out[i + j] = Op::f(p.v[j], b[i + j]);
}

template <typename Op>
void row_pp(const float* pa, const float* pb, float* out, long n) {
  float r[16];
  for (int j = 0; j < 16; j++) r[j] = Op::f(pa[j], pb[j]);
  for (long i = 0; i < n; i++) out[i] = r[i % 16];
}

// out[i] = op(out[i], b[i]): one pointer for the read and the write, so the loop needs
// no run-time aliasing check.
template <typename Op>
void row_inplace_v(float* out, const float* b, long n) {
  for (long i = 0; i < n; i++) out[i] = Op::f(out[i], b[i]);
}

template <typename Op>
void row_inplace_p(float* out, const float* pattern, long n) {
  const Pattern p(pattern);
  long i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; j++) out[i + j] = Op::f(out[i + j], p.v[j]);
  for (int j = 0; i + j < n; j++) out[i + j] = Op::f(out[i + j], p.v[j]);
}

template <typename Op>
void row_dispatch(const float* a, RowMode am, const float* b, RowMode bm, float* out, long n) {
  if (a == out && am == RowMode::contiguous)
    return bm == RowMode::contiguous ? row_inplace_v<Op>(out, b, n) : row_inplace_p<Op>(out, b, n);
  if (am == RowMode::contiguous && bm == RowMode::contiguous) return row_vv<Op>(a, b, out, n);
  if (am == RowMode::contiguous) return row_vp<Op>(a, b, out, n);
  if (bm == RowMode::contiguous) return row_pv<Op>(a, b, out, n);
  row_pp<Op>(a, b, out, n);
}

template <typename Op>
void scalar_inplace(float* x, float b, long n) {
  for (long i = 0; i < n; i++) x[i] = Op::f(x[i], b);
}

// Calls F<Op>::run(args...) for the runtime operation.
template <template <typename> class F, typename... Args>
void with_op(BinaryKind op, Args... args) {
  switch (op) {
    case BinaryKind::add: return F<OpAdd>::run(args...);
    case BinaryKind::sub: return F<OpSub>::run(args...);
    case BinaryKind::mul: return F<OpMul>::run(args...);
    case BinaryKind::div: return F<OpDiv>::run(args...);
    case BinaryKind::max: return F<OpMax>::run(args...);
    case BinaryKind::min: return F<OpMin>::run(args...);
    case BinaryKind::pow: return F<OpPow>::run(args...);
    case BinaryKind::rsub: return F<OpRsub>::run(args...);
    case BinaryKind::rdiv: return F<OpRdiv>::run(args...);
    case BinaryKind::rpow: return F<OpRpow>::run(args...);
    case BinaryKind::atan2: return F<OpAtan2>::run(args...);
    case BinaryKind::ratan2: return F<OpRatan2>::run(args...);
  }
}

template <typename Op>
struct RowRunner {
  static void run(const float* a, RowMode am, const float* b, RowMode bm, float* out, long n) {
    row_dispatch<Op>(a, am, b, bm, out, n);
  }
};

template <typename Op>
struct ScalarRunner {
  static void run(float* x, float b, long n) { scalar_inplace<Op>(x, b, n); }
};

}  // namespace

void unary_inplace(const layers::UnaryOp& op, const layers::FloatRows& rows, int num_threads) {
  const long chunks = (rows.count + kChunk - 1) / kChunk;
  const long items = rows.rows * chunks;
#pragma omp parallel for num_threads(num_threads) schedule(static)
  for (long item = 0; item < items; item++) {
    const long r = item / chunks, c = item % chunks;
    const long begin = c * kChunk;
    const long n = rows.count - begin < kChunk ? rows.count - begin : kChunk;
    unary_run(op, rows.data + r * rows.stride + begin, n);
  }
}

void binary_row(layers::BinaryKind op, const float* a, layers::RowMode a_mode, const float* b,
                layers::RowMode b_mode, float* out, long n) {
  with_op<RowRunner>(op, a, a_mode, b, b_mode, out, n);
}

void binary_scalar_inplace(layers::BinaryKind op, float* x, float b, long n) { with_op<ScalarRunner>(op, x, b, n); }

void prelu_lanes(float* x, long count, int lanes, const float* slope) {
  float s[16];
  for (int j = 0; j < 16; j++) s[j] = slope[j % lanes];
  const long n = count * lanes;
  long i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; j++) x[i + j] = x[i + j] < 0.f ? x[i + j] * s[j] : x[i + j];
  for (int j = 0; i + j < n; j++) x[i + j] = x[i + j] < 0.f ? x[i + j] * s[j] : x[i + j];
}

void prelu_row(float* x, const float* slope, long n) {
  for (long i = 0; i < n; i++) x[i] = x[i] < 0.f ? x[i] * slope[i] : x[i];
}

void affine_lanes(float* x, long count, int lanes, const float* scale, const float* bias) {
  float s[16], t[16];
  for (int j = 0; j < 16; j++) {
    s[j] = scale ? scale[j % lanes] : 1.f;
    t[j] = bias ? bias[j % lanes] : 0.f;
  }
  const long n = count * lanes;
  long i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; j++) x[i + j] = x[i + j] * s[j] + t[j];
  for (int j = 0; i + j < n; j++) x[i + j] = x[i + j] * s[j] + t[j];
}

void axpy_row(float* out, const float* in, float coeff, bool first, long n) {
  if (first) {
    for (long i = 0; i < n; i++) out[i] = in[i] * coeff;
  } else {
    for (long i = 0; i < n; i++) out[i] += in[i] * coeff;
  }
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
