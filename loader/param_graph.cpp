#include "loader/param_graph.h"

#include <unordered_map>

#include "runtime/error.h"

namespace jitconv {

int ParamGraph::find_blob(const std::string& name) const {
  for (size_t i = 0; i < blob_names.size(); i++)
    if (blob_names[i] == name) return static_cast<int>(i);
  return -1;
}

int ParamGraph::find_layer(const std::string& name) const {
  for (size_t i = 0; i < layers.size(); i++)
    if (layers[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string describe_layer(const ParamLayer& layer) {
  return str_cat("layer '", layer.name, "' (", layer.type, ")");
}

void validate_graph(const ParamGraph& graph) {
  const size_t blob_count = graph.blob_names.size();
  std::vector<int> producer(blob_count, -1);
  std::unordered_map<std::string, size_t> layer_by_name;
  for (size_t i = 0; i < graph.layers.size(); i++) {
    const ParamLayer& layer = graph.layers[i];
    const std::string where = str_cat("layer #", i, " ", describe_layer(layer), ": ");
    if (layer.name.empty() || layer.type.empty()) fail(where, "empty layer name or type");
    if (!layer_by_name.emplace(layer.name, i).second)
      fail(where, "duplicate layer name (also layer #", layer_by_name[layer.name], ")");
    for (int b : layer.bottoms) {
      if (b < 0 || static_cast<size_t>(b) >= blob_count) fail(where, "bottom blob index ", b, " out of range");
      if (producer[b] < 0) fail(where, "bottom blob '", graph.blob_names[b], "' is not produced by an earlier layer");
    }
    for (int t : layer.tops) {
      if (t < 0 || static_cast<size_t>(t) >= blob_count) fail(where, "top blob index ", t, " out of range");
      if (producer[t] >= 0) fail(where, "blob '", graph.blob_names[t], "' is produced twice (also by layer #", producer[t], ")");
      producer[t] = static_cast<int>(i);
    }
    for (int id : layer.params.ids())
      if (id < 0 || id >= kParamIdCount) fail(where, "parameter id ", id, " outside 0..", kParamIdCount - 1);
  }
  for (size_t b = 0; b < blob_count; b++)
    if (producer[b] < 0) fail("blob '", graph.blob_names[b], "' (#", b, ") is never produced");
}

std::vector<ShapeHint> decode_shape_hints(const ParamLayer& layer) {
  if (!layer.params.has(kShapeHintParamId)) return {};
  if (!layer.params.is_array(kShapeHintParamId) ||
      layer.params.type(kShapeHintParamId) == ParamDict::Type::float_array)
    fail("shape hints (parameter ", kShapeHintParamId, ") must be an int array");
  const std::vector<int> ints = layer.params.get_ints(kShapeHintParamId);
  // (dims, w, h, c) per top blob, or in current ncnn (dims, w, h, d, c): ncnnoptimize
  // writes five per top for a layer with a 4-D output.
  const size_t tops = layer.tops.size();
  const size_t step = tops > 0 && ints.size() == tops * 5 ? 5 : 4;
  if (ints.size() != tops * step)
    fail("shape hints hold ", ints.size(), " ints, expected 4 per top blob (", tops * 4, ") or 5 (", tops * 5, ")");
  std::vector<ShapeHint> hints(tops);
  for (size_t j = 0; j < hints.size(); j++) {
    ShapeHint& s = hints[j];
    const int* hint = &ints[step * j];
    s.dims = hint[0];
    s.w = hint[1];
    s.h = hint[2];
    s.c = hint[step - 1];
    const int d = step == 5 ? hint[3] : 1;
    // A 4-D blob's hint (dims 4; ncnnoptimize wrote them with 4 ints and no depth before the
    // 5-int form) is not used here: unknown, as ncnn's load_param applied dims 1-3 only.
    if (s.dims == 4) {
      s = ShapeHint();
      continue;
    }
    const bool bad = s.dims < 0 || s.dims > 3 || (s.dims >= 1 && s.w <= 0) || (s.dims >= 2 && s.h <= 0) ||
                     (s.dims == 3 && s.c <= 0) || (s.dims >= 1 && d != 1);
    if (bad)
      fail("bad shape hint for top #", j, ": dims=", s.dims, " w=", s.w, " h=", s.h, step == 5 ? " d=" : "",
           step == 5 ? std::to_string(d) : "", " c=", s.c);
  }
  return hints;
}

std::vector<Mat> shape_hint_mats(const ParamLayer& layer) {
  std::vector<Mat> mats;
  for (const ShapeHint& s : decode_shape_hints(layer)) {
    switch (s.dims) {
      case 1: mats.emplace_back(s.w, nullptr, 4u, 1); break;
      case 2: mats.emplace_back(s.w, s.h, nullptr, 4u, 1); break;
      case 3: mats.emplace_back(s.w, s.h, s.c, nullptr, 4u, 1); break;
      default: mats.emplace_back(); break;
    }
  }
  return mats;
}

void set_shape_hints(ParamLayer& layer, const std::vector<ShapeHint>& hints) {
  std::vector<int> ints;
  for (const ShapeHint& s : hints) ints.insert(ints.end(), {s.dims, s.w, s.h, s.c});
  layer.params.set(kShapeHintParamId, ints);
}

}  // namespace jitconv
