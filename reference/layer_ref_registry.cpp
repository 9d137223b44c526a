#include "reference/layer_ref_registry.h"

#include <functional>
#include <map>

namespace jitconv {

namespace reference_layers {
#define JITCONV_LAYER(T) std::unique_ptr<Layer> make_##T();
#include "reference/layers/layer_list_conv.inc"
#include "reference/layers/layer_list_data.inc"
#include "reference/layers/layer_list_math.inc"
#undef JITCONV_LAYER
}  // namespace reference_layers

namespace {
const std::map<std::string, std::function<std::unique_ptr<Layer>()>>& registry() {
  static const std::map<std::string, std::function<std::unique_ptr<Layer>()>> factories = {
#define JITCONV_LAYER(T) {#T, &reference_layers::make_##T},
#include "reference/layers/layer_list_conv.inc"
#include "reference/layers/layer_list_data.inc"
#include "reference/layers/layer_list_math.inc"
#undef JITCONV_LAYER
  };
  return factories;
}
}  // namespace

std::unique_ptr<Layer> create_reference_layer(const std::string& type) {
  auto it = registry().find(type);
  if (it == registry().end()) return nullptr;
  std::unique_ptr<Layer> layer = it->second();
  layer->type = type;
  return layer;
}

std::vector<std::string> reference_layer_types() {
  std::vector<std::string> types;
  for (const auto& kv : registry()) types.push_back(kv.first);
  return types;
}

}  // namespace jitconv
