// The oracle of the int8 convolution: ncnn's Convolution::forward_int8 written plainly.
// Quantize the input (and the pad value) with the bottom scale, accumulate exactly,
// dequantize with 1 / (bottom_scale * weight_scale[oc]), add the bias, apply the
// activation, and with requantization store the value the int8 output stands for.
#pragma once
#include <cstdint>
#include <vector>

#include "runtime/activation.h"
#include "runtime/conv_desc.h"

namespace jitconv {

// ncnn's float2int8: round half away from zero (std::round), saturate to [-127, 127];
// NaN gives -127 (x86 ncnn converts it to INT_MIN before saturating).
int8_t reference_float2int8(float v);

// w_int8[o][k] = float2int8(w[o][k] * scales[o]).
std::vector<int8_t> reference_quantize_weights(const float* weights, int oc, long per_oc, const float* scales);

struct Int8RefScales {
  const float* weight = nullptr;  // oc values
  float bottom = 1.f;
  bool requantize = false;
  float top = 1.f;
};

// desc: one image (mb 1), one group. src: ic x ih x iw fp32; weights: OIHW int8;
// bias: oc values or null; dst: oc x oh x ow. sums (optional): the exact int32 sums,
// oc x oh x ow. Padding taps read float2int8(pad_value * bottom) (ncnn casts pad_value
// to int8 unscaled; equal for pad_value 0). With requantize the
// output is q * (1 / top) for q = float2int8(value * top).
void reference_conv2d_int8(const ConvDesc& desc, const float* src, const int8_t* weights, const Int8RefScales& scales,
                           const float* bias, float* dst, const Activation& act = Activation(), float pad_value = 0.f,
                           int32_t* sums = nullptr);

}  // namespace jitconv
