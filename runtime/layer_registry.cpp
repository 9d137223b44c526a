#include "runtime/layer_registry.h"

#include <algorithm>
#include <map>

namespace jitconv {

// Each layer's source defines its make_<Type>() factory; listing them here (rather than
// in static registrars) keeps them from being dropped when linking the static library.
namespace layers {
#define JITCONV_LAYER(T) std::unique_ptr<Layer> make_##T();
#include "runtime/layers/layer_list_conv.inc"
#include "runtime/layers/layer_list_data.inc"
#include "runtime/layers/layer_list_math.inc"
#undef JITCONV_LAYER
}  // namespace layers

namespace {
const std::map<std::string, LayerFactory>& registry() {
  static const std::map<std::string, LayerFactory> factories = {
#define JITCONV_LAYER(T) {#T, &layers::make_##T},
#include "runtime/layers/layer_list_conv.inc"
#include "runtime/layers/layer_list_data.inc"
#include "runtime/layers/layer_list_math.inc"
#undef JITCONV_LAYER
  };
  return factories;
}
}  // namespace

std::unique_ptr<Layer> create_layer(const std::string& type) {
  const auto& factories = registry();
  auto it = factories.find(type);
  if (it == factories.end()) return nullptr;
  std::unique_ptr<Layer> layer = it->second();
  layer->type = type;
  return layer;
}

std::vector<std::string> layer_types() {
  std::vector<std::string> types;
  for (const auto& kv : registry()) types.push_back(kv.first);
  return types;
}

}  // namespace jitconv
