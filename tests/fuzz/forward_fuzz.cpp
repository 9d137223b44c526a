// libFuzzer target for running models: a .param text and its .bin loaded into a Net, then
// every input fed a seeded tensor and every blob extracted. Same input format as the model
// target (model_input.h); that
// one stops after create_pipeline, this one runs forward, where layers meet shapes their
// parameters did not promise (a 1x1 input to a 3x3 convolution, mismatched Concat or
// Eltwise operands, a Reshape to the wrong count). Only jitconv::Error with a non-empty
// message may escape.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "loader/param_parser.h"
#include "runtime/allocator.h"
#include "runtime/error.h"
#include "runtime/extractor.h"
#include "runtime/net.h"
#include "tests/fuzz/model_input.h"

namespace {

// Input extents are clamped to this: any shape a user gives must run or be rejected, and
// small ones keep each run short.
constexpr int kMaxInputExtent = 24;
// Blobs past this many bytes are refused by the allocator below with a jitconv::Error, as
// a failed allocation would be: a 16-byte .param may legitimately ask for a 1e6 x 1e6
// Interp output, which is not a bug to report but would stop the fuzzer.
constexpr size_t kMaxBlockBytes = size_t(64) << 20;

class CappedAllocator final : public jitconv::Allocator {
 public:
  void* fast_malloc(size_t size) override {
    if (size > kMaxBlockBytes) jitconv::fail("fuzz allocator: ", size, " bytes refused");
    return jitconv::aligned_malloc(size);
  }
  void fast_free(void* ptr) override { jitconv::aligned_free(ptr); }
};

using jitconv::fuzz::expect_message;

bool too_big(const jitconv::ParamGraph& graph) {
  for (const jitconv::ParamLayer& layer : graph.layers)
    if (jitconv::fuzz::too_big(layer)) return true;
  return false;
}

jitconv::Mat seeded_input(const jitconv::Mat& declared, uint32_t seed) {
  auto clamp = [](int v) { return v < 1 ? 1 : v > kMaxInputExtent ? kMaxInputExtent : v; };
  jitconv::Mat m;
  const int dims = declared.dims == 0 ? 3 : declared.dims;  // undeclared: a small image
  const int w = clamp(declared.dims ? declared.w : 7), h = clamp(declared.dims ? declared.h : 5);
  const int d = clamp(declared.dims ? declared.d : 1), c = clamp(declared.dims ? declared.c : 3);
  switch (dims) {
    case 1: m.create(w); break;
    case 2: m.create(w, h); break;
    case 3: m.create(w, h, c); break;
    default: m.create(w, h, d, c); break;
  }
  uint32_t state = seed * 2654435761u + 1;
  const int channels = dims >= 3 ? m.c : 1;
  const size_t plane = dims >= 3 ? static_cast<size_t>(m.w) * m.h * m.d : static_cast<size_t>(m.w) * m.h;
  for (int q = 0; q < channels; q++) {
    float* p = static_cast<float*>(m.data) + m.cstep * q;
    for (size_t i = 0; i < plane; i++) {
      state = state * 1664525u + 1013904223u;
      p[i] = static_cast<float>(static_cast<int32_t>(state >> 8) - (1 << 23)) / static_cast<float>(1 << 23);
    }
  }
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  jitconv::fuzz::ModelInput input;
  if (!jitconv::fuzz::split_model_input(data, size, input)) return 0;
  static CappedAllocator allocator;
  try {
    jitconv::Net net;
    net.opt.num_threads = 1;
    net.opt.blob_allocator = &allocator;
    net.opt.workspace_allocator = &allocator;
    jitconv::ParamGraph graph = jitconv::parse_param_text(input.param, "fuzz.param");
    if (too_big(graph)) return 0;
    net.load_param(graph, "fuzz.param");
    net.load_model_mem(input.bin.data(), input.bin.size());
    jitconv::Extractor ex = net.create_extractor();
    const std::vector<std::string> inputs = net.input_names();
    for (size_t i = 0; i < inputs.size(); i++)
      ex.input(inputs[i], seeded_input(net.input_shape(net.find_blob(inputs[i])), static_cast<uint32_t>(i)));
    for (size_t b = 0; b < net.blob_count(); b++) {
      jitconv::Mat out;
      try {
        ex.extract(net.blob_name(static_cast<int>(b)), out);
      } catch (const jitconv::Error& e) {
        expect_message(e);  // one blob's failure leaves the others to try
      }
    }
  } catch (const jitconv::Error& e) {
    expect_message(e);
  }
  return 0;
}
