// Repacking and casts, written as plain loops with compile-time strides so each ISA build
// (cmake/simd.cmake) vectorizes them. Included once per ISA with JITCONV_SIMD_NS set.
#include <cstdint>
#include <cstring>

#include "runtime/packing_kernels.h"

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

// dst[q][i][j] = src[(q*OEP+j)/EP][i][(q*OEP+j)%EP] for q in [0, out_outer), i in [0, plane).
template <typename T, int EP, int OEP>
void repack(const PackingJob& job) {
  const T* src = static_cast<const T*>(job.src);
  T* dst = static_cast<T*>(job.dst);
#pragma omp parallel for num_threads(job.num_threads) schedule(static)
  for (long q = 0; q < job.out_outer; q++) {
    T* out = dst + q * job.dst_stride * OEP;
    if (EP == 1) {
      const T* in[OEP];
      for (int j = 0; j < OEP; j++) in[j] = src + (q * OEP + j) * job.src_stride;
      for (long i = 0; i < job.plane; i++)
        for (int j = 0; j < OEP; j++) out[i * OEP + j] = in[j][i];
    } else if (OEP == 1) {
      const T* in = src + (q / EP) * job.src_stride * EP + q % EP;
      for (long i = 0; i < job.plane; i++) out[i] = in[i * EP];
    } else if (EP < OEP) {  // gather OEP/EP source channels side by side
      for (int part = 0; part < OEP / EP; part++) {
        const T* in = src + (q * (OEP / EP) + part) * job.src_stride * EP;
        for (long i = 0; i < job.plane; i++)
          for (int j = 0; j < EP; j++) out[i * OEP + part * EP + j] = in[i * EP + j];
      }
    } else {  // EP > OEP: take a slice of lanes
      const T* in = src + (q * OEP / EP) * job.src_stride * EP + (q * OEP) % EP;
      for (long i = 0; i < job.plane; i++)
        for (int j = 0; j < OEP; j++) out[i * OEP + j] = in[i * EP + j];
    }
  }
}

template <typename T, int EP>
void repack_to(const PackingJob& job) {
  switch (job.out_elempack) {
    case 1: return repack<T, EP, 1>(job);
    case 4: return repack<T, EP, 4>(job);
    case 8: return repack<T, EP, 8>(job);
    case 16: return repack<T, EP, 16>(job);
  }
}

template <typename T>
void repack_typed(const PackingJob& job) {
  switch (job.elempack) {
    case 1: return repack_to<T, 1>(job);
    case 4: return repack_to<T, 4>(job);
    case 8: return repack_to<T, 8>(job);
    case 16: return repack_to<T, 16>(job);
  }
}

inline uint16_t bf16_from_bits(uint32_t u) {
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);  // quiet NaN
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace

void convert_packing_kernel(const PackingJob& job) {
  switch (job.lane_bytes) {
    case 4: return repack_typed<uint32_t>(job);
    case 2: return repack_typed<uint16_t>(job);
    case 1: return repack_typed<uint8_t>(job);
  }
}

void cast_kernel(const CastJob& job) {
#pragma omp parallel for num_threads(job.num_threads) schedule(static)
  for (long q = 0; q < job.channels; q++) {
    const long n = job.count;
    if (job.kind == CastKind::f32_to_bf16) {
      const uint32_t* in = static_cast<const uint32_t*>(job.src) + q * job.src_stride;
      uint16_t* out = static_cast<uint16_t*>(job.dst) + q * job.dst_stride;
      for (long i = 0; i < n; i++) out[i] = bf16_from_bits(in[i]);
    } else if (job.kind == CastKind::bf16_to_f32) {
      const uint16_t* in = static_cast<const uint16_t*>(job.src) + q * job.src_stride;
      uint32_t* out = static_cast<uint32_t*>(job.dst) + q * job.dst_stride;
      for (long i = 0; i < n; i++) out[i] = static_cast<uint32_t>(in[i]) << 16;
    } else if (job.kind == CastKind::f32_to_f16) {
      const float* in = static_cast<const float*>(job.src) + q * job.src_stride;
      uint16_t* out = static_cast<uint16_t*>(job.dst) + q * job.dst_stride;
      long i = 0;
#if defined(__F16C__)
      for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
#endif
      for (; i < n; i++) out[i] = float32_to_float16_scalar(in[i]);
    } else {
      const uint16_t* in = static_cast<const uint16_t*>(job.src) + q * job.src_stride;
      float* out = static_cast<float*>(job.dst) + q * job.dst_stride;
      long i = 0;
#if defined(__F16C__)
      for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
#endif
      for (; i < n; i++) out[i] = float16_to_float32_scalar(in[i]);
    }
  }
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
