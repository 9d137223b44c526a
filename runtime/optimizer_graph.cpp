#include "runtime/optimizer_graph.h"

#include <memory>
#include <utility>

#include "loader/data_reader.h"
#include "loader/model_bin_reader.h"
#include "loader/param_parser.h"
#include "runtime/error.h"
#include "runtime/layer_registry.h"

namespace jitconv {

namespace {

// "model.param:12: layer 'conv1' (Convolution)", with the byte offset for binary files.
std::string location_of(const std::string& source, int line, size_t offset, const std::string& name,
                        const std::string& type) {
  const std::string what = str_cat("layer '", name, "' (", type, ")");
  if (line > 0) return str_cat(source, ":", line, ": ", what);
  if (offset > 0) return str_cat(source, " (byte offset ", offset, "): ", what);
  return str_cat(source, ": ", what);
}

// Keeps a copy of every buffer a layer's load_model reads, with its load type.
class RecordingBin final : public ModelBin {
 public:
  explicit RecordingBin(const ModelBin& inner) : inner_(inner) {}

  Mat load(int w, int type) const override {
    Mat m = inner_.load(w, type);
    GraphWeight weight;
    weight.data = m.empty() ? m : m.clone();
    weight.type = type;
    recorded_.push_back(std::move(weight));
    return m;
  }
  using ModelBin::load;

  std::vector<GraphWeight> take() { return std::move(recorded_); }

 private:
  const ModelBin& inner_;
  mutable std::vector<GraphWeight> recorded_;
};

// A .bin read layer after layer; messages name the file.
class BinWeights final : public WeightSource {
 public:
  BinWeights(DataReader& reader, std::string source) : bin_(reader), source_(std::move(source)) {
    bin_.set_allow_reference(false);
  }
  const ModelBin& layer_weights(size_t index, const ParamLayer& layer) override {
    bin_.set_context(source_);
    return bin_;
  }

 private:
  ModelBinFromDataReader bin_;
  std::string source_;
};

}  // namespace

int ModelGraph::producer(int blob) const {
  for (size_t i = 0; i < layers.size(); i++) {
    if (layers[i].fused) continue;
    for (int t : layers[i].tops)
      if (t == blob) return static_cast<int>(i);
  }
  return -1;
}

std::vector<int> ModelGraph::consumers(int blob) const {
  std::vector<int> readers;
  for (size_t i = 0; i < layers.size(); i++) {
    if (layers[i].fused) continue;
    for (int b : layers[i].bottoms)
      if (b == blob) readers.push_back(static_cast<int>(i));
  }
  return readers;
}

int ModelGraph::sole_consumer(int blob) const {
  const std::vector<int> readers = consumers(blob);
  return readers.size() == 1 ? readers[0] : -1;
}

size_t ModelGraph::live_layer_count() const {
  size_t count = 0;
  for (const GraphLayer& layer : layers) count += layer.fused ? 0 : 1;
  return count;
}

std::string ModelGraph::location(size_t layer) const {
  const GraphLayer& l = layers.at(layer);
  return location_of(source, l.line, l.offset, l.name, l.type);
}

void ModelGraph::assign_layer_shapes() {
  for (GraphLayer& layer : layers) {
    layer.bottom_shapes.clear();
    layer.top_shapes.clear();
    if (layer.fused) continue;
    for (int b : layer.bottoms) layer.bottom_shapes.push_back(blob_shapes.at(b));
    for (int t : layer.tops) layer.top_shapes.push_back(blob_shapes.at(t));
  }
}

ModelGraph load_model_graph(const ParamGraph& graph, WeightSource& weights, const std::string& source) {
  validate_graph(graph);
  ModelGraph g;
  g.source = source;
  g.blob_names = graph.blob_names;
  g.blob_shapes.assign(graph.blob_names.size(), ShapeHint());
  for (size_t i = 0; i < graph.layers.size(); i++) {
    const ParamLayer& pl = graph.layers[i];
    GraphLayer gl;
    gl.type = pl.type;
    gl.name = pl.name;
    gl.bottoms = pl.bottoms;
    gl.tops = pl.tops;
    gl.params = pl.params;
    gl.params.erase(kShapeHintParamId);
    gl.line = pl.line;
    gl.offset = pl.offset;
    try {
      const std::vector<ShapeHint> hints = decode_shape_hints(pl);
      for (size_t t = 0; t < hints.size(); t++) g.blob_shapes[pl.tops[t]] = hints[t];
      std::unique_ptr<Layer> layer = create_layer(pl.type);
      if (layer) {
        layer->type = pl.type;
        layer->name = pl.name;
        layer->bottoms = pl.bottoms;
        layer->tops = pl.tops;
        // Raw words of a binary .param become ints or floats as the layer reads them, so
        // the text the optimizer writes reads back with the same bits.
        ParamDict::RawReads reads;
        struct Detach {
          const ParamDict& pd;
          ~Detach() { pd.attach_raw_reads(nullptr); }
        } detach{pl.params};
        pl.params.attach_raw_reads(&reads);
        layer->load_param(pl.params);
        gl.params.settle_raw(reads);
        RecordingBin recorder(weights.layer_weights(i, pl));
        layer->load_model(recorder);
        gl.weights = recorder.take();
      } else {
        gl.opaque = true;
      }
    } catch (const Error& e) {
      fail(location_of(source, pl.line, pl.offset, pl.name, pl.type), ": ", e.what());
    }
    g.layers.push_back(std::move(gl));
  }
  g.assign_layer_shapes();
  return g;
}

ModelGraph load_model_graph(const std::string& param_path, const std::string& bin_path) {
  const ParamGraph graph = load_param_file(param_path);
  auto file = std::make_shared<const MappedFile>(bin_path);
  DataReaderFromMappedFile reader(file);
  BinWeights weights(reader, bin_path);
  ModelGraph g = load_model_graph(graph, weights, param_path);
  if (reader.remaining() != 0) {
    std::string why = str_cat("; it does not belong to ", param_path);
    for (size_t i = 0; i < g.layers.size(); i++)
      if (g.layers[i].opaque) {
        why = str_cat("; ", g.location(i), " has a type jitconv does not know and may own them");
        break;
      }
    fail(bin_path, ": ", reader.remaining(), " bytes left at byte offset ", reader.offset(),
         " after the weights of every layer", why);
  }
  return g;
}

}  // namespace jitconv
