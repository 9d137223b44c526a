// libFuzzer target for whole models: a .param text and its .bin, parsed, then every layer
// created, given its parameters and weights, and its pipeline built — what a Net does
// before running anything. Input: 4 bytes little-endian length L, L bytes of .param
// text, the rest the .bin. Only jitconv::Error with a non-empty message may escape.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "loader/model_bin_reader.h"
#include "loader/param_parser.h"
#include "runtime/error.h"
#include "runtime/layer_registry.h"

namespace {

// Layers whose weights would take long to transform are skipped: the fuzzer looks for
// crashes in parsing and construction, not for big allocations. Only the weight counts
// are limited: huge num_output or kernel sizes must still be rejected cleanly (a filter
// on those hid int overflows in Convolution, Deconvolution and YoloDetectionOutput), and
// the .bin's size already bounds what a layer can load.
constexpr int kMaxWeightValues = 1 << 16;

bool too_big(const jitconv::ParamLayer& layer) {
  for (int id : {2, 6}) {  // weight_data_size (InnerProduct, convolutions)
    const int v = layer.params.get(id, 0);
    if (v > kMaxWeightValues || v < -kMaxWeightValues) return true;
  }
  return false;
}

void expect_message(const jitconv::Error& e) {
  if (std::strlen(e.what()) == 0) abort();  // every rejection must say why
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  uint32_t param_len = 0;
  std::memcpy(&param_len, data, 4);
  if (param_len > size - 4) return 0;
  const std::string param(reinterpret_cast<const char*>(data + 4), param_len);
  std::vector<unsigned char> bin(data + 4 + param_len, data + size);  // exact size: reads past the end are seen
  jitconv::ParamGraph graph;
  try {
    graph = jitconv::parse_param_text(param, "fuzz.param");
  } catch (const jitconv::Error& e) {
    expect_message(e);
    return 0;
  }
  jitconv::DataReaderFromMemory reader(bin.data(), bin.size());
  jitconv::ModelBinFromDataReader mb(reader);
  jitconv::Option opt;
  opt.num_threads = 1;
  for (const jitconv::ParamLayer& pl : graph.layers) {
    if (too_big(pl)) return 0;
    std::unique_ptr<jitconv::Layer> layer = jitconv::create_layer(pl.type);
    if (!layer) return 0;  // the Net reports unknown types itself
    layer->name = pl.name;
    try {
      mb.set_context(jitconv::describe_layer(pl));
      layer->load_param(pl.params);
      layer->load_model(mb);
      layer->create_pipeline(opt);
      layer->destroy_pipeline(opt);
    } catch (const jitconv::Error& e) {
      expect_message(e);
      return 0;
    }
  }
  return 0;
}
