// Helpers for the Net suites: loading models with seeded weights, feeding seeded inputs,
// running them and comparing whole-model outputs.
#pragma once
#include "reference/layer_ref_registry.h"
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/extractor.h"
#include "runtime/model_random.h"
#include "runtime/net.h"
#include "tests/test_util.h"

namespace jitconv {
namespace test {

inline std::string test_model_path(const std::string& name) {
  return std::string(JITCONV_SOURCE_DIR) + "/tests/models/" + name;
}

// load_param(path) and seeded random weights.
inline void load_random(Net& net, const std::string& param_path, uint32_t seed = 7) {
  net.load_param(param_path);
  RandomWeights weights(net.graph(), seed);
  net.load_model(weights);
}

// A plain fp32 Mat of a shape-only Mat's shape, seeded uniform in [-1, 1].
inline Mat seeded_input(const Mat& shape, uint32_t seed) {
  Mat m;
  switch (shape.dims) {
    case 1: m.create(shape.w); break;
    case 2: m.create(shape.w, shape.h); break;
    case 3: m.create(shape.w, shape.h, shape.c); break;
    default: m.create(shape.w, shape.h, shape.d, shape.c); break;
  }
  fill_random(m, seed);
  return m;
}

struct NamedMat {
  int blob;
  Mat mat;
};

// One seeded tensor per Input blob, shaped as declared.
inline std::vector<NamedMat> declared_inputs(const Net& net, uint32_t seed = 11) {
  std::vector<NamedMat> inputs;
  for (const std::string& name : net.input_names()) {
    const int blob = net.find_blob(name);
    const Mat shape = net.input_shape(blob);
    EXPECT_GT(shape.dims, 0) << "input " << name << " has no declared shape";
    inputs.push_back({blob, seeded_input(shape, seed++)});
  }
  return inputs;
}

// Every output blob (net.output_names()), in that order, as plain fp32.
inline std::vector<Mat> run_outputs(const Net& net, const std::vector<NamedMat>& inputs, int threads = 1,
                                    bool light_mode = true) {
  Extractor ex = net.create_extractor();
  ex.set_num_threads(threads);
  ex.set_light_mode(light_mode);
  for (const NamedMat& in : inputs) ex.input(in.blob, in.mat);
  std::vector<Mat> outputs;
  for (const std::string& name : net.output_names()) {
    Mat out;
    ex.extract(name, out);
    outputs.push_back(out);
  }
  return outputs;
}

// Scalars of a plain Mat in (c, d, h, w) order without channel padding.
inline std::vector<float> plain_values(const Mat& m) {
  std::vector<float> out;
  if (m.dims == 0) return out;
  const int channels = m.dims >= 3 ? m.c : 1;
  const size_t plane = m.dims >= 3 ? static_cast<size_t>(m.w) * m.h * m.d : static_cast<size_t>(m.w) * m.h;
  for (int q = 0; q < channels; q++) {
    const float* p = static_cast<const float*>(m.data) + m.cstep * q;
    out.insert(out.end(), p, p + plane);
  }
  return out;
}

// Same shape, and every scalar within `tolerance` x the largest |expected| of that output.
inline void expect_outputs_near(const std::vector<Mat>& got, const std::vector<Mat>& expected,
                                const std::vector<std::string>& names, double tolerance) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); i++) {
    SCOPED_TRACE("output '" + names[i] + "'");
    const Mat& a = got[i];
    const Mat& b = expected[i];
    ASSERT_EQ(a.dims, b.dims);
    ASSERT_EQ(a.w, b.w);
    ASSERT_EQ(a.h, b.h);
    ASSERT_EQ(a.d, b.d);
    ASSERT_EQ(a.c, b.c);
    ASSERT_EQ(a.elempack, 1);
    ASSERT_EQ(a.elemsize, 4u);
    const std::vector<float> va = plain_values(a), vb = plain_values(b);
    if (va.empty()) continue;
    const ErrorStats s = compare(va.data(), vb.data(), va.size());
    EXPECT_FALSE(s.has_nan) << "NaN where the reference has none (or the reverse)";
    EXPECT_LE(s.max_rel(), tolerance) << "max abs error " << s.max_abs << " at scalar " << s.worst_index << " (got "
                                      << va[s.worst_index] << ", reference " << vb[s.worst_index]
                                      << "; largest |reference| " << s.max_ref << ")";
  }
}

// Bit-identical outputs (the same computation run twice, or through another path).
inline void expect_outputs_equal(const std::vector<Mat>& got, const std::vector<Mat>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); i++) {
    ASSERT_TRUE(got[i].dims == expected[i].dims && got[i].w == expected[i].w && got[i].h == expected[i].h &&
                got[i].d == expected[i].d && got[i].c == expected[i].c)
        << "output " << i << " shape differs";
    const std::vector<float> a = plain_values(got[i]), b = plain_values(expected[i]);
    for (size_t k = 0; k < a.size(); k++) {
      ASSERT_TRUE(a[k] == b[k] || (std::isnan(a[k]) && std::isnan(b[k])))
          << "output " << i << " scalar " << k << ": " << a[k] << " vs " << b[k];
    }
  }
}

}  // namespace test
}  // namespace jitconv

namespace jitconv {
namespace test {

// A reference executor (every layer through its scalar twin) on `threads` threads.
inline void prepare_reference(Net& reference, int threads = 2) {
  reference.set_layer_creator(create_reference_layer, "no scalar reference for layer type");
  reference.opt.num_threads = threads;
}

}  // namespace test
}  // namespace jitconv
