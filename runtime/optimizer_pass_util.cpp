#include "runtime/optimizer_pass_util.h"

#include <algorithm>

#include "runtime/error.h"

namespace jitconv {

void OptimizeLog::line(const std::string& text) {
  lines_.push_back(text);
  if (sink_) sink_(text);
}

namespace passes {

namespace {

size_t value_count(const Mat& m) { return static_cast<size_t>(m.w) * m.h * m.d * m.c; }

bool is_fp32_buffer(const Mat& m, size_t count) {
  return m.data != nullptr && m.elemsize == 4 && m.elempack == 1 && value_count(m) == count;
}

}  // namespace

float* writable(Mat& m) {
  if (m.refcount == nullptr || m.refcount->load() != 1) m = m.clone();
  return m;
}

const WeightedInfo& weighted_info(WeightedLayer kind) {
  static const WeightedInfo kInfo[] = {
      {"Convolution", "convolution", 5, 6, 8, 19},
      {"ConvolutionDepthWise", "convolutiondepthwise", 5, 6, 8, 19},
      {"Deconvolution", "deconvolution", 5, 6, -1, 28},
      {"DeconvolutionDepthWise", "deconvolutiondepthwise", 5, 6, -1, 28},
      {"InnerProduct", "innerproduct", 1, 2, 8, -1},
  };
  return kInfo[static_cast<int>(kind)];
}

int sole_successor(const ModelGraph& graph, size_t i) {
  const GraphLayer& layer = graph.layers[i];
  if (layer.fused || layer.tops.size() != 1) return -1;
  const int j = graph.sole_consumer(layer.tops[0]);
  if (j < 0) return -1;
  const GraphLayer& next = graph.layers[j];
  return next.bottoms.size() == 1 && next.tops.size() == 1 ? j : -1;
}

void absorb_successor(ModelGraph& graph, size_t i, size_t j) {
  graph.layers[i].tops[0] = graph.layers[j].tops[0];
  graph.layers[j].fused = true;
}

int bypass(ModelGraph& graph, size_t j) {
  GraphLayer& layer = graph.layers[j];
  const int bottom = layer.bottoms.at(0);
  const int top = layer.tops.at(0);
  const int p = graph.producer(bottom);
  if (p < 0 || graph.sole_consumer(bottom) != static_cast<int>(j)) return -1;
  if (graph.layers[p].type == "Input") {
    const std::vector<int> readers = graph.consumers(top);
    if (readers.empty()) return -1;  // the top is a network output: keep its name
    for (int r : readers)
      for (int& b : graph.layers[r].bottoms)
        if (b == top) b = bottom;
  } else {
    std::vector<int>& tops = graph.layers[p].tops;
    // A network output (nothing reads it) handed to a layer of several outputs could be
    // taken for one of its unread outputs, which eliminate_split drops with the Split
    // (Split -> Dropout -> out lost `out`): keep the layer.
    if (tops.size() > 1 && graph.consumers(top).empty()) return -1;
    *std::find(tops.begin(), tops.end(), bottom) = top;
  }
  layer.fused = true;
  return p;
}

std::vector<float> values_of(const Mat& m) {
  const float* v = m;
  return std::vector<float>(v, v + value_count(m));
}

bool weighted_view(ModelGraph& graph, size_t i, const WeightedInfo& info, WeightedView& view, bool allow_activation) {
  GraphLayer& layer = graph.layers[i];
  if (info.int8_id >= 0 && layer.params.get(info.int8_id, 0) != 0) return false;
  if (info.dynamic_id >= 0 && layer.params.get(info.dynamic_id, 0) != 0) return false;
  if (!allow_activation && layer.params.get(kActivationTypeId, 0) != 0) return false;
  const int num_output = layer.params.get(0, 0);
  const int weight_size = layer.params.get(info.weight_size_id, 0);
  if (num_output <= 0 || weight_size <= 0 || weight_size % num_output != 0) return false;
  const bool has_bias = layer.params.get(info.bias_term_id, 0) != 0;
  if (layer.weights.size() < (has_bias ? 2u : 1u)) return false;
  if (!is_fp32_buffer(layer.weights[0].data, static_cast<size_t>(weight_size))) return false;
  if (has_bias && !is_fp32_buffer(layer.weights[1].data, static_cast<size_t>(num_output))) return false;
  view.num_output = num_output;
  view.per_output = weight_size / num_output;
  view.weight = writable(layer.weights[0].data);
  view.bias = has_bias ? writable(layer.weights[1].data) : nullptr;
  return true;
}

void ensure_bias(ModelGraph& graph, size_t i, const WeightedInfo& info, WeightedView& view) {
  if (view.bias) return;
  GraphLayer& layer = graph.layers[i];
  GraphWeight bias;
  bias.data.create(view.num_output);
  bias.data.fill(0.f);
  bias.type = 1;
  view.bias = bias.data;
  layer.weights.insert(layer.weights.begin() + 1, std::move(bias));
  layer.params.set(info.bias_term_id, 1);
}

bool channels_line_up(const ModelGraph& graph, size_t i, WeightedLayer kind, const std::string& pass,
                      const std::string& second, OptimizeLog& log) {
  if (kind != WeightedLayer::inner_product) return true;
  const GraphLayer& layer = graph.layers[i];
  const int dims = graph.blob_shapes.at(layer.tops.at(0)).dims;
  if (dims == 0)
    log.line(str_cat(pass, " ", layer.name, " ", second,
                     " skipped: the InnerProduct's output shape is unknown (declare the input shape)"));
  return dims == 1;
}

}  // namespace passes
}  // namespace jitconv
