// Scalar reference implementations of every layer type, by ncnn type name: plain fp32,
// elempack 1, written for clarity. The reference executor runs whole networks on them
// and tests compare every optimized layer against them.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "runtime/layer.h"

namespace jitconv {

// nullptr when there is no reference for `type`.
std::unique_ptr<Layer> create_reference_layer(const std::string& type);
std::vector<std::string> reference_layer_types();

}  // namespace jitconv
