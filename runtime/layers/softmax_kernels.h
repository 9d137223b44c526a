// Internal: per-ISA softmax kernels (softmax_simd.inl).
#pragma once
#include "runtime/simd_dispatch.h"

namespace jitconv {

// Softmax along the middle axis of one [len][inner] block: for every k < inner the values
// x[j*inner + k], j < len, are normalized together.
JITCONV_SIMD_DECLARE(void, softmax_block, (float* x, long len, long inner))
// Softmax across packed groups: position i of group g holds `lanes` scalars at
// x[g*group_stride + i*lanes + l]; for every position i < count the groups*lanes scalars
// are normalized together.
JITCONV_SIMD_DECLARE(void, softmax_groups, (float* x, long groups, long group_stride, long count, int lanes))

}  // namespace jitconv
