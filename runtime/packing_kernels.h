// Internal: the argument blocks of the per-ISA packing and cast kernels (packing_simd.inl).
#pragma once
#include <cstdint>

#include "runtime/simd_dispatch.h"

namespace jitconv {

struct PackingJob {
  const void* src;
  void* dst;
  int lane_bytes;    // 4, 2 or 1
  int elempack;      // source
  int out_elempack;  // destination
  long out_outer;    // packed elements along the packing axis in dst
  long plane;        // packed elements per outer index (w*h*d, w, or 1)
  long src_stride;   // packed elements between outer indices in src (cstep / w / 1)
  long dst_stride;
  int num_threads;
};

enum class CastKind { f32_to_f16, f16_to_f32, f32_to_bf16, bf16_to_f32 };

struct CastJob {
  const void* src;
  void* dst;
  CastKind kind;
  long channels;
  long count;       // lanes per channel
  long src_stride;  // lanes between channels
  long dst_stride;
  int num_threads;
};

uint16_t float32_to_float16_scalar(float value);
float float16_to_float32_scalar(uint16_t value);

JITCONV_SIMD_DECLARE(void, convert_packing_kernel, (const PackingJob& job))
JITCONV_SIMD_DECLARE(void, cast_kernel, (const CastJob& job))

}  // namespace jitconv
