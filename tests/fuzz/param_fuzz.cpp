// libFuzzer target for the .param parsers and writers. The first input byte picks the
// parser (even: text, odd: binary); the rest is the file. A parsed graph must be written
// and read back equal; anything other than a jitconv::Error escaping is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "loader/model_writer.h"
#include "loader/param_parser.h"
#include "runtime/error.h"

namespace {

void require(bool condition) {
  if (!condition) abort();
}

void check_round_trip(const jitconv::ParamGraph& g) {
  try {
    const jitconv::ParamGraph back = jitconv::parse_param_text(jitconv::write_param_text(g));
    require(back.layers.size() == g.layers.size() && back.blob_names == g.blob_names);
    for (size_t i = 0; i < g.layers.size(); i++) require(back.layers[i].params.same_encoding(g.layers[i].params));
  } catch (const jitconv::Error&) {
    // Names or strings text cannot hold: refused, which is fine.
  }
  try {
    const std::vector<unsigned char> bytes = jitconv::write_param_binary(g);
    const jitconv::ParamGraph back = jitconv::parse_param_binary(bytes.data(), bytes.size());
    require(back.layers.size() == g.layers.size() && back.blob_names.size() == g.blob_names.size());
    for (size_t i = 0; i < g.layers.size(); i++) require(back.layers[i].params.same_encoding(g.layers[i].params));
  } catch (const jitconv::Error&) {
    // Types without an ncnn index: refused.
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool binary = data[0] & 1;
  // An exact-size copy so the sanitizer sees any read past the end.
  std::vector<unsigned char> file(data + 1, data + size);
  try {
    jitconv::DataReaderFromMemory reader(file.data(), file.size());
    const jitconv::ParamGraph g =
        binary ? jitconv::parse_param_binary(reader, "fuzz") : jitconv::parse_param_text(reader, "fuzz");
    check_round_trip(g);
  } catch (const jitconv::Error&) {
  }
  return 0;
}
