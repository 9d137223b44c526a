// Lane gathers and scatters with the lane count and steps as template parameters, so each
// ISA build turns them into vector loads and permutes (Concat of pack-1 planes into a
// packed blob, ShuffleChannel and Slice on packed blobs). Included per ISA.
#include <cstdint>

#include "runtime/lane_copy_kernels.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

template <typename T, int kLanes, int kStep>
void gather(const LaneGatherJob& job) {
  const T* src[kLanes];
  for (int l = 0; l < kLanes; l++) src[l] = static_cast<const T*>(job.src[l]);
  T* dst = static_cast<T*>(job.dst);
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

template <typename T, int kStep>
void scatter(const LaneScatterJob& job) {
  const T* src = static_cast<const T*>(job.src);
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
