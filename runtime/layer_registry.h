// Creates layers by their ncnn type name.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/layer.h"

namespace jitconv {

using LayerFactory = std::function<std::unique_ptr<Layer>()>;

// The optimized layer for `type`, or nullptr when the type is unknown.
std::unique_ptr<Layer> create_layer(const std::string& type);
// Every type create_layer knows, sorted.
std::vector<std::string> layer_types();

}  // namespace jitconv
