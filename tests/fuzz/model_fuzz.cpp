// libFuzzer target for whole models: a .param text and its .bin, parsed, then every layer
// created, given its parameters and weights, and its pipeline built — what a Net does
// before running anything. Input: 4 bytes little-endian length L, L bytes of .param
// text, the rest the .bin. Only jitconv::Error with a non-empty message may escape.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "loader/model_bin_reader.h"
#include "loader/param_parser.h"
#include "runtime/error.h"
#include "runtime/layer_registry.h"
#include "tests/fuzz/model_input.h"

using jitconv::fuzz::expect_message;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  jitconv::fuzz::ModelInput input;
  if (!jitconv::fuzz::split_model_input(data, size, input)) return 0;
  jitconv::ParamGraph graph;
  try {
    graph = jitconv::parse_param_text(input.param, "fuzz.param");
  } catch (const jitconv::Error& e) {
    expect_message(e);
    return 0;
  }
  jitconv::DataReaderFromMemory reader(input.bin.data(), input.bin.size());
  jitconv::ModelBinFromDataReader mb(reader);
  jitconv::Option opt;
  opt.num_threads = 1;
  for (const jitconv::ParamLayer& pl : graph.layers) {
    if (jitconv::fuzz::too_big(pl)) return 0;
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
