// Net: a whole ncnn model, loaded once and run by any number of Extractors (ncnn's API).
//
//   Net net;
//   net.opt.num_threads = 4;                  // set options before load_model
//   net.load_param("squeezenet.param");       // text .param or binary .param.bin
//   net.load_model("squeezenet.bin");         // memory-mapped, fp32 weights zero-copy
//   Extractor ex = net.create_extractor();
//   ex.input("data", image);                  // NCHW Mat, or ex.input("data", m, Layout::nhwc)
//   ex.extract("prob", out);                  // fp32, elempack 1
//
// load_param creates every layer (through the layer creator: create_layer by default)
// and reads its parameters; shape hints (-23330) become layer->bottom_shapes /
// top_shapes, and a Convolution's hint_w / hint_h so its kernels are generated ahead of
// the first run. load_model reads the weights of every layer in graph order and then
// runs create_pipeline on each with `opt`. Errors are jitconv::Error naming the file,
// the .param line (or byte offset of a binary .param) and the layer.
//
// After load_model the Net is read-only: Extractors on several threads may run it at
// once (each keeps its own blobs; layers' forward is const).
#pragma once
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "loader/data_reader.h"
#include "loader/param_graph.h"
#include "runtime/allocator.h"
#include "runtime/convert_layout.h"
#include "runtime/cpu.h"
#include "runtime/layer.h"
#include "runtime/option.h"
#include "runtime/weight_source.h"

namespace jitconv {

class Extractor;

// Makes the layer for a type name, or returns nullptr when it has none.
using LayerCreator = std::function<std::unique_ptr<Layer>(const std::string& type)>;

class Net {
 public:
  Net();
  virtual ~Net();
  Net(const Net&) = delete;
  Net& operator=(const Net&) = delete;

  // Read by load_model (create_pipeline) and copied into every Extractor.
  Option opt;

  // Replaces create_layer; `missing` starts the error for a type it does not know.
  void set_layer_creator(LayerCreator creator, std::string missing = "unknown layer type");

  void load_param(const std::string& path);
  // Text .param held in memory.
  void load_param_mem(const std::string& text);
  // Binary .param.bin held in memory.
  void load_param_bin_mem(const void* data, size_t size);
  // An already parsed graph; `source` names it in messages.
  void load_param(const ParamGraph& graph, const std::string& source = "<graph>");

  // Memory-maps the file; the Net keeps the mapping alive for zero-copy weights.
  void load_model(const std::string& path);
  // Weights in memory: raw fp32 buffers are referenced in place, so `data` must stay
  // valid (and unchanged) for the Net's lifetime.
  void load_model_mem(const void* data, size_t size);
  // Reads from the stream's current position (always copies).
  void load_model(FILE* fp);
  void load_model(DataReader& reader, const std::string& source = "<bin>");
  void load_model(WeightSource& source);
  // Bytes the last load_model from a file or memory left unread after every layer's
  // weights (0 when none, or unknown for a stream). ncnn ignores them, and so does the
  // Net; `jitconv run` warns, since a .bin of another model usually leaves some.
  size_t unread_model_bytes() const { return unread_model_bytes_; }

  // Releases every layer and pipeline and the local pools' idle blocks; the Net is empty
  // again.
  void clear();

  // Throws unless load_param and load_model have succeeded (as Extractor's constructor
  // does). The Extractor refers to this Net, which must outlive it.
  Extractor create_extractor() const;
  // The pools Extractors take scratch and blobs from (Option::use_local_pool_allocator).
  const PoolAllocator& local_workspace_pool() const { return *workspace_pool_; }
  const PoolAllocator& local_blob_pool() const { return *blob_pool_; }

  bool ready() const { return ready_; }
  const ParamGraph& graph() const { return graph_; }
  size_t layer_count() const { return layers_.size(); }
  const Layer& layer(size_t index) const { return *layers_.at(index); }
  Layer& layer(size_t index) { return *layers_.at(index); }
  size_t blob_count() const { return graph_.blob_names.size(); }
  const std::string& blob_name(int index) const { return graph_.blob_names.at(index); }
  // -1 when absent.
  int find_blob(const std::string& name) const { return graph_.find_blob(name); }
  int find_layer(const std::string& name) const { return graph_.find_layer(name); }
  // Blobs of Input layers, and blobs no layer consumes, in graph order.
  std::vector<std::string> input_names() const;
  std::vector<std::string> output_names() const;
  // Shape hint of a blob (from its producer's -23330), or an empty Mat.
  const Mat& blob_shape_hint(int index) const { return blob_hints_.at(index); }
  // The shape an input blob is declared with (data == nullptr): its Input layer's w/h/d/c
  // parameters (0/1/11/2) when they give every extent, else its shape hint; dims 0 when
  // neither tells.
  Mat input_shape(int blob) const;
  // ISA the pipelines were made for (current_isa() at load_model); packing follows it.
  Isa isa() const { return isa_; }
  // "squeezenet.param:12: layer 'conv1' (Convolution)" (line or byte offset when known).
  std::string layer_location(size_t index) const;
  // Residual fusion (Option::use_residual_fusion): the Convolution layer a blob was fused
  // into (the blob is no longer computed), or -1.
  int fused_into(int blob) const { return blob >= 0 && static_cast<size_t>(blob) < fused_into_.size() ? fused_into_[blob] : -1; }

 protected:
  // Forces elempack 1 and fp32 between layers whatever `opt` says (the reference executor).
  bool plain_layout_ = false;

 private:
  friend class Extractor;
  void load_graph(ParamGraph graph, const std::string& source);
  void destroy_pipelines();
  void fuse_residuals();  // runtime/net_fusion.cpp

  LayerCreator creator_;
  std::string missing_message_;
  std::string param_source_;
  ParamGraph graph_;
  std::vector<std::unique_ptr<Layer>> layers_;
  std::vector<Mat> blob_hints_;
  std::vector<int> producer_;               // per blob: its layer, -1 when none
  std::vector<int> consumer_count_;         // per blob: bottoms naming it (with repeats)
  std::vector<int> fused_into_;             // per blob: the layer that fused it away, -1
  std::shared_ptr<const MappedFile> mapping_;
  size_t unread_model_bytes_ = 0;
  Isa isa_ = Isa::scalar;
  Option pipeline_opt_;
  std::unique_ptr<PoolAllocator> workspace_pool_;  // Option::use_local_pool_allocator
  std::unique_ptr<PoolAllocator> blob_pool_;       // the same, for blobs between layers
  size_t pipelines_ = 0;                    // layers whose create_pipeline ran
  bool ready_ = false;
};

}  // namespace jitconv

#include "runtime/extractor.h"  // Extractor is part of the Net API (create_extractor returns one)
