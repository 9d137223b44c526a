// Seeded random weights for running a .param file without its .bin (`jitconv run`,
// `jitconv benchmodel`, the model tests).
//
// Every layer draws from its own generator, seeded from (seed, layer index), so a layer's
// weights do not depend on the layers before it. Values are uniform, scaled so that
// activations stay O(1) through deep networks:
//
//   Convolution, ConvolutionDepthWise, InnerProduct   weights U(-a, a), a = sqrt(3 g / fan_in)
//   Deconvolution, DeconvolutionDepthWise             (variance g / fan_in: LeCun for g = 1,
//                                                      He for g = 2)
//       fan_in = weight_data_size (param 6; 2 for InnerProduct) / num_output (the inputs
//                feeding one output), divided by
//                stride_w * stride_h for deconvolutions (each output sees that share of taps)
//       g = 2 when a rectifier follows (fused activation 1-3, 5, 6, or a ReLU, Clip,
//           HardSwish, Mish, Swish, PReLU, ELU or GELU layer as the only consumer), else 1
//       bias and any later buffer (int8 scales): U(-0.1, 0.1) and U(0.5, 1.5)
//   BatchNorm   slope U(0.8, 1.2), mean U(-0.1, 0.1), variance U(0.8, 1.2), bias U(-0.1, 0.1)
//   Scale       scale U(0.8, 1.2), bias U(-0.1, 0.1)
//   Bias        U(-0.1, 0.1)
//   PReLU       slopes U(0, 0.5)
//   anything else (MemoryData, ...)   U(-1, 1)
//
// With record_weights() on, every buffer handed out is kept (with its load type) so
// write_bin() can save them as an ncnn .bin that loads back to the same values.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "loader/model_writer.h"
#include "runtime/weight_source.h"

namespace jitconv {

class RandomWeights final : public WeightSource {
 public:
  // graph must outlive this object.
  RandomWeights(const ParamGraph& graph, uint32_t seed);
  ~RandomWeights() override;

  const ModelBin& layer_weights(size_t index, const ParamLayer& layer) override;

  void record_weights(bool on) { record_ = on; }
  // The recorded buffers in load order, written as fp32 (type 0 with a zero flag word,
  // type 1 raw): the .bin ncnn would read for the same values.
  void write_bin(ModelBinWriter& writer) const;
  void write_bin(const std::string& path) const;

 private:
  class LayerBin;
  struct Recorded {
    Mat values;
    int type;
  };
  float gain_for(size_t index) const;

  const ParamGraph& graph_;
  uint32_t seed_;
  bool record_ = false;
  std::vector<int> consumer_count_;      // per blob
  std::vector<int> single_consumer_;     // per blob: the consuming layer when exactly one
  std::unique_ptr<LayerBin> current_;
  std::vector<Recorded> recorded_;
};

}  // namespace jitconv
