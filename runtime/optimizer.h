// The graph optimizer: ncnnoptimize's rewrites, then shape inference, then saving.
//
//   jitconv::OptimizeOptions options;
//   options.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
//   jitconv::optimize_model("in.param", "in.bin", "out.param", "out.bin", jitconv::WeightStorage::fp16, options);
//
// prints, like ncnnoptimize, one line per rewrite ("fuse_convolution_batchnorm conv1 bn1")
// and writes a model whose every layer carries -23330 shape hints (4 ints per top blob:
// dims, w, h, c with unused extents 1) when shape inference succeeds. When it fails, the
// model keeps the hints it was loaded with, unless they went stale: other input shapes
// were given, or a rewrite changed a blob's shape; then it has none.
//
// The passes (runtime/optimizer_passes.h), in order: fuse_batchnorm_scale; for
// Convolution, ConvolutionDepthWise, Deconvolution, DeconvolutionDepthWise and
// InnerProduct the batchnorm, mul, add and bias folds, then their activation fusions;
// fuse_memorydata_binaryop; eliminate_dropout, _pooling1x1, _noop, _split,
// _flatten_after_global_pooling; replace_convolution_with_innerproduct_after_global_pooling;
// eliminate_orphaned_memorydata; shape_inference. Like ncnnoptimize, the eliminations drop
// network outputs nothing reads: a MemoryData no layer reads and a Split's unread outputs.
//
// Shapes are inferred twice: once before the passes, quietly, so that folds which depend
// on a blob's dims (an InnerProduct's output) can check them, and once after, on the
// optimized graph (every pipeline made afresh, since parameters changed).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runtime/optimizer_graph.h"
#include "runtime/optimizer_passes.h"

namespace jitconv {

struct OptimizeOptions {
  // Input blob name -> shape (a shape-only Mat: dims, w, h, d, c, like Net::input_shape).
  // It replaces that Input layer's w/h/d/c parameters (0/1/11/2), which shape inference
  // reads and the saved model keeps.
  std::map<std::string, Mat> input_shapes;
  // Threads for the shape-inference runs.
  int num_threads = 1;
  // Receives each line as it is produced.
  std::function<void(const std::string&)> log;
};

struct OptimizeResult {
  std::vector<std::string> lines;  // every line the passes and shape inference produced
  bool shapes_inferred = false;    // the final shape inference ran through
};

// Runs every pass and the final shape inference on `graph`. Throws when an entry of
// options.input_shapes names no Input blob or is not a valid shape.
OptimizeResult optimize_graph(ModelGraph& graph, const OptimizeOptions& options = {});

// load_model_graph + optimize_graph + save_model_graph.
OptimizeResult optimize_model(const std::string& in_param, const std::string& in_bin, const std::string& out_param,
                              const std::string& out_bin, WeightStorage storage = WeightStorage::fp32,
                              const OptimizeOptions& options = {});

// Runs the live graph once in light mode on uninitialized inputs (shapes from
// input_shapes, else the Input layers' parameters), records every top blob's shape in
// graph.blob_shapes (dims 0 for a 4-D or empty blob: hints cannot hold those) and copies
// them into the layers' bottom_shapes / top_shapes. Returns false, after logging why
// ("Input layer data without shape info, shape_inference skipped", or the layer the
// runtime cannot create or run), and changes nothing, when that is not possible. `log`
// may be null.
bool shape_inference(ModelGraph& graph, const std::map<std::string, Mat>& input_shapes, int num_threads,
                     OptimizeLog* log);

}  // namespace jitconv
