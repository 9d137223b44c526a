// Reduction loops with the combine and pre-transform as template parameters; reducing
// along a contiguous run keeps 16 interleaved partial results so the loop vectorizes.
#include <cmath>

#include "runtime/layers/reduction_kernels.h"
#include "runtime/layers/simd_math.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

using layers::ReduceCombine;
using layers::ReducePre;
namespace sm = simd_math;

template <ReducePre P>
inline float pre(float v) {
  if (P == ReducePre::abs) return std::fabs(v);
  if (P == ReducePre::square) return v * v;
  return v;
}

template <ReduceCombine C>
inline float combine(float a, float b) {
  if (C == ReduceCombine::mul) return a * b;
  if (C == ReduceCombine::max) return sm::max_f(a, b);
  if (C == ReduceCombine::min) return sm::min_f(a, b);
  return a + b;
}

template <ReduceCombine C>
constexpr float identity() {
  return C == ReduceCombine::mul ? 1.f : C == ReduceCombine::max ? -INFINITY : C == ReduceCombine::min ? INFINITY : 0.f;
}

template <ReduceCombine C, ReducePre P>
void accumulate(float* acc, const float* x, long n) {
  for (long k = 0; k < n; k++) acc[k] = combine<C>(acc[k], pre<P>(x[k]));
}

template <ReduceCombine C, ReducePre P>
void lanes_sum(float* acc, const float* x, long count, int lanes) {
  // Position j of the 16 partials holds lane j % lanes (16 is a multiple of every lanes).
  float part[16];
  for (int j = 0; j < 16; j++) part[j] = identity<C>();
  const long n = count * lanes;
  long i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; j++) part[j] = combine<C>(part[j], pre<P>(x[i + j]));
  for (int j = 0; i + j < n; j++) part[j] = combine<C>(part[j], pre<P>(x[i + j]));
  for (int j = 0; j < 16; j++) acc[j % lanes] = combine<C>(acc[j % lanes], part[j]);
}

template <ReduceCombine C>
void accumulate_pre(ReducePre p, float* acc, const float* x, long n) {
  switch (p) {
    case ReducePre::none: return accumulate<C, ReducePre::none>(acc, x, n);
    case ReducePre::abs: return accumulate<C, ReducePre::abs>(acc, x, n);
    case ReducePre::square: return accumulate<C, ReducePre::square>(acc, x, n);
  }
}

template <ReduceCombine C>
void lanes_pre(ReducePre p, float* acc, const float* x, long count, int lanes) {
  switch (p) {
    case ReducePre::none: return lanes_sum<C, ReducePre::none>(acc, x, count, lanes);
    case ReducePre::abs: return lanes_sum<C, ReducePre::abs>(acc, x, count, lanes);
    case ReducePre::square: return lanes_sum<C, ReducePre::square>(acc, x, count, lanes);
  }
}

}  // namespace

void reduce_accumulate(layers::ReduceCombine c, layers::ReducePre p, float* acc, const float* x, long n) {
  switch (c) {
    case ReduceCombine::add: return accumulate_pre<ReduceCombine::add>(p, acc, x, n);
    case ReduceCombine::mul: return accumulate_pre<ReduceCombine::mul>(p, acc, x, n);
    case ReduceCombine::max: return accumulate_pre<ReduceCombine::max>(p, acc, x, n);
    case ReduceCombine::min: return accumulate_pre<ReduceCombine::min>(p, acc, x, n);
  }
}

void reduce_lanes(layers::ReduceCombine c, layers::ReducePre p, float* acc, const float* x, long count, int lanes) {
  switch (c) {
    case ReduceCombine::add: return lanes_pre<ReduceCombine::add>(p, acc, x, count, lanes);
    case ReduceCombine::mul: return lanes_pre<ReduceCombine::mul>(p, acc, x, count, lanes);
    case ReduceCombine::max: return lanes_pre<ReduceCombine::max>(p, acc, x, count, lanes);
    case ReduceCombine::min: return lanes_pre<ReduceCombine::min>(p, acc, x, count, lanes);
  }
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
