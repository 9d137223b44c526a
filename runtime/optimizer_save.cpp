// Saving a ModelGraph: .param text, .bin bytes, and loading it into a Net.
#include <cmath>
#include <memory>

#include "loader/model_writer.h"
#include "runtime/error.h"
#include "runtime/net.h"
#include "runtime/optimizer_graph.h"

namespace jitconv {

namespace {

// Half precision rounds everything from 65520 up to infinity.
constexpr float kFp16Overflow = 65520.f;

bool hint_known(const ShapeHint& s) { return s.dims >= 1 && s.dims <= 3; }

void check_fp16_range(const ModelGraph& graph, size_t layer, size_t index, const Mat& values) {
  const float* v = values;
  const size_t count = static_cast<size_t>(values.w) * values.h * values.d * values.c;
  for (size_t i = 0; i < count; i++)
    if (std::isfinite(v[i]) && std::fabs(v[i]) >= kFp16Overflow)
      fail(graph.location(layer), ": weight #", index, " holds ", v[i], " at position ", i,
           ", beyond what fp16 storage can hold (save with fp32 storage)");
}

// Hands a Net the graph's live layers' weights, one copy per layer.
class GraphWeights final : public WeightSource {
 public:
  explicit GraphWeights(const ModelGraph& graph) : graph_(graph) {
    for (size_t i = 0; i < graph.layers.size(); i++)
      if (!graph.layers[i].fused) live_.push_back(i);
  }

  const ModelBin& layer_weights(size_t index, const ParamLayer& layer) override {
    std::vector<Mat> mats;
    for (const GraphWeight& w : graph_.layers.at(live_.at(index)).weights) mats.push_back(w.data.clone());
    current_ = std::make_unique<ModelBinFromMatArray>(std::move(mats));
    return *current_;
  }

 private:
  const ModelGraph& graph_;
  std::vector<size_t> live_;
  std::unique_ptr<ModelBinFromMatArray> current_;
};

}  // namespace

ParamGraph to_param_graph(const ModelGraph& graph, bool with_shape_hints) {
  ParamGraph out;
  std::vector<int> renumbered(graph.blob_names.size(), -1);
  for (const GraphLayer& layer : graph.layers) {
    if (layer.fused) continue;
    for (int t : layer.tops) {
      if (renumbered.at(t) >= 0) fail(graph.source, ": blob '", graph.blob_names[t], "' is produced twice");
      renumbered[t] = static_cast<int>(out.blob_names.size());
      out.blob_names.push_back(graph.blob_names[t]);
    }
  }
  for (size_t i = 0; i < graph.layers.size(); i++) {
    const GraphLayer& layer = graph.layers[i];
    if (layer.fused) continue;
    ParamLayer pl;
    pl.type = layer.type;
    pl.name = layer.name;
    pl.params = layer.params;
    for (int b : layer.bottoms) {
      if (renumbered.at(b) < 0)
        fail(graph.location(i), ": reads blob '", graph.blob_names[b], "', which no remaining layer produces");
      pl.bottoms.push_back(renumbered[b]);
    }
    for (int t : layer.tops) pl.tops.push_back(renumbered[t]);
    std::vector<ShapeHint> hints;
    for (int t : layer.tops) hints.push_back(graph.blob_shapes.at(t));
    bool all_known = with_shape_hints && !hints.empty();
    for (const ShapeHint& h : hints) all_known = all_known && hint_known(h);
    if (all_known) set_shape_hints(pl, hints);
    out.layers.push_back(std::move(pl));
  }
  validate_graph(out);
  return out;
}

std::vector<unsigned char> model_graph_bin(const ModelGraph& graph, WeightStorage storage) {
  using Storage = ModelBinWriter::Storage;
  ModelBinWriter writer;
  for (size_t i = 0; i < graph.layers.size(); i++) {
    const GraphLayer& layer = graph.layers[i];
    if (layer.fused) continue;
    for (size_t k = 0; k < layer.weights.size(); k++) {
      const GraphWeight& w = layer.weights[k];
      if (w.type == 0 && w.data.elemsize == 4 && storage == WeightStorage::fp16) check_fp16_range(graph, i, k, w.data);
      try {
        if (w.type == 1) {
          writer.write(w.data, 1, Storage::fp32);
        } else if (w.data.elemsize == 1) {
          writer.write(w.data, 0, Storage::int8);
        } else if (storage == WeightStorage::fp16) {
          writer.write(w.data, 0, Storage::fp16);
        } else {
          writer.write(w.data, 0, Storage::fp32);
        }
      } catch (const Error& e) {
        fail(graph.location(i), ": weight #", k, ": ", e.what());
      }
    }
  }
  return writer.bytes();
}

void save_model_graph(const ModelGraph& graph, const std::string& param_path, const std::string& bin_path,
                      WeightStorage storage) {
  const ParamGraph param = to_param_graph(graph, true);
  const std::vector<unsigned char> bin = model_graph_bin(graph, storage);
  save_param_text(param, param_path, true);
  save_bytes(bin.data(), bin.size(), bin_path);
}

void load_into_net(const ModelGraph& graph, Net& net, bool with_shape_hints) {
  net.load_param(to_param_graph(graph, with_shape_hints), graph.source);
  GraphWeights weights(graph);
  net.load_model(weights);
}

}  // namespace jitconv
