// The built-in headline set: sixteen fp32 inference layers at batch 1 from ResNet,
// SqueezeNet and MobileNet (plus a dilated and two odd-sized ones), in benchdnn
// notation. What `jitconv bench` and bench/ time when given no shapes.
#pragma once
#include <string>
#include <vector>

#include "runtime/conv_desc.h"

namespace jitconv {

const std::vector<std::string>& default_shape_texts();
std::vector<ConvDesc> default_shapes();

}  // namespace jitconv
