// The int8 convolution path: quantize the input with the bottom scale, accumulate in
// int32 with generated kernels, dequantize (or requantize with the top scale) with bias
// and activation fused. The implementation is ConvInt8 (runtime/conv_int8_impl.h).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/conv_impl.h"
#include "runtime/cpu.h"
#include "runtime/option.h"

namespace jitconv {

namespace layers {
class Convolution;
}

// Builds the int8 implementation from a Convolution layer's weights (int8, or fp32
// quantized here per output channel with weight_data_int8_scales) and scales. Throws
// jitconv::Error naming the layer and the bad value for missing or invalid scales.
std::unique_ptr<ConvImpl> make_conv_int8(const layers::Convolution& layer, Isa isa, const Option& opt);

// The values of a loaded scale blob (weight / bottom / top int8 scales): a 1-D fp32 Mat of
// `want` values, else a jitconv::Error naming `what`.
std::vector<float> int8_scale_values(const Mat& m, long want, const char* what);

// ncnn's create_pipeline weight quantization: w_int8 = float2int8(w * scales[o]) for the
// per_oc consecutive weights of each output channel o.
std::vector<int8_t> quantize_conv_weights(const float* weights, int oc, long per_oc, const float* scales);

}  // namespace jitconv
