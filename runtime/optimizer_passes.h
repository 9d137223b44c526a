// The rewrites of the optimizer, after ncnn's ncnnoptimize. Each pass walks the live
// layers in graph order, rewrites every match, logs one line per rewrite in ncnnoptimize's
// words ("fuse_convolution_batchnorm conv1 bn1") and returns how many it made.
//
// A pass only fires when the blob between the layers it merges has exactly one reader, so
// a value another layer still needs is never changed or removed. When a layer absorbs the
// one after it, it takes over that layer's top blob (the later name survives: it may be a
// network output); when a pass-through layer goes, its producer takes over its top,
// except that an Input's blob keeps its name (its readers are moved to it instead).
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/optimizer_graph.h"

namespace jitconv {

// Where passes report; every line is kept and also handed to the sink, if any.
class OptimizeLog {
 public:
  explicit OptimizeLog(std::function<void(const std::string&)> sink = nullptr) : sink_(std::move(sink)) {}
  void line(const std::string& text);
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  std::function<void(const std::string&)> sink_;
  std::vector<std::string> lines_;
};

// The layers whose weights and bias absorb per-output-channel constants and activations.
enum class WeightedLayer { convolution, convolution_depthwise, deconvolution, deconvolution_depthwise, inner_product };
constexpr WeightedLayer kWeightedLayers[] = {WeightedLayer::convolution, WeightedLayer::convolution_depthwise,
                                             WeightedLayer::deconvolution, WeightedLayer::deconvolution_depthwise,
                                             WeightedLayer::inner_product};

// BatchNorm - Scale: the Scale's factors and bias go into the BatchNorm's slope and bias.
int fuse_batchnorm_scale(ModelGraph& graph, OptimizeLog& log);

// X - BatchNorm, X - BinaryOp mul / add with a MemoryData of num_output values (or, for
// add, [1,1,num_output] before a 3-D output), X - Bias:
// folded into X's weights and bias (a bias is created when X has none). X's weights must
// be fp32 (not int8) and static (not dynamic_weight), and X must have no fused activation
// yet (a constant applied after it cannot move before it). An InnerProduct only takes them
// when its output is known to be 1-D (a 2-D batch of rows would see them per row); the
// pass says so when the shape is unknown. A deconvolution's output padding (params 18/19)
// holds its activated bias, as in current ncnn, so the folds apply there too.
int fuse_batchnorm(ModelGraph& graph, WeightedLayer kind, OptimizeLog& log);
int fuse_mul(ModelGraph& graph, WeightedLayer kind, OptimizeLog& log);
int fuse_add(ModelGraph& graph, WeightedLayer kind, OptimizeLog& log);
int fuse_bias(ModelGraph& graph, WeightedLayer kind, OptimizeLog& log);
// X - ReLU (leaky when its slope is not 0) / Clip / Sigmoid / Mish / HardSwish, when X
// has no activation yet: activation_type 1-6 and activation_params (ids 9 and 10). A
// requantizing int8 layer (int8_scale_term > 100) takes ReLU only: it activates before
// rounding to the next layer's scale, the activation layer after.
int fuse_activation(ModelGraph& graph, WeightedLayer kind, OptimizeLog& log);

// A scalar MemoryData (w=1, no h/d/c) read by a BinaryOp, directly or through a Split,
// becomes the BinaryOp's with_scalar operand. Commutative ops (add, mul, max, min) take
// it from either side; with the scalar first, sub becomes rsub and div rdiv; other ops
// are left alone. Through a Split, each fused reader's Split output goes; a Split left
// without outputs goes with its MemoryData.
int fuse_memorydata_binaryop(ModelGraph& graph, OptimizeLog& log);

// Pass-through layers: Dropout with scale 1, Noop (one input; or none, when nothing reads
// its outputs), 1x1 stride-1 unpadded Pooling, a Split with one output still read, a
// Flatten after global pooling (whose output is 1-D already).
int eliminate_dropout(ModelGraph& graph, OptimizeLog& log);
int eliminate_noop(ModelGraph& graph, OptimizeLog& log);
int eliminate_pooling1x1(ModelGraph& graph, OptimizeLog& log);
int eliminate_split(ModelGraph& graph, OptimizeLog& log);
int eliminate_flatten_after_global_pooling(ModelGraph& graph, OptimizeLog& log);
// A MemoryData nothing reads any more.
int eliminate_orphaned_memorydata(ModelGraph& graph, OptimizeLog& log);
// Global pooling - 1x1 unpadded fp32 Convolution: the convolution of a 1-D blob is an
// InnerProduct with the same weights, bias and activation.
int replace_convolution_with_innerproduct_after_global_pooling(ModelGraph& graph, OptimizeLog& log);

}  // namespace jitconv
