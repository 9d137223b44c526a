#include "runtime/optimizer.h"

#include <set>

#include "runtime/error.h"

namespace jitconv {

namespace {

void check_input_shapes(const ModelGraph& graph, const std::map<std::string, Mat>& input_shapes) {
  std::set<std::string> inputs;
  for (const GraphLayer& layer : graph.layers)
    if (!layer.fused && layer.type == "Input")
      for (int t : layer.tops) inputs.insert(graph.blob_names[t]);
  for (const auto& entry : input_shapes) {
    if (!inputs.count(entry.first)) fail("optimize: no Input layer produces a blob named '", entry.first, "'");
    const Mat& s = entry.second;
    const bool extents_ok =
        s.w > 0 && (s.dims < 2 || s.h > 0) && (s.dims < 3 || s.c > 0) && (s.dims < 4 || s.d > 0);
    if (s.dims < 1 || s.dims > 4 || !extents_ok)
      fail("optimize: the shape for input '", entry.first, "' is not a valid 1-D to 4-D shape (dims ", s.dims, ", w ",
           s.w, ", h ", s.h, ", d ", s.d, ", c ", s.c, ")");
  }
}

// An Input given a shape declares it in its w/h/d/c parameters, so the saved model and
// its shape hints agree.
void declare_input_shapes(ModelGraph& graph, const std::map<std::string, Mat>& input_shapes) {
  for (GraphLayer& layer : graph.layers) {
    if (layer.fused || layer.type != "Input" || layer.tops.size() != 1) continue;
    const auto given = input_shapes.find(graph.blob_names[layer.tops[0]]);
    if (given == input_shapes.end()) continue;
    const Mat& s = given->second;
    const int extents[4] = {s.w, s.dims >= 2 ? s.h : 0, s.dims == 4 ? s.d : 0, s.dims >= 3 ? s.c : 0};
    const int ids[4] = {0, 1, 11, 2};
    for (int k = 0; k < 4; k++) {
      if (extents[k] > 0)
        layer.params.set(ids[k], extents[k]);
      else
        layer.params.erase(ids[k]);
    }
  }
}

}  // namespace

OptimizeResult optimize_graph(ModelGraph& graph, const OptimizeOptions& options) {
  check_input_shapes(graph, options.input_shapes);
  declare_input_shapes(graph, options.input_shapes);
  // The file's shape hints describe the inputs it declared: with other input shapes they
  // are stale, and a shape inference that fails must not leave them to be saved.
  if (!options.input_shapes.empty()) graph.blob_shapes.assign(graph.blob_names.size(), ShapeHint());
  OptimizeLog log(options.log);
  // Quiet first run: the InnerProduct folds need to know whether its output is 1-D.
  shape_inference(graph, options.input_shapes, options.num_threads, nullptr);

  fuse_batchnorm_scale(graph, log);
  for (WeightedLayer kind : kWeightedLayers) {
    fuse_batchnorm(graph, kind, log);
    fuse_mul(graph, kind, log);
    fuse_add(graph, kind, log);
    fuse_bias(graph, kind, log);
  }
  for (WeightedLayer kind : kWeightedLayers) fuse_activation(graph, kind, log);
  fuse_memorydata_binaryop(graph, log);

  eliminate_dropout(graph, log);
  eliminate_pooling1x1(graph, log);
  eliminate_noop(graph, log);
  eliminate_split(graph, log);
  eliminate_flatten_after_global_pooling(graph, log);
  // The one rewrite that changes a kept blob's shape (3-D 1x1xC to 1-D C).
  const bool reshaped = replace_convolution_with_innerproduct_after_global_pooling(graph, log) > 0;
  eliminate_orphaned_memorydata(graph, log);

  OptimizeResult result;
  result.shapes_inferred = shape_inference(graph, options.input_shapes, options.num_threads, &log);
  if (!result.shapes_inferred && reshaped) graph.blob_shapes.assign(graph.blob_names.size(), ShapeHint());
  graph.assign_layer_shapes();
  result.lines = log.lines();
  return result;
}

OptimizeResult optimize_model(const std::string& in_param, const std::string& in_bin, const std::string& out_param,
                              const std::string& out_bin, WeightStorage storage, const OptimizeOptions& options) {
  ModelGraph graph = load_model_graph(in_param, in_bin);
  OptimizeResult result = optimize_graph(graph, options);
  save_model_graph(graph, out_param, out_bin, storage);
  return result;
}

}  // namespace jitconv
