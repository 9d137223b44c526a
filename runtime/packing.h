// Layout conversions between layers: elempack 1/4/8/16 and fp32 <-> fp16/bf16.
#pragma once
#include <cstdint>

#include "runtime/mat.h"
#include "runtime/option.h"

namespace jitconv {

// Repack along the outermost axis (w for 1-D, h for 2-D, c for 3-D/4-D), as ncnn does.
// When out_elempack does not divide the scalar count of that axis the result has
// elempack 1. Works for any lane size (fp32, fp16/bf16, int8). dst may share src's data
// when nothing changes. Uses opt.blob_allocator and opt.num_threads.
void convert_packing(const Mat& src, Mat& dst, int out_elempack, const Option& opt);

// Casts keep the shape and elempack; elemsize becomes 2 * elempack or 4 * elempack.
void cast_float32_to_float16(const Mat& src, Mat& dst, const Option& opt);
void cast_float16_to_float32(const Mat& src, Mat& dst, const Option& opt);
// bf16: round to nearest even; NaN stays NaN (quiet), Inf stays Inf.
void cast_float32_to_bfloat16(const Mat& src, Mat& dst, const Option& opt);
void cast_bfloat16_to_float32(const Mat& src, Mat& dst, const Option& opt);

// Scalar conversions (IEEE binary16: round to nearest even, subnormals, Inf, NaN).
uint16_t float32_to_float16(float value);
float float16_to_float32(uint16_t value);
uint16_t float32_to_bfloat16(float value);
float bfloat16_to_float32(uint16_t value);

}  // namespace jitconv
