// Lane gathers and scatters with the lane count and steps as template parameters, so each
// ISA build turns them into vector loads and permutes (Concat of pack-1 planes into a
// packed blob, ShuffleChannel and Slice on packed blobs). Included per ISA.
#include <cstdint>
#include <cstring>

#include "runtime/lane_copy_kernels.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

// Groups of kLanes (4 or 8) lanes, source and destination alike, whose lanes 2k and 2k + 1
// are lane k of two sources a and b, each kLanes / 2 consecutive lanes of one source group:
// ShuffleChannel's two-group transpose. Eight lanes at a time (two pixels of 4, one of 8)
// are one shuffle of a load from each source, not a load and insert per lane (the general
// loop below, vectorized by the compiler, took twice a copy's time: 0.038 ms a shuffle of
// shufflenet_v2's 116 x 28 x 28 blobs on AVX2). Returns false for other patterns.
template <typename T, int kLanes>
bool gather_pairs(const T* const* src, T* dst, long count) {
  const T* a = src[0];
  const T* b = src[1];
  for (int k = 1; k < kLanes / 2; k++)
    if (src[2 * k] != a + k || src[2 * k + 1] != b + k) return false;
  typedef T vec __attribute__((vector_size(8 * sizeof(T))));
  constexpr long kPixels = 8 / kLanes;
  long i = 0;
  // Each load reads 8 elements from a source's lane offset on: up to kLanes / 2 lanes into
  // the pixel after the ones it serves, so the last pixels go through the loop below.
  for (; i + kPixels < count; i += kPixels) {
    vec va, vb;
    std::memcpy(&va, a + i * kLanes, sizeof va);
    std::memcpy(&vb, b + i * kLanes, sizeof vb);
    // Output lane p: pixel p / kLanes, lane p % kLanes = 2k (+1) <- a (b) element k of that
    // pixel (__builtin_shufflevector: GCC 12 and clang alike).
    vec out;
    if constexpr (kLanes == 4)
      out = __builtin_shufflevector(va, vb, 0, 8, 1, 9, 4, 12, 5, 13);
    else
      out = __builtin_shufflevector(va, vb, 0, 8, 1, 9, 2, 10, 3, 11);
    std::memcpy(dst + i * kLanes, &out, sizeof out);
  }
  for (; i < count; i++)
    for (int k = 0; k < kLanes / 2; k++) {
      dst[i * kLanes + 2 * k] = a[i * kLanes + k];
      dst[i * kLanes + 2 * k + 1] = b[i * kLanes + k];
    }
  return true;
}

template <typename T, int kLanes, int kStep>
void gather(const LaneGatherJob& job) {
  const T* src[kLanes];
  for (int l = 0; l < kLanes; l++) src[l] = static_cast<const T*>(job.src[l]);
  T* dst = static_cast<T*>(job.dst);
  if constexpr ((kLanes == 4 || kLanes == 8) && kStep == kLanes)
    if (gather_pairs<T, kLanes>(src, dst, job.count)) return;
  for (long i = 0; i < job.count; i++)
    for (int l = 0; l < kLanes; l++) dst[i * kLanes + l] = src[l][i * kStep];
}

template <typename T, int kLanes>
void gather_step(const LaneGatherJob& job) {
  switch (job.src_step) {
    case 1: return gather<T, kLanes, 1>(job);
    case 4: return gather<T, kLanes, 4>(job);
    case 8: return gather<T, kLanes, 8>(job);
    default: return gather<T, kLanes, 16>(job);
  }
}

template <typename T>
void gather_typed(const LaneGatherJob& job) {
  switch (job.lanes) {
    case 4: return gather_step<T, 4>(job);
    case 8: return gather_step<T, 8>(job);
    default: return gather_step<T, 16>(job);
  }
}

// All four lanes of pack-4 elements into four planes, eight pixels at a time: four loads,
// a 4 x 8 transpose in registers, four stores (lane by lane, each plane's loop re-read the
// source with strided loads: 3.8x a memcpy of the same bytes on AVX2, 2.4x this way; Slice
// of shufflenet_v2's 116 x 28 x 28 blobs into pack-1 halves).
template <typename T>
void scatter_quad(const T* src, T* const* dst, long count) {
  typedef T vec __attribute__((vector_size(8 * sizeof(T))));
  long i = 0;
  for (; i + 8 <= count; i += 8) {
    vec v0, v1, v2, v3;  // pixels 0-1, 2-3, 4-5, 6-7 of the eight, four lanes each
    std::memcpy(&v0, src + i * 4, sizeof v0);
    std::memcpy(&v1, src + i * 4 + 8, sizeof v1);
    std::memcpy(&v2, src + i * 4 + 16, sizeof v2);
    std::memcpy(&v3, src + i * 4 + 24, sizeof v3);
    // Lanes 0 / 1 (2 / 3) of pixels 0-3, then of 4-7.
    const vec a01 = __builtin_shufflevector(v0, v1, 0, 4, 8, 12, 1, 5, 9, 13);
    const vec a23 = __builtin_shufflevector(v0, v1, 2, 6, 10, 14, 3, 7, 11, 15);
    const vec b01 = __builtin_shufflevector(v2, v3, 0, 4, 8, 12, 1, 5, 9, 13);
    const vec b23 = __builtin_shufflevector(v2, v3, 2, 6, 10, 14, 3, 7, 11, 15);
    const vec out[4] = {__builtin_shufflevector(a01, b01, 0, 1, 2, 3, 8, 9, 10, 11),
                        __builtin_shufflevector(a01, b01, 4, 5, 6, 7, 12, 13, 14, 15),
                        __builtin_shufflevector(a23, b23, 0, 1, 2, 3, 8, 9, 10, 11),
                        __builtin_shufflevector(a23, b23, 4, 5, 6, 7, 12, 13, 14, 15)};
    for (int l = 0; l < 4; l++) std::memcpy(dst[l] + i, &out[l], sizeof out[l]);
  }
  for (; i < count; i++)
    for (int l = 0; l < 4; l++) dst[l][i] = src[i * 4 + l];
}

template <typename T, int kStep>
void scatter(const LaneScatterJob& job) {
  const T* src = static_cast<const T*>(job.src);
  if constexpr (kStep == 4)
    if (job.lanes == 4) {
      T* dst[4];
      for (int l = 0; l < 4; l++) dst[l] = static_cast<T*>(job.dst[l]);
      return scatter_quad<T>(src, dst, job.count);
    }
  for (int l = 0; l < job.lanes; l++) {
    T* dst = static_cast<T*>(job.dst[l]);
    for (long i = 0; i < job.count; i++) dst[i] = src[i * kStep + l];
  }
}

template <typename T>
void scatter_typed(const LaneScatterJob& job) {
  switch (job.src_step) {
    case 4: return scatter<T, 4>(job);
    case 8: return scatter<T, 8>(job);
    default: return scatter<T, 16>(job);
  }
}

}  // namespace

void scatter_lanes(const LaneScatterJob& job) {
  if (job.lane_bytes == 4)
    scatter_typed<uint32_t>(job);
  else
    scatter_typed<uint16_t>(job);
}

void gather_lanes(const LaneGatherJob& job) {
  if (job.lane_bytes == 4)
    gather_typed<uint32_t>(job);
  else
    gather_typed<uint16_t>(job);
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
