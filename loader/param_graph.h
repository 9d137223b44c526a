// A parsed .param file: the layer list and blob names, nothing run yet.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "loader/param_dict.h"
#include "runtime/mat.h"

namespace jitconv {

constexpr int kParamMagic = 7767517;
// ncnn keeps at most 32 parameters per layer: ids 0..31.
constexpr int kParamIdCount = 32;
// Shape hints (-23330=n,... in text): 4 ints per top blob (dims, w, h, c).
constexpr int kShapeHintParamId = 30;
// Text `-233xx=` and binary array ids: id = -key - kArrayKeyBase.
constexpr int kArrayKeyBase = 23300;
// Binary string ids: id = -key - kStringKeyBase.
constexpr int kStringKeyBase = 23400;
// Binary end-of-parameters marker.
constexpr int kParamEndKey = -233;
// Longest string parameter ncnn reads.
constexpr size_t kMaxParamStringLength = 255;

struct ParamLayer {
  std::string type;
  std::string name;
  std::vector<int> bottoms;  // blob indices
  std::vector<int> tops;
  ParamDict params;
  int line = 0;       // text: 1-based line of the layer; binary: 0
  size_t offset = 0;  // binary: byte offset of the layer record; text: 0
};

struct ParamGraph {
  std::vector<ParamLayer> layers;
  std::vector<std::string> blob_names;  // blob index = position

  int find_blob(const std::string& name) const;   // -1 when absent
  int find_layer(const std::string& name) const;  // -1 when absent
};

// Throws a jitconv::Error naming the first layer that breaks a rule the parsers enforce:
// blob indices in range, every blob produced exactly once, bottoms produced by an
// earlier layer, unique non-empty layer names, parameter ids 0..31.
void validate_graph(const ParamGraph& graph);

// How a layer is named in messages: "layer 'conv1' (Convolution)".
std::string describe_layer(const ParamLayer& layer);

struct ShapeHint {
  int dims = 0;  // 0: unknown
  int w = 0;
  int h = 0;
  int c = 0;
  bool operator==(const ShapeHint& o) const { return dims == o.dims && w == o.w && h == o.h && c == o.c; }
};

// One hint per top blob from parameter 30, or an empty vector when the layer has none.
// A dims of 4 (what ncnnoptimize writes for a 4-D blob, without its depth) reads as
// unknown, as ncnn applies dims 1..3 only. Throws when the array does not hold 4 ints per
// top, a dims is outside 0..4, or an extent of a known shape is not positive. (ncnn
// silently ignores those too; a graph carrying one is more likely damaged than
// meaningful.)
std::vector<ShapeHint> decode_shape_hints(const ParamLayer& layer);
// The same hints as shape-only Mats (data == nullptr, elemsize 4); an unknown shape is
// a default Mat.
std::vector<Mat> shape_hint_mats(const ParamLayer& layer);
// Stores hints as parameter 30 (one per top blob).
void set_shape_hints(ParamLayer& layer, const std::vector<ShapeHint>& hints);

}  // namespace jitconv
