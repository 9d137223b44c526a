// The int8 convolution path: quantize the input with the bottom scale, accumulate in
// int32 with generated kernels, dequantize (or requantize with the top scale) with bias
// and activation fused.
#pragma once
#include <memory>

#include "runtime/conv_impl.h"
#include "runtime/cpu.h"
#include "runtime/option.h"

namespace jitconv {

namespace layers {
class Convolution;
}

// Builds the int8 implementation from a Convolution layer's weights (int8, or fp32
// quantized here per output channel with weight_data_int8_scales) and scales.
std::unique_ptr<ConvImpl> make_conv_int8(const layers::Convolution& layer, Isa isa, const Option& opt);

}  // namespace jitconv
