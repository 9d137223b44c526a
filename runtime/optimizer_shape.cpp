// shape_inference: a dry run of the graph that records the shape of every blob.
#include <exception>
#include <utility>

#include "runtime/error.h"
#include "runtime/extractor.h"
#include "runtime/net.h"
#include "runtime/optimizer.h"

namespace jitconv {

namespace {

void say(OptimizeLog* log, const std::string& text) {
  if (log) log->line(text);
}

// The shape an Input layer declares with its w/h/d/c parameters (0, 1, 11, 2), as ncnn
// reads them: every extent up to the highest one given must be given; else dims 0.
Mat declared_shape(const ParamDict& pd) {
  const int w = pd.get(0, 0), h = pd.get(1, 0), d = pd.get(11, 0), c = pd.get(2, 0);
  Mat shape;
  shape.dims = d > 0 ? 4 : c > 0 ? 3 : h > 0 ? 2 : w > 0 ? 1 : 0;
  const bool complete = shape.dims > 0 && w > 0 && (shape.dims < 2 || h > 0) && (shape.dims < 3 || c > 0);
  if (!complete) return Mat();
  shape.w = w;
  shape.h = shape.dims >= 2 ? h : 1;
  shape.d = shape.dims == 4 ? d : 1;
  shape.c = shape.dims >= 3 ? c : 1;
  shape.elemsize = 4;
  shape.elempack = 1;
  return shape;
}

Mat uninitialized_tensor(const Mat& shape) {
  Mat m;
  switch (shape.dims) {
    case 1: m.create(shape.w); break;
    case 2: m.create(shape.w, shape.h); break;
    case 3: m.create(shape.w, shape.h, shape.c); break;
    default: m.create(shape.w, shape.h, shape.d, shape.c); break;
  }
  return m;
}

// ncnn's hint for a blob: dims, then w, h, c with the extents it lacks as 1.
ShapeHint hint_of(const Mat& m) {
  const int packed = m.elempack > 0 ? m.elempack : 1;
  switch (m.dims) {
    case 1: return {1, m.w * packed, 1, 1};
    case 2: return {2, m.w, m.h * packed, 1};
    case 3: return {3, m.w, m.h, m.c * packed};
    default: return {};  // 4-D or empty: no hint can say it
  }
}

}  // namespace

bool shape_inference(ModelGraph& graph, const std::map<std::string, Mat>& input_shapes, int num_threads,
                     OptimizeLog* log) {
  std::vector<std::pair<std::string, Mat>> inputs;
  for (const GraphLayer& layer : graph.layers) {
    if (layer.fused || layer.type != "Input") continue;
    for (int t : layer.tops) {
      const std::string& name = graph.blob_names[t];
      const auto given = input_shapes.find(name);
      const Mat shape = given != input_shapes.end() ? given->second : declared_shape(layer.params);
      if (shape.dims == 0) {
        say(log, str_cat("Input layer ", layer.name, " without shape info, shape_inference skipped"));
        return false;
      }
      inputs.emplace_back(name, shape);
    }
  }
  say(log, "shape_inference");
  std::vector<ShapeHint> shapes(graph.blob_names.size());
  try {
    Net net;
    net.opt.num_threads = num_threads;
    net.opt.lightmode = true;
    net.opt.use_residual_fusion = false;  // every blob is extracted, the fused-away ones too
    load_into_net(graph, net, false);
    Extractor ex = net.create_extractor();
    ex.set_light_mode(true);
    for (const auto& in : inputs) ex.input(in.first, uninitialized_tensor(in.second));
    for (const GraphLayer& layer : graph.layers) {
      if (layer.fused) continue;
      for (int t : layer.tops) {
        Mat out;
        ex.extract(graph.blob_names[t], out);
        shapes[t] = hint_of(out);
      }
    }
  } catch (const std::exception& e) {  // whatever stops the run only stops the inference
    say(log, str_cat("shape_inference skipped: ", e.what()));
    return false;
  }
  graph.blob_shapes = std::move(shapes);
  graph.assign_layer_shapes();
  return true;
}

}  // namespace jitconv
