// Internal: what the optimizer passes share (matching neighbours, moving blobs, reading
// the weights of Convolution-like layers).
#pragma once
#include <string>
#include <vector>

#include "runtime/optimizer_passes.h"

namespace jitconv {
namespace passes {

// The parameter ids of a WeightedLayer kind.
struct WeightedInfo {
  const char* type;       // "Convolution"
  const char* pass_name;  // "convolution", as in fuse_convolution_batchnorm
  int bias_term_id;
  int weight_size_id;
  int int8_id;     // -1: the type has no int8 form
  int dynamic_id;  // -1: the type has no dynamic weights
};
const WeightedInfo& weighted_info(WeightedLayer kind);

// The layer that reads layer i's only top blob, when it is that blob's only reader and
// has one bottom and one top itself; else -1.
int sole_successor(const ModelGraph& graph, size_t i);
// Layer i takes over layer j's top and j is removed (j must be i's sole successor).
void absorb_successor(ModelGraph& graph, size_t i, size_t j);
// Removes pass-through layer j (bottom b, top t; b read by j alone): b's producer writes
// t instead, or, when that producer is an Input, t's readers read b. Returns the producer
// of b, or -1 (nothing changed) when b has no producer or another reader.
int bypass(ModelGraph& graph, size_t j);

// The buffer's values for writing, after making it private to this graph (a copied
// ModelGraph shares its buffers with the original).
float* writable(Mat& m);

// The scalars of a 1-D fp32 weight buffer.
std::vector<float> values_of(const Mat& m);

// The per-output-channel view of a Convolution-like layer's fp32 weights:
//   weight[o * per_output + k]   bias[o] (weights[1], when bias_term)
struct WeightedView {
  int num_output = 0;
  int per_output = 0;
  float* weight = nullptr;
  float* bias = nullptr;
};
// ncnn's activation_type / activation_params ids, the same in every WeightedLayer.
constexpr int kActivationTypeId = 9;
constexpr int kActivationParamsId = 10;

// Fills `view` (with writable buffers) and returns true when layer i's weights can take
// folded constants: fp32, static, consistent with num_output and weight_data_size, and,
// unless allow_activation, no fused activation (a constant after it cannot move before).
bool weighted_view(ModelGraph& graph, size_t i, const WeightedInfo& info, WeightedView& view,
                   bool allow_activation = false);
// Gives layer i a zero bias (weights[1], bias_term = 1) when it has none; updates view.bias.
void ensure_bias(ModelGraph& graph, size_t i, const WeightedInfo& info, WeightedView& view);

// Whether per-channel constants after layer i line up with its output channels: always
// for convolutions (a 3-D output, or a 1-D one from a 1-D input, one value per channel);
// for an InnerProduct only with a 1-D output. Unknown shapes answer false after logging
// why `pass` skipped the pair.
bool channels_line_up(const ModelGraph& graph, size_t i, WeightedLayer kind, const std::string& pass,
                      const std::string& second, OptimizeLog& log);

}  // namespace passes
}  // namespace jitconv
