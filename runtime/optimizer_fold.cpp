// Passes that fold per-channel constants into the layer before them:
// BatchNorm - Scale, and X - BatchNorm / BinaryOp(MemoryData) mul, add / Bias for the
// Convolution-like layers. Arithmetic that ncnn does in float is done in double here and
// rounded once.
#include <cmath>

#include "runtime/error.h"
#include "runtime/optimizer_pass_util.h"

namespace jitconv {

using passes::WeightedInfo;
using passes::WeightedView;

namespace {

constexpr int kBinaryAdd = 0;
constexpr int kBinaryMul = 2;

bool fp32_values(const GraphWeight& w, int count) {
  return w.data.data != nullptr && w.data.elemsize == 4 && w.data.elempack == 1 &&
         static_cast<size_t>(w.data.w) * w.data.h * w.data.d * w.data.c == static_cast<size_t>(count);
}

// BatchNorm's four buffers (slope, mean, var, bias), each `channels` fp32 values.
bool batchnorm_weights_ok(const GraphLayer& bn, int channels) {
  if (channels <= 0 || bn.weights.size() != 4) return false;
  for (const GraphWeight& w : bn.weights)
    if (!fp32_values(w, channels)) return false;
  return true;
}

// The constant a BinaryOp after layer i (whose top is `top`) applies per output channel:
// the MemoryData on its other input, shaped [num_output] (or [1,1,num_output] when the
// output is known to be 3-D). Returns the MemoryData's values, or empty.
std::vector<float> channel_constant(const ModelGraph& graph, const GraphLayer& op, int top, int num_output) {
  const int other = op.bottoms[0] == top ? op.bottoms[1] : op.bottoms[0];
  if (other == top) return {};
  const int k = graph.producer(other);
  if (k < 0 || graph.layers[k].type != "MemoryData") return {};
  const GraphLayer& md = graph.layers[k];
  const int w = md.params.get(0, 0), h = md.params.get(1, 0), d = md.params.get(11, 0), c = md.params.get(2, 0);
  const bool flat = w == num_output && h == 0 && d == 0 && c == 0;
  const bool per_channel = w == 1 && h == 1 && d == 0 && c == num_output && graph.blob_shapes.at(top).dims == 3;
  if (!(flat || per_channel) || md.weights.size() != 1 || !fp32_values(md.weights[0], num_output)) return {};
  return passes::values_of(md.weights[0].data);
}

// Folds BinaryOp `op_type` with a per-channel MemoryData after each X into X.
int fuse_binary_constant(ModelGraph& graph, WeightedLayer kind, int op_type, const char* what, OptimizeLog& log) {
  const WeightedInfo& info = passes::weighted_info(kind);
  const std::string pass = str_cat("fuse_", info.pass_name, "_", what);
  int fused = 0;
  for (size_t i = 0; i < graph.layers.size(); i++) {
    GraphLayer& layer = graph.layers[i];
    if (layer.fused || layer.type != info.type || layer.tops.size() != 1) continue;
    const int top = layer.tops[0];
    const int j = graph.sole_consumer(top);
    if (j < 0) continue;
    GraphLayer& op = graph.layers[j];
    if (op.type != "BinaryOp" || op.bottoms.size() != 2 || op.tops.size() != 1) continue;
    if (op.params.get(0, 0) != op_type || op.params.get(1, 0) != 0) continue;
    WeightedView view;
    if (!passes::weighted_view(graph, i, info, view)) continue;
    const std::vector<float> constant = channel_constant(graph, op, top, view.num_output);
    if (constant.empty()) continue;
    if (!passes::channels_line_up(graph, i, kind, pass, op.name, log)) continue;
    if (op_type == kBinaryMul) {
      for (int o = 0; o < view.num_output; o++) {
        float* w = view.weight + static_cast<size_t>(o) * view.per_output;
        for (int k = 0; k < view.per_output; k++) w[k] *= constant[o];
        if (view.bias) view.bias[o] *= constant[o];
      }
    } else {
      passes::ensure_bias(graph, i, info, view);
      for (int o = 0; o < view.num_output; o++) view.bias[o] += constant[o];
    }
    log.line(str_cat(pass, " ", layer.name, " ", op.name));
    layer.tops[0] = op.tops[0];
    op.fused = true;
    fused++;
  }
  return fused;
}

}  // namespace

int fuse_batchnorm_scale(ModelGraph& graph, OptimizeLog& log) {
  int fused = 0;
  for (size_t i = 0; i < graph.layers.size(); i++) {
    GraphLayer& bn = graph.layers[i];
    if (bn.fused || bn.type != "BatchNorm") continue;
    const int j = passes::sole_successor(graph, i);
    if (j < 0 || graph.layers[j].type != "Scale") continue;
    const GraphLayer& scale = graph.layers[j];
    const int channels = bn.params.get(0, 0);
    const bool scale_bias = scale.params.get(1, 0) != 0;
    if (!batchnorm_weights_ok(bn, channels) || scale.params.get(0, 0) != channels) continue;
    if (scale.weights.size() != (scale_bias ? 2u : 1u)) continue;
    if (!fp32_values(scale.weights[0], channels) || (scale_bias && !fp32_values(scale.weights[1], channels))) continue;
    // ((v - mean) / sqrt(var + eps) * slope + bias) * s + b
    //   = (v - mean) / sqrt(var + eps) * (slope * s) + (bias * s + b)
    float* slope = passes::writable(bn.weights[0].data);
    float* bias = passes::writable(bn.weights[3].data);
    const float* s = scale.weights[0].data;
    const float* b = scale_bias ? static_cast<const float*>(scale.weights[1].data) : nullptr;
    for (int q = 0; q < channels; q++) {
      slope[q] *= s[q];
      bias[q] = static_cast<float>(static_cast<double>(bias[q]) * s[q] + (b ? b[q] : 0.0));
    }
    log.line(str_cat("fuse_batchnorm_scale ", bn.name, " ", scale.name));
    passes::absorb_successor(graph, i, j);
    fused++;
  }
  return fused;
}

int fuse_batchnorm(ModelGraph& graph, WeightedLayer kind, OptimizeLog& log) {
  const WeightedInfo& info = passes::weighted_info(kind);
  const std::string pass = str_cat("fuse_", info.pass_name, "_batchnorm");
  int fused = 0;
  for (size_t i = 0; i < graph.layers.size(); i++) {
    if (graph.layers[i].fused || graph.layers[i].type != info.type) continue;
    const int j = passes::sole_successor(graph, i);
    if (j < 0 || graph.layers[j].type != "BatchNorm") continue;
    const GraphLayer& bn = graph.layers[j];
    WeightedView view;
    if (!passes::weighted_view(graph, i, info, view)) continue;
    if (bn.params.get(0, 0) != view.num_output || !batchnorm_weights_ok(bn, view.num_output)) continue;
    const double eps = bn.params.get(1, 0.f);
    const float* slope = bn.weights[0].data;
    const float* mean = bn.weights[1].data;
    const float* var = bn.weights[2].data;
    const float* bn_bias = bn.weights[3].data;
    bool finite = true;  // the BatchNorm layer itself rejects var + eps < 0
    for (int o = 0; o < view.num_output; o++) finite = finite && var[o] + eps > 0;
    if (!finite) continue;
    if (!passes::channels_line_up(graph, i, kind, pass, bn.name, log)) continue;
    passes::ensure_bias(graph, i, info, view);
    // y = (x - mean) / sqrt(var + eps) * slope + bias = x * b + a with
    // b = slope / sqrt(var + eps), a = bias - mean * b.
    for (int o = 0; o < view.num_output; o++) {
      const double b = slope[o] / std::sqrt(var[o] + eps);
      const double a = bn_bias[o] - mean[o] * b;
      float* w = view.weight + static_cast<size_t>(o) * view.per_output;
      for (int k = 0; k < view.per_output; k++) w[k] = static_cast<float>(w[k] * b);
      view.bias[o] = static_cast<float>(view.bias[o] * b + a);
    }
    log.line(str_cat(pass, " ", graph.layers[i].name, " ", bn.name));
    passes::absorb_successor(graph, i, j);
    fused++;
  }
  return fused;
}

int fuse_mul(ModelGraph& graph, WeightedLayer kind, OptimizeLog& log) {
  return fuse_binary_constant(graph, kind, kBinaryMul, "mul", log);
}

int fuse_add(ModelGraph& graph, WeightedLayer kind, OptimizeLog& log) {
  return fuse_binary_constant(graph, kind, kBinaryAdd, "add", log);
}

int fuse_bias(ModelGraph& graph, WeightedLayer kind, OptimizeLog& log) {
  const WeightedInfo& info = passes::weighted_info(kind);
  const std::string pass = str_cat("fuse_", info.pass_name, "_bias");
  int fused = 0;
  for (size_t i = 0; i < graph.layers.size(); i++) {
    if (graph.layers[i].fused || graph.layers[i].type != info.type) continue;
    const int j = passes::sole_successor(graph, i);
    if (j < 0 || graph.layers[j].type != "Bias") continue;
    const GraphLayer& bias_layer = graph.layers[j];
    WeightedView view;
    if (!passes::weighted_view(graph, i, info, view)) continue;
    if (bias_layer.params.get(0, 0) != view.num_output || bias_layer.weights.size() != 1 ||
        !fp32_values(bias_layer.weights[0], view.num_output))
      continue;
    // A Bias layer adds bias[q] to channel q: per output only on a 3-D / 4-D blob. On a 1-D
    // or 2-D blob (a convolution of a flattened input, an InnerProduct) ncnn's Bias adds
    // bias[0] everywhere, which one value per output is not (unless there is one output).
    const int dims = graph.blob_shapes.at(graph.layers[i].tops.at(0)).dims;
    if (view.num_output > 1 && dims < 3) {
      log.line(str_cat(pass, " ", graph.layers[i].name, " ", bias_layer.name, " skipped: ",
                       dims == 0 ? "the output shape is unknown (declare the input shape)"
                                 : str_cat("a Bias on a ", dims, "-D blob adds its first value everywhere")));
      continue;
    }
    passes::ensure_bias(graph, i, info, view);
    const float* add = bias_layer.weights[0].data;
    for (int o = 0; o < view.num_output; o++) view.bias[o] += add[o];
    log.line(str_cat(pass, " ", graph.layers[i].name, " ", bias_layer.name));
    passes::absorb_successor(graph, i, j);
    fused++;
  }
  return fused;
}

}  // namespace jitconv
