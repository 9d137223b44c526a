#include "runtime/model_random.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "runtime/error.h"

namespace jitconv {

namespace {

struct Range {
  float lo, hi;
};

bool is_weighted_conv(const std::string& type) {
  return type == "Convolution" || type == "ConvolutionDepthWise" || type == "InnerProduct" ||
         type == "Deconvolution" || type == "DeconvolutionDepthWise";
}

bool is_rectifier_layer(const std::string& type) {
  return type == "ReLU" || type == "Clip" || type == "HardSwish" || type == "Mish" || type == "Swish" ||
         type == "PReLU" || type == "ELU" || type == "GELU";
}

bool is_rectifier_activation(int activation_type) {
  return activation_type == 1 || activation_type == 2 || activation_type == 3 || activation_type == 5 ||
         activation_type == 6;
}

// The distribution of buffer `k` that `layer` loads.
Range range_for(const ParamLayer& layer, int k, float gain) {
  const std::string& type = layer.type;
  if (is_weighted_conv(type)) {
    if (k == 0) {
      const int num_output = std::max(1, layer.params.get(0, 1));
      const int weight_data_size = layer.params.get(type == "InnerProduct" ? 2 : 6, 1);
      double fan_in = std::max(1, weight_data_size) / static_cast<double>(num_output);
      if (type == "Deconvolution" || type == "DeconvolutionDepthWise") {
        const int stride_w = std::max(1, layer.params.get(3, 1));
        const int stride_h = std::max(1, layer.params.get(13, stride_w));
        fan_in = std::max(1.0, fan_in / (static_cast<double>(stride_w) * stride_h));  // strides may be huge
      }
      const float a = static_cast<float>(std::sqrt(3.0 * gain / fan_in));
      return {-a, a};
    }
    if (k == 1) return {-0.1f, 0.1f};
    return {0.5f, 1.5f};
  }
  if (type == "BatchNorm") {
    static const Range kBatchNorm[4] = {{0.8f, 1.2f}, {-0.1f, 0.1f}, {0.8f, 1.2f}, {-0.1f, 0.1f}};
    return kBatchNorm[std::min(k, 3)];
  }
  if (type == "Scale") return k == 0 ? Range{0.8f, 1.2f} : Range{-0.1f, 0.1f};
  if (type == "Bias") return {-0.1f, 0.1f};
  if (type == "PReLU") return {0.f, 0.5f};  // learned slopes sit around the 0.25 they start from
  return {-1.f, 1.f};
}

}  // namespace

class RandomWeights::LayerBin final : public ModelBin {
 public:
  LayerBin(RandomWeights& owner, const ParamLayer& layer, uint32_t seed, float gain)
      : owner_(owner), layer_(layer), rng_(seed), gain_(gain) {}

  Mat load(int w, int type) const override {
    if (w <= 0) fail("random weights for ", describe_layer(layer_), ": buffer #", next_, " has ", w, " values");
    const Range range = range_for(layer_, next_++, gain_);
    std::uniform_real_distribution<float> dist(range.lo, range.hi);
    Mat m(w);
    float* values = m;
    for (int i = 0; i < w; i++) values[i] = dist(rng_);
    if (owner_.record_) owner_.recorded_.push_back({m, type});
    return m;
  }
  using ModelBin::load;

 private:
  RandomWeights& owner_;
  const ParamLayer& layer_;
  mutable std::mt19937 rng_;
  float gain_;
  mutable int next_ = 0;
};

RandomWeights::RandomWeights(const ParamGraph& graph, uint32_t seed) : graph_(graph), seed_(seed) {
  const size_t blobs = graph.blob_names.size();
  consumer_count_.assign(blobs, 0);
  single_consumer_.assign(blobs, -1);
  for (size_t i = 0; i < graph.layers.size(); i++)
    for (int b : graph.layers[i].bottoms) {
      if (b < 0 || static_cast<size_t>(b) >= blobs) continue;
      consumer_count_[b]++;
      single_consumer_[b] = static_cast<int>(i);
    }
}

RandomWeights::~RandomWeights() = default;

float RandomWeights::gain_for(size_t index) const {
  const ParamLayer& layer = graph_.layers[index];
  if (is_rectifier_activation(layer.params.get(9, 0))) return 2.f;
  if (layer.tops.size() != 1) return 1.f;
  const int top = layer.tops[0];
  if (top < 0 || static_cast<size_t>(top) >= consumer_count_.size() || consumer_count_[top] != 1) return 1.f;
  return is_rectifier_layer(graph_.layers[single_consumer_[top]].type) ? 2.f : 1.f;
}

const ModelBin& RandomWeights::layer_weights(size_t index, const ParamLayer& layer) {
  if (index >= graph_.layers.size()) fail("random weights: layer index ", index, " outside the graph");
  // splitmix-style mixing keeps neighbouring layer indices' streams unrelated.
  uint64_t z = (static_cast<uint64_t>(seed_) << 32) ^ (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  current_ = std::make_unique<LayerBin>(*this, layer, static_cast<uint32_t>(z), gain_for(index));
  return *current_;
}

void RandomWeights::write_bin(ModelBinWriter& writer) const {
  for (const Recorded& r : recorded_) writer.write(r.values, r.type, ModelBinWriter::Storage::fp32);
}

void RandomWeights::write_bin(const std::string& path) const {
  ModelBinWriter writer;
  write_bin(writer);
  writer.save(path);
}

}  // namespace jitconv
