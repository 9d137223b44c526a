// Internal: per-ISA accumulation loops of Reduction (reduction_simd.inl).
#pragma once
#include "runtime/simd_dispatch.h"

namespace jitconv {
namespace layers {

enum class ReduceCombine { add, mul, max, min };
enum class ReducePre { none, abs, square };  // applied to each input value first (LogSumExp: reduction.cpp)

}  // namespace layers

// acc[k] = combine(acc[k], pre(x[k])) for k < n.
JITCONV_SIMD_DECLARE(void, reduce_accumulate,
                     (layers::ReduceCombine combine, layers::ReducePre pre, float* acc, const float* x, long n))
// acc[l] = combine(acc[l], pre(x[i*lanes + l])) for i < count, l < lanes.
JITCONV_SIMD_DECLARE(void, reduce_lanes, (layers::ReduceCombine combine, layers::ReducePre pre, float* acc,
                                          const float* x, long count, int lanes))

}  // namespace jitconv
