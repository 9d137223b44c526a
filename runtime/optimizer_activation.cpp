// X - activation layer -> X with activation_type / activation_params (ncnn's ids 9, 10).
#include <cfloat>

#include "runtime/activation.h"
#include "runtime/error.h"
#include "runtime/optimizer_pass_util.h"

namespace jitconv {

namespace {

// The fused form of an activation layer, as ncnn's layers read it; false for other types.
bool fused_form(const GraphLayer& act, ActivationType& type, std::vector<float>& params) {
  const ParamDict& pd = act.params;
  params.clear();
  if (act.type == "ReLU") {
    const float slope = pd.get(0, 0.f);
    type = slope == 0.f ? ActivationType::relu : ActivationType::leaky_relu;
    if (slope != 0.f) params = {slope};
  } else if (act.type == "Clip") {
    type = ActivationType::clip;
    params = {pd.get(0, -FLT_MAX), pd.get(1, FLT_MAX)};
  } else if (act.type == "Sigmoid") {
    type = ActivationType::sigmoid;
  } else if (act.type == "Mish") {
    type = ActivationType::mish;
  } else if (act.type == "HardSwish") {
    type = ActivationType::hardswish;
    params = {pd.get(0, 0.2f), pd.get(1, 0.5f)};
  } else {
    return false;
  }
  return true;
}

}  // namespace

int fuse_activation(ModelGraph& graph, WeightedLayer kind, OptimizeLog& log) {
  const passes::WeightedInfo& info = passes::weighted_info(kind);
  const std::string pass = str_cat("fuse_", info.pass_name, "_activation");
  int fused = 0;
  for (size_t i = 0; i < graph.layers.size(); i++) {
    GraphLayer& layer = graph.layers[i];
    if (layer.fused || layer.type != info.type) continue;
    if (layer.params.get(passes::kActivationTypeId, 0) != 0) continue;  // already has one
    if (info.dynamic_id >= 0 && layer.params.get(info.dynamic_id, 0) != 0) continue;
    const int j = passes::sole_successor(graph, i);
    if (j < 0) continue;
    ActivationType type;
    std::vector<float> params;
    if (!fused_form(graph.layers[j], type, params)) continue;
    // A requantizing int8 layer (int8_scale_term > 100) applies its activation before it
    // rounds to the next layer's int8 scale; the separate layer applied it after. Only
    // ReLU commutes with that rounding.
    if (info.int8_id >= 0 && layer.params.get(info.int8_id, 0) > 100 && type != ActivationType::relu) continue;
    layer.params.set(passes::kActivationTypeId, static_cast<int>(type));
    if (params.empty())
      layer.params.erase(passes::kActivationParamsId);
    else
      layer.params.set(passes::kActivationParamsId, params);
    log.line(str_cat(pass, " ", layer.name, " ", graph.layers[j].name));
    passes::absorb_successor(graph, i, j);
    fused++;
  }
  return fused;
}

}  // namespace jitconv
