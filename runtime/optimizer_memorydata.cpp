// fuse_memorydata_binaryop: a scalar MemoryData becomes the with_scalar operand of the
// BinaryOps reading it, directly or through a Split.
#include "runtime/error.h"
#include "runtime/optimizer_pass_util.h"

namespace jitconv {

namespace {

// ncnn's BinaryOp op_type values.
enum BinaryOpType { kAdd = 0, kSub = 1, kMul = 2, kDiv = 3, kMax = 4, kMin = 5, kRsub = 7, kRdiv = 8 };

// The value of a live MemoryData holding one scalar (w=1, h=d=c=0).
bool scalar_memorydata(const GraphLayer& md, float& value) {
  if (md.fused || md.type != "MemoryData" || md.tops.size() != 1) return false;
  const ParamDict& pd = md.params;
  if (pd.get(0, 0) != 1 || pd.get(1, 0) != 0 || pd.get(11, 0) != 0 || pd.get(2, 0) != 0) return false;
  if (md.weights.size() != 1) return false;
  const Mat& data = md.weights[0].data;
  if (data.data == nullptr || data.elemsize != 4 || data.w * data.h * data.d * data.c != 1) return false;
  value = data[0];
  return true;
}

// Rewrites BinaryOp `op`, which reads `blob` (holding `value`) once, into its with_scalar
// form without that input. False, with `op` untouched, when it cannot take the scalar
// from that side.
bool take_scalar(GraphLayer& op, int blob, float value) {
  if (op.fused || op.type != "BinaryOp" || op.bottoms.size() != 2 || op.tops.size() != 1) return false;
  if (op.params.get(1, 0) != 0) return false;
  int op_type = op.params.get(0, 0);
  size_t index = 1;
  if (op.bottoms[0] == blob) {
    index = 0;
    switch (op_type) {
      case kAdd:
      case kMul:
      case kMax:
      case kMin: break;
      case kSub: op_type = kRsub; break;
      case kDiv: op_type = kRdiv; break;
      default: return false;  // pow, atan2, ... have no swapped form
    }
  }
  op.params.set(0, op_type);
  op.params.set(1, 1);
  op.params.set(2, value);
  op.bottoms.erase(op.bottoms.begin() + static_cast<long>(index));
  return true;
}

// MemoryData - Split - BinaryOps: fuses every BinaryOp that may take the scalar,
// starting over after each change (the Split's outputs shift).
int fuse_through_split(ModelGraph& graph, size_t md_index, size_t split_index, float value, OptimizeLog& log) {
  GraphLayer& md = graph.layers[md_index];
  GraphLayer& split = graph.layers[split_index];
  int fused = 0;
  bool changed = true;
  while (changed && !split.fused) {
    changed = false;
    for (size_t k = 0; k < split.tops.size() && !changed; k++) {
      const int reader = graph.sole_consumer(split.tops[k]);
      if (reader < 0 || !take_scalar(graph.layers[reader], split.tops[k], value)) continue;
      log.line(str_cat("fuse_memorydata_binaryop ", md.name, " ", graph.layers[reader].name));
      split.tops.erase(split.tops.begin() + static_cast<long>(k));
      if (split.tops.empty()) split.fused = md.fused = true;
      changed = true;
      fused++;
    }
  }
  return fused;
}

}  // namespace

int fuse_memorydata_binaryop(ModelGraph& graph, OptimizeLog& log) {
  int fused = 0;
  for (size_t i = 0; i < graph.layers.size(); i++) {
    float value = 0.f;
    if (!scalar_memorydata(graph.layers[i], value)) continue;
    const int j = graph.sole_consumer(graph.layers[i].tops[0]);
    if (j < 0 || !take_scalar(graph.layers[j], graph.layers[i].tops[0], value)) continue;
    log.line(str_cat("fuse_memorydata_binaryop ", graph.layers[i].name, " ", graph.layers[j].name));
    graph.layers[i].fused = true;
    fused++;
  }
  for (size_t i = 0; i < graph.layers.size(); i++) {
    float value = 0.f;
    if (!scalar_memorydata(graph.layers[i], value)) continue;
    const int j = graph.sole_consumer(graph.layers[i].tops[0]);
    if (j < 0 || graph.layers[j].type != "Split" || graph.layers[j].bottoms.size() != 1) continue;
    fused += fuse_through_split(graph, i, static_cast<size_t>(j), value, log);
  }
  return fused;
}

}  // namespace jitconv
