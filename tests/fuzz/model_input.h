// What the model and forward fuzz targets share: their input format (4 bytes little-endian
// length L, L bytes of .param text, the rest the .bin), the filter on weight counts and
// the rule that every rejection says why.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "loader/param_graph.h"
#include "runtime/error.h"

namespace jitconv {
namespace fuzz {

struct ModelInput {
  std::string param;
  std::vector<unsigned char> bin;  // exact size: reads past the end are seen
};

// False when the input is too short for its own length field.
inline bool split_model_input(const uint8_t* data, size_t size, ModelInput& out) {
  if (size < 4) return false;
  uint32_t param_len = 0;
  std::memcpy(&param_len, data, 4);
  if (param_len > size - 4) return false;
  out.param.assign(reinterpret_cast<const char*>(data + 4), param_len);
  out.bin.assign(data + 4 + param_len, data + size);
  return true;
}

// Layers whose weights would take long to transform are skipped: the fuzzers look for
// crashes, not for big allocations. Only the weight counts are limited: huge num_output
// or kernel sizes must still be rejected cleanly (a filter on those hid int overflows in
// Convolution, Deconvolution and YoloDetectionOutput), and the .bin's size already bounds
// what a layer can load.
constexpr int kMaxWeightValues = 1 << 16;

inline bool too_big(const ParamLayer& layer) {
  for (int id : {2, 6}) {  // weight_data_size (InnerProduct, convolutions)
    // A string or an array there is for the layer to reject (with a message), not a size.
    const ParamDict::Type type = layer.params.type(id);
    if (type == ParamDict::Type::string_value || layer.params.is_array(id)) continue;
    const int v = layer.params.get(id, 0);
    if (v > kMaxWeightValues || v < -kMaxWeightValues) return true;
  }
  return false;
}

inline void expect_message(const Error& e) {
  if (std::strlen(e.what()) == 0) abort();  // every rejection must say why
}

}  // namespace fuzz
}  // namespace jitconv
