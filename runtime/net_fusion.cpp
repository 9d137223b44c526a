// Residual fusion at load_model: Convolution -> Eltwise(sum) [-> ReLU] becomes one
// Convolution with bottoms {input, shortcut} whose kernels add the shortcut before the
// activation (layers::Convolution::fuse_residual). In ResNets this removes the Eltwise and
// ReLU passes over every block's output: two reads and a write of the conv output, a read
// of the shortcut, and the ReLU's read and write, become one read of the shortcut inside
// the convolution's epilogue.
//
// The graph itself (graph_) is left as parsed; only the layers' bottoms/tops and the blob
// bookkeeping change. The Eltwise and ReLU keep no bottoms or tops, so they never run.
#include <vector>

#include "runtime/error.h"
#include "runtime/layers/convolution.h"
#include "runtime/net.h"

namespace jitconv {

namespace {

bool is_plain_sum(const ParamDict& pd) {
  if (pd.get(0, 0) != 1) return false;  // op_type 1 = SUM
  for (float c : pd.get_floats(1))
    if (c != 1.f) return false;
  return true;
}

}  // namespace

void Net::fuse_residuals() {
  const size_t blobs = graph_.blob_names.size();
  std::vector<std::vector<int>> consumers(blobs);
  for (size_t i = 0; i < layers_.size(); i++)
    for (int b : layers_[i]->bottoms) consumers[b].push_back(static_cast<int>(i));

  for (size_t e = 0; e < layers_.size(); e++) {
    Layer& eltwise = *layers_[e];
    if (eltwise.type != "Eltwise" || eltwise.bottoms.size() != 2 || eltwise.tops.size() != 1) continue;
    if (eltwise.bottoms[0] == eltwise.bottoms[1] || !is_plain_sum(graph_.layers[e].params)) continue;
    if (eltwise.tops[0] == eltwise.bottoms[0] || eltwise.tops[0] == eltwise.bottoms[1]) continue;
    // The convolution operand: a single-output fp32 Convolution without its own
    // activation whose result only this Eltwise reads. With two candidates take the
    // later one (the block's main branch; the shortcut is then ready when it runs).
    int conv_index = -1, conv_operand = -1;
    for (int k = 0; k < 2; k++) {
      const int x = eltwise.bottoms[k];
      const int p = producer_[x];
      if (p < 0 || consumer_count_[x] != 1) continue;
      auto* conv = dynamic_cast<layers::Convolution*>(layers_[p].get());
      if (!conv || conv->type != "Convolution" || conv->dynamic_weight || conv->int8_scale_term != 0 ||
          conv->activation_type != 0 || conv->fuse_residual || conv->bottoms.size() != 1 || conv->tops.size() != 1)
        continue;
      if (p > conv_index) {
        conv_index = p;
        conv_operand = k;
      }
    }
    if (conv_index < 0) continue;
    auto& conv = static_cast<layers::Convolution&>(*layers_[conv_index]);
    const int conv_out = eltwise.bottoms[conv_operand];
    const int shortcut = eltwise.bottoms[1 - conv_operand];
    int result = eltwise.tops[0];

    // A following ReLU that only this sum feeds becomes the convolution's activation.
    int relu_index = -1;
    if (consumer_count_[result] == 1 && consumers[result].size() == 1) {
      const int r = consumers[result][0];
      Layer& relu = *layers_[r];
      if (relu.type == "ReLU" && relu.bottoms.size() == 1 && relu.tops.size() == 1 && relu.tops[0] != result)
        relu_index = r;
    }
    if (relu_index >= 0) {
      const float slope = graph_.layers[relu_index].params.get(0, 0.f);
      if (slope == 0.f) {
        conv.activation_type = 1;
      } else {
        conv.activation_type = 2;
        conv.activation_params = {slope};
      }
      fused_into_[result] = conv_index;
      result = layers_[relu_index]->tops[0];
      layers_[relu_index]->bottoms.clear();
      layers_[relu_index]->tops.clear();
    }

    conv.fuse_residual = true;
    conv.one_blob_only = false;
    conv.bottoms.push_back(shortcut);
    conv.bottom_shapes.resize(1);
    conv.bottom_shapes.push_back(blob_hints_[shortcut]);
    conv.tops = {result};
    conv.top_shapes = {blob_hints_[result]};
    fused_into_[conv_out] = conv_index;
    producer_[conv_out] = -1;
    consumer_count_[conv_out] = 0;
    if (relu_index >= 0) {
      producer_[eltwise.tops[0]] = -1;
      consumer_count_[eltwise.tops[0]] = 0;
    }
    producer_[result] = conv_index;
    // The shortcut is still read once, now by the convolution.
    for (int& c : consumers[shortcut])
      if (c == static_cast<int>(e)) c = conv_index;
    eltwise.bottoms.clear();
    eltwise.tops.clear();
  }
}

}  // namespace jitconv
