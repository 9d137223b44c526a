// ModelGraph: an ncnn model (.param + .bin) in a form graph passes can rewrite, and its
// loading and saving. The optimizer (runtime/optimizer.h) is built on it.
//
// Every layer keeps its type, name, bottom/top blob indices, parameters and the weight
// buffers its load_model() reads, in that order, each with its ModelBin load type:
//
//   Convolution   weights[0] weight (type 0)   weights[1] bias (type 1, when 5=1)   ...
//   BatchNorm     slope, mean, var, bias (all type 1)
//
// The buffers are found by running the runtime layer's own load_param + load_model
// against the .bin, so the graph knows the weights of every layer type the runtime knows.
// A type it does not know is kept verbatim ("opaque", no weights); the .bin must then be
// used up exactly, or the unknown layer owned weights and loading fails.
//
// A pass removes a layer by marking it fused; blob indices stay valid until the graph is
// saved, which drops fused layers, renumbers the remaining blobs in order of appearance
// and writes the layer and blob counts afresh. A copy of a ModelGraph shares its weight
// buffers with the original; the passes copy a buffer before changing it.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "loader/param_graph.h"
#include "runtime/mat.h"
#include "runtime/weight_source.h"

namespace jitconv {

class Net;

struct GraphWeight {
  Mat data;      // 1-D: fp32, or int8 (elemsize 1) when the .bin stored int8
  int type = 0;  // ModelBin load type: 0 = storage flag + data, 1 = raw fp32
};

struct GraphLayer {
  std::string type;
  std::string name;
  std::vector<int> bottoms;  // blob indices
  std::vector<int> tops;
  ParamDict params;  // without shape hints (parameter 30): those live in the shapes below
  std::vector<GraphWeight> weights;
  bool fused = false;   // removed by a pass: neither saved nor run
  bool opaque = false;  // a type the runtime does not know: kept as is, without weights
  // Shapes of bottoms / tops, from shape inference or the loaded hints (dims 0: unknown).
  std::vector<ShapeHint> bottom_shapes;
  std::vector<ShapeHint> top_shapes;
  int line = 0;       // where the layer came from, for messages
  size_t offset = 0;
};

enum class WeightStorage { fp32, fp16 };

class ModelGraph {
 public:
  std::vector<GraphLayer> layers;
  std::vector<std::string> blob_names;
  std::vector<ShapeHint> blob_shapes;  // per blob; dims 0 when unknown
  std::string source;                  // the .param path (or a label) for messages

  // The live layer writing `blob`, or -1.
  int producer(int blob) const;
  // Live layers reading `blob`, once per bottom slot naming it, in graph order.
  std::vector<int> consumers(int blob) const;
  // The live layer that is the only reader of `blob` (a single bottom slot), or -1.
  int sole_consumer(int blob) const;
  size_t live_layer_count() const;
  // "model.param:12: layer 'conv1' (Convolution)".
  std::string location(size_t layer) const;
  // Copies blob_shapes into every live layer's bottom_shapes / top_shapes.
  void assign_layer_shapes();
};

// Reads a .param (text or binary) and its .bin.
ModelGraph load_model_graph(const std::string& param_path, const std::string& bin_path);
// A parsed graph with weights from `weights` (random weights, a .bin already open, ...).
ModelGraph load_model_graph(const ParamGraph& graph, WeightSource& weights, const std::string& source = "<graph>");

// The live layers with compacted blob indices; shape hints (parameter 30) for every layer
// whose top shapes are all known, when with_shape_hints.
ParamGraph to_param_graph(const ModelGraph& graph, bool with_shape_hints = true);
// The .bin bytes of the live layers. Type-0 fp32 buffers are stored as `storage` says;
// int8 buffers stay int8; type-1 buffers are raw fp32. Throws when an fp16 weight would
// overflow (|x| > 65504), naming the layer and the buffer.
std::vector<unsigned char> model_graph_bin(const ModelGraph& graph, WeightStorage storage);
// Writes the text .param and the .bin.
void save_model_graph(const ModelGraph& graph, const std::string& param_path, const std::string& bin_path,
                      WeightStorage storage = WeightStorage::fp32);

// Loads the live graph into `net` (load_param + load_model, fresh pipelines with net.opt).
// The layers get copies of the weights, so the graph is never changed by them.
void load_into_net(const ModelGraph& graph, Net& net, bool with_shape_hints = true);

}  // namespace jitconv
