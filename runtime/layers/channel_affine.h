// Internal: x = x * scale + bias with one (scale, bias) pair per scalar of the packing
// axis (per element for 1-D, per row for 2-D, per channel for 3-D/4-D): the shared
// forward of BatchNorm, Scale and Bias.
#pragma once
#include "runtime/layer.h"

namespace jitconv {
namespace layers {

// `count` pairs; scale or bias may be null (1 / 0). Throws, naming the layer, when the
// blob's packing axis does not hold `count` scalars.
void channel_affine(const Layer& layer, Mat& blob, const float* scale, const float* bias, int count,
                    const Option& opt);

}  // namespace layers
}  // namespace jitconv
