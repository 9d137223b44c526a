// Helpers for the data-group layer tests.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/layer_registry.h"
#include "tests/layer_tester.h"

namespace jitconv {
namespace test {

// A seeded random fp32 blob; extents listed by ncnn axis from the outermost, e.g.
// {c, h, w} for 3-D.
inline Mat random_axes(const std::vector<int>& len, uint32_t seed) {
  switch (len.size()) {
    case 1: return random_mat(len[0], seed);
    case 2: return random_mat(len[1], len[0], seed);
    case 3: return random_mat(len[2], len[1], len[0], seed);
    default: return random_mat4(len[3], len[2], len[1], len[0], seed);
  }
}

// Builds an optimized layer the way the Net does.
inline std::unique_ptr<Layer> make_layer(const std::string& type, const ParamDict& pd, int outputs = 0,
                                         const std::vector<Mat>& weights = {}) {
  std::unique_ptr<Layer> layer = create_layer(type);
  if (!layer) return layer;
  layer->name = type + "_test";
  for (int i = 0; i < outputs; i++) layer->tops.push_back(i);
  layer->load_param(pd);
  layer->load_model(ModelBinFromMatArray(weights));
  Option opt;
  layer->create_pipeline(opt);
  return layer;
}

// Multi-blob forward of an optimized layer with default options and two threads.
inline std::vector<Mat> forward_layer(const Layer& layer, const std::vector<Mat>& inputs) {
  Option opt;
  opt.num_threads = 2;
  std::vector<Mat> outputs;
  if (layer.support_inplace) {
    for (const Mat& in : inputs) outputs.push_back(in.clone());
    layer.forward_inplace(outputs, opt);
  } else {
    layer.forward(inputs, outputs, opt);
  }
  return outputs;
}

// Packs `m` (elempack 1) to `elempack` along its outermost axis, as the Net would.
inline Mat packed(const Mat& m, int elempack) {
  Option opt;
  Mat out;
  convert_packing(m, out, elempack, opt);
  return out;
}

inline Mat unpacked(const Mat& m) { return packed(m, 1); }

// True when both hold the same shape and bit-identical scalars (any elempack).
inline ::testing::AssertionResult same_blob(const Mat& got_any, const Mat& want_any) {
  const Mat got = unpacked(got_any), want = unpacked(want_any);
  if (got.dims != want.dims || got.w != want.w || got.h != want.h || got.d != want.d || got.c != want.c ||
      got.elemsize != want.elemsize)
    return ::testing::AssertionFailure() << "shape " << got.w << "x" << got.h << "x" << got.d << "x" << got.c << " dims "
                                         << got.dims << " vs " << want.w << "x" << want.h << "x" << want.d << "x" << want.c
                                         << " dims " << want.dims;
  const size_t lanes = got.elemsize;
  const int channels = got.dims >= 3 ? got.c : 1;
  const size_t plane = (got.dims >= 3 ? static_cast<size_t>(got.w) * got.h * got.d : static_cast<size_t>(got.w) * got.h);
  for (int q = 0; q < channels; q++) {
    const unsigned char* a = static_cast<const unsigned char*>(got.data) + got.cstep * q * lanes;
    const unsigned char* b = static_cast<const unsigned char*>(want.data) + want.cstep * q * lanes;
    for (size_t i = 0; i < plane * lanes; i++)
      if (a[i] != b[i]) return ::testing::AssertionFailure() << "byte " << i << " of channel " << q << " differs";
  }
  return ::testing::AssertionSuccess();
}

// Runs `fn` and checks it throws a jitconv::Error whose message contains every fragment.
template <typename Fn>
::testing::AssertionResult fails_with(Fn&& fn, const std::vector<std::string>& fragments) {
  try {
    fn();
  } catch (const Error& e) {
    const std::string what = e.what();
    for (const std::string& f : fragments)
      if (what.find(f) == std::string::npos)
        return ::testing::AssertionFailure() << "message \"" << what << "\" lacks \"" << f << "\"";
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "no jitconv::Error thrown";
}

}  // namespace test
}  // namespace jitconv
