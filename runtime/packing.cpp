#include "runtime/packing.h"

#include <cmath>
#include <cstring>

#include "runtime/error.h"
#include "runtime/packing_kernels.h"

namespace jitconv {

namespace {

// Outer count (packed), plane and stride of the packing axis, per ncnn's convention.
void packing_axis(const Mat& m, long& outer, long& plane, long& stride) {
  switch (m.dims) {
    case 1: outer = m.w; plane = 1; stride = 1; break;
    case 2: outer = m.h; plane = m.w; stride = m.w; break;
    default: outer = m.c; plane = static_cast<long>(m.w) * m.h * m.d; stride = static_cast<long>(m.cstep); break;
  }
}

}  // namespace

void convert_packing(const Mat& src, Mat& dst, int out_elempack, const Option& opt) {
  if (out_elempack != 1 && out_elempack != 4 && out_elempack != 8 && out_elempack != 16)
    fail("convert_packing: elempack must be 1, 4, 8 or 16, got ", out_elempack);
  if (src.dims == 0) {
    dst = src;
    return;
  }
  long outer, plane, stride;
  packing_axis(src, outer, plane, stride);
  const long scalars = outer * src.elempack;
  if (scalars % out_elempack != 0) out_elempack = 1;
  if (out_elempack == src.elempack) {
    dst = src;
    return;
  }
  const size_t lane_bytes = src.elemsize / src.elempack;
  const size_t out_elemsize = lane_bytes * out_elempack;
  const long out_outer = scalars / out_elempack;
  Mat result;
  switch (src.dims) {
    case 1: result.create(static_cast<int>(out_outer), out_elemsize, out_elempack, opt.blob_allocator); break;
    case 2: result.create(src.w, static_cast<int>(out_outer), out_elemsize, out_elempack, opt.blob_allocator); break;
    case 3: result.create(src.w, src.h, static_cast<int>(out_outer), out_elemsize, out_elempack, opt.blob_allocator); break;
    default:
      result.create(src.w, src.h, src.d, static_cast<int>(out_outer), out_elemsize, out_elempack, opt.blob_allocator);
  }
  long out_o, out_plane, out_stride;
  packing_axis(result, out_o, out_plane, out_stride);
  PackingJob job{src.data, result.data, static_cast<int>(lane_bytes), src.elempack, out_elempack, out_outer,
                 plane, stride, out_stride, opt.num_threads};
  JITCONV_SIMD_CALL(convert_packing_kernel, job);
  dst = std::move(result);
}

namespace {

void cast(const Mat& src, Mat& dst, CastKind kind, size_t in_lane, size_t out_lane, const Option& opt) {
  if (src.dims == 0) {
    dst.release();
    return;
  }
  if (src.elemsize != in_lane * src.elempack)
    fail("cast: expected ", in_lane, "-byte lanes, got elemsize ", src.elemsize, " with elempack ", src.elempack);
  Mat result;
  const size_t out_elemsize = out_lane * src.elempack;
  switch (src.dims) {
    case 1: result.create(src.w, out_elemsize, src.elempack, opt.blob_allocator); break;
    case 2: result.create(src.w, src.h, out_elemsize, src.elempack, opt.blob_allocator); break;
    case 3: result.create(src.w, src.h, src.c, out_elemsize, src.elempack, opt.blob_allocator); break;
    default: result.create(src.w, src.h, src.d, src.c, out_elemsize, src.elempack, opt.blob_allocator);
  }
  const bool per_channel = src.dims >= 3;
  const long channels = per_channel ? src.c : 1;
  const long count = (per_channel ? static_cast<long>(src.w) * src.h * src.d : static_cast<long>(src.w) * src.h) *
                     src.elempack;
  CastJob job{src.data, result.data, kind, channels, count,
              static_cast<long>(src.cstep) * src.elempack, static_cast<long>(result.cstep) * src.elempack,
              opt.num_threads};
  JITCONV_SIMD_CALL(cast_kernel, job);
  dst = std::move(result);
}

}  // namespace

void cast_float32_to_float16(const Mat& src, Mat& dst, const Option& opt) { cast(src, dst, CastKind::f32_to_f16, 4, 2, opt); }
void cast_float16_to_float32(const Mat& src, Mat& dst, const Option& opt) { cast(src, dst, CastKind::f16_to_f32, 2, 4, opt); }
void cast_float32_to_bfloat16(const Mat& src, Mat& dst, const Option& opt) { cast(src, dst, CastKind::f32_to_bf16, 4, 2, opt); }
void cast_bfloat16_to_float32(const Mat& src, Mat& dst, const Option& opt) { cast(src, dst, CastKind::bf16_to_f32, 2, 4, opt); }

uint16_t float32_to_float16_scalar(float value) {
  uint32_t bits;
  memcpy(&bits, &value, 4);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t exponent = (bits >> 23) & 0xffu;
  uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xff) {  // Inf or NaN (NaN keeps a payload bit so it stays NaN)
    return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? (0x200u | (mantissa >> 13)) : 0u));
  }
  const int unbiased = static_cast<int>(exponent) - 127;
  if (unbiased > 15) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to Inf
  if (unbiased >= -14) {
    // Normal half: round the 23-bit mantissa to 10 bits, ties to even; a carry may
    // ripple into the exponent (and up to Inf), which the addition handles.
    uint32_t half = (static_cast<uint32_t>(unbiased + 15) << 10) | (mantissa >> 13);
    const uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) half++;
    return static_cast<uint16_t>(sign | half);
  }
  if (unbiased < -25) return static_cast<uint16_t>(sign);  // underflow to zero
  // Subnormal half: value = m * 2^-24 with the implicit bit made explicit.
  mantissa |= 0x800000u;
  const int shift = -unbiased - 14 + 13;  // 14..24 -> shift mantissa right so units are 2^-24
  uint32_t half = mantissa >> shift;
  const uint32_t rest = mantissa & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (half & 1u))) half++;
  return static_cast<uint16_t>(sign | half);
}

float float16_to_float32_scalar(uint16_t value) {
  const uint32_t sign = static_cast<uint32_t>(value & 0x8000u) << 16;
  const uint32_t exponent = (value >> 10) & 0x1fu;
  uint32_t mantissa = value & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1f) {  // Inf, or NaN made quiet as F16C's vcvtph2ps does
    bits = sign | 0x7f800000u | (mantissa ? 0x400000u | (mantissa << 13) : 0u);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal half: normalize
    int e = -1;
    do {
      e++;
      mantissa <<= 1;
    } while ((mantissa & 0x400u) == 0);
    bits = sign | (static_cast<uint32_t>(112 - e) << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float result;
  memcpy(&result, &bits, 4);
  return result;
}

uint16_t float32_to_float16(float value) { return float32_to_float16_scalar(value); }
float float16_to_float32(uint16_t value) { return float16_to_float32_scalar(value); }

uint16_t float32_to_bfloat16(float value) {
  uint32_t u;
  memcpy(&u, &value, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

float bfloat16_to_float32(uint16_t value) {
  const uint32_t u = static_cast<uint32_t>(value) << 16;
  float result;
  memcpy(&result, &u, 4);
  return result;
}

}  // namespace jitconv
