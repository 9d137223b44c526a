#include "runtime/net.h"

#include <utility>

#include "loader/model_bin_reader.h"
#include "loader/param_parser.h"
#include "runtime/error.h"
#include "runtime/layer_registry.h"
#include "runtime/layers/convolution.h"
#include "runtime/layers/convolution_depthwise.h"

namespace jitconv {

namespace {

// A .bin byte stream read layer after layer; messages name the stream.
class ReaderWeights final : public WeightSource {
 public:
  ReaderWeights(DataReader& reader, std::string source) : bin_(reader), source_(std::move(source)) {}
  const ModelBin& layer_weights(size_t index, const ParamLayer& layer) override {
    bin_.set_context(source_);
    return bin_;
  }

 private:
  ModelBinFromDataReader bin_;
  std::string source_;
};

}  // namespace

Net::Net()
    : creator_(create_layer), missing_message_("unknown layer type"), workspace_pool_(std::make_unique<PoolAllocator>()),
      blob_pool_(std::make_unique<PoolAllocator>()) {}

Net::~Net() { clear(); }

void Net::set_layer_creator(LayerCreator creator, std::string missing) {
  if (!creator) fail("set_layer_creator: empty creator");
  creator_ = std::move(creator);
  missing_message_ = std::move(missing);
}

void Net::load_param(const std::string& path) { load_graph(load_param_file(path), path); }

void Net::load_param_mem(const std::string& text) { load_graph(parse_param_text(text), "<param>"); }

void Net::load_param_bin_mem(const void* data, size_t size) {
  load_graph(parse_param_binary(data, size), "<param.bin>");
}

void Net::load_param(const ParamGraph& graph, const std::string& source) {
  validate_graph(graph);
  load_graph(graph, source);
}

std::string Net::layer_location(size_t index) const {
  const ParamLayer& layer = graph_.layers.at(index);
  if (layer.line > 0) return str_cat(param_source_, ":", layer.line, ": ", describe_layer(layer));
  if (layer.offset > 0) return str_cat(param_source_, " (byte offset ", layer.offset, "): ", describe_layer(layer));
  return str_cat(param_source_, ": ", describe_layer(layer));
}

void Net::load_graph(ParamGraph graph, const std::string& source) {
  if (graph.layers.empty()) fail(source, ": the model has no layers");
  clear();
  graph_ = std::move(graph);
  param_source_ = source;
  try {
    const size_t blobs = graph_.blob_names.size();
    producer_.assign(blobs, -1);
    consumer_count_.assign(blobs, 0);
    fused_into_.assign(blobs, -1);
    blob_hints_.assign(blobs, Mat());
    for (size_t i = 0; i < graph_.layers.size(); i++) {
      const ParamLayer& pl = graph_.layers[i];
      std::vector<Mat> hints;
      try {
        hints = shape_hint_mats(pl);
      } catch (const Error& e) {
        fail(layer_location(i), ": ", e.what());
      }
      for (size_t t = 0; t < pl.tops.size(); t++) {
        producer_[pl.tops[t]] = static_cast<int>(i);
        if (t < hints.size()) blob_hints_[pl.tops[t]] = hints[t];
      }
      for (int b : pl.bottoms) consumer_count_[b]++;
    }
    // An Input layer's w/h/c parameters declare its blob's shape as well as a hint does.
    for (const ParamLayer& pl : graph_.layers)
      if (pl.type == "Input" && pl.tops.size() == 1 && blob_hints_[pl.tops[0]].dims == 0)
        blob_hints_[pl.tops[0]] = input_shape(pl.tops[0]);
    for (size_t i = 0; i < graph_.layers.size(); i++) {
      const ParamLayer& pl = graph_.layers[i];
      std::unique_ptr<Layer> layer = creator_(pl.type);
      if (!layer) fail(layer_location(i), ": ", missing_message_, " '", pl.type, "'");
      layer->type = pl.type;
      layer->name = pl.name;
      layer->line = pl.line;
      layer->bottoms = pl.bottoms;
      layer->tops = pl.tops;
      for (int b : pl.bottoms) layer->bottom_shapes.push_back(blob_hints_[b]);
      for (int t : pl.tops) layer->top_shapes.push_back(blob_hints_[t]);
      try {
        layer->load_param(pl.params);
      } catch (const Error& e) {
        fail(layer_location(i), ": ", e.what());
      }
      // Kernels for the hinted input size are generated at create_pipeline, not at the
      // first forward.
      if (!layer->bottom_shapes.empty() && layer->bottom_shapes[0].dims == 3) {
        const Mat& in = layer->bottom_shapes[0];
        if (auto* conv = dynamic_cast<layers::Convolution*>(layer.get())) {
          conv->hint_w = in.w;
          conv->hint_h = in.h;
        } else if (auto* dw = dynamic_cast<layers::ConvolutionDepthWise*>(layer.get())) {
          dw->hint_w = in.w;
          dw->hint_h = in.h;
        }
      }
      layers_.push_back(std::move(layer));
    }
  } catch (...) {
    clear();
    throw;
  }
}

void Net::load_model(const std::string& path) {
  auto file = std::make_shared<const MappedFile>(path);
  DataReaderFromMappedFile reader(file);
  load_model(reader, path);
  mapping_ = std::move(file);
}

void Net::load_model_mem(const void* data, size_t size) {
  DataReaderFromMemory reader(data, size);
  load_model(reader, "<bin>");
}

void Net::load_model(FILE* fp) {
  if (!fp) fail("load_model: null FILE*");
  DataReaderFromStdio reader(fp);
  load_model(reader, "<FILE*>");
}

void Net::load_model(DataReader& reader, const std::string& source) {
  ReaderWeights weights(reader, source);
  load_model(weights);
  const size_t left = reader.remaining();
  unread_model_bytes_ = left == kUnknownSize ? 0 : left;
}

namespace {
constexpr size_t kColdWeightBytes = 32u << 20;
}  // namespace

void Net::load_model(WeightSource& source) {
  if (ready_) fail("load_model: weights are already loaded (clear() and load_param first)");
  if (layers_.empty() && graph_.layers.empty()) fail("load_model: no layers (call load_param first)");
  if (opt.num_threads < 1) fail("load_model: Net::opt.num_threads must be at least 1, got ", opt.num_threads);
  if (layers_.size() != graph_.layers.size())
    fail("load_model: the graph was not loaded completely (call load_param again)");
  try {
    for (size_t i = 0; i < layers_.size(); i++) {
      const ModelBin& bin = source.layer_weights(i, graph_.layers[i]);
      try {
        layers_[i]->load_model(bin);
      } catch (const Error& e) {
        fail(layer_location(i), ": ", e.what());
      }
    }
    isa_ = current_isa();
    pipeline_opt_ = opt;
    // Weights beyond about half the L3 share measured here (64 MB read at L3 speed,
    // 128 MB at memory speed) stream from memory on every forward.
    size_t weight_bytes = 0;
    for (const auto& layer : layers_) weight_bytes += layer->weight_bytes();
    pipeline_opt_.weights_cold = pipeline_opt_.weights_cold || weight_bytes > kColdWeightBytes;
    if (pipeline_opt_.use_residual_fusion) fuse_residuals();
    if (plain_layout_) {
      pipeline_opt_.use_packing_layout = false;
      pipeline_opt_.use_fp16_storage = false;
      pipeline_opt_.use_bf16_storage = false;
    }
    for (size_t i = 0; i < layers_.size(); i++) {
      try {
        layers_[i]->create_pipeline(pipeline_opt_);
      } catch (const Error& e) {
        fail(layer_location(i), ": create_pipeline: ", e.what());
      }
      pipelines_ = i + 1;
    }
  } catch (...) {
    clear();
    throw;
  }
  ready_ = true;
}

void Net::destroy_pipelines() {
  for (size_t i = 0; i < pipelines_ && i < layers_.size(); i++) layers_[i]->destroy_pipeline(pipeline_opt_);
  pipelines_ = 0;
}

void Net::clear() {
  destroy_pipelines();
  layers_.clear();  // before the mapping: zero-copy weights point into it
  mapping_.reset();
  unread_model_bytes_ = 0;
  graph_ = ParamGraph();
  blob_hints_.clear();
  producer_.clear();
  consumer_count_.clear();
  fused_into_.clear();
  ready_ = false;
  // The local pools' idle blocks go too (blocks an Extractor still holds stay theirs).
  workspace_pool_->clear();
  blob_pool_->clear();
}

Extractor Net::create_extractor() const { return Extractor(*this); }

std::vector<std::string> Net::input_names() const {
  std::vector<std::string> names;
  for (const ParamLayer& layer : graph_.layers)
    if (layer.type == "Input")
      for (int t : layer.tops) names.push_back(graph_.blob_names[t]);
  return names;
}

Mat Net::input_shape(int blob) const {
  const int producer = producer_.at(blob);
  Mat shape;
  if (producer >= 0 && graph_.layers[producer].type == "Input") {
    const ParamDict& pd = graph_.layers[producer].params;
    const int w = pd.get(0, 0), h = pd.get(1, 0), d = pd.get(11, 0), c = pd.get(2, 0);
    shape.dims = d > 0 ? 4 : c > 0 ? 3 : h > 0 ? 2 : w > 0 ? 1 : 0;
    const bool complete = shape.dims > 0 && w > 0 && (shape.dims < 2 || h > 0) && (shape.dims < 3 || c > 0);
    if (complete) {
      shape.w = w;
      shape.h = shape.dims >= 2 ? h : 1;
      shape.d = shape.dims == 4 ? d : 1;
      shape.c = shape.dims >= 3 ? c : 1;
      shape.elemsize = 4;
      shape.elempack = 1;
      return shape;
    }
  }
  return blob_hints_.at(blob);
}

std::vector<std::string> Net::output_names() const {
  std::vector<std::string> names;
  for (size_t b = 0; b < consumer_count_.size(); b++)
    if (consumer_count_[b] == 0 && fused_into_[b] < 0) names.push_back(graph_.blob_names[b]);
  return names;
}

}  // namespace jitconv
