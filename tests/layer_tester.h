// Runs one layer type's optimized implementation (runtime/layers) against its scalar
// reference (reference/layers) on the same inputs, for every input elempack the
// optimized layer accepts and every ISA the machine has, and compares the outputs.
//
//   LayerTester("Pooling").param(0, 1).param(1, 3).input(random_mat(13, 11, 24)).test();
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "loader/model_bin.h"
#include "loader/param_dict.h"
#include "reference/layer_ref_registry.h"
#include "runtime/layer_registry.h"
#include "runtime/packing.h"
#include "tests/test_util.h"

namespace jitconv {
namespace test {

// A plain (elempack 1) fp32 Mat of the given shape with seeded random values.
inline Mat random_mat(int w, uint32_t seed = 1) { Mat m(w); fill_random(m, seed); return m; }
inline Mat random_mat(int w, int h, uint32_t seed = 1) { Mat m(w, h); fill_random(m, seed); return m; }
inline Mat random_mat(int w, int h, int c, uint32_t seed = 1) { Mat m(w, h, c); fill_random(m, seed); return m; }
inline Mat random_mat4(int w, int h, int d, int c, uint32_t seed = 1) { Mat m(w, h, d, c); fill_random(m, seed); return m; }

// Copies an elempack-1 fp32 Mat's scalars densely (channel padding dropped) in
// (c, d, h, w) order.
inline std::vector<float> dense_values(const Mat& m) {
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

class LayerTester {
 public:
  explicit LayerTester(std::string type) : type_(std::move(type)) {}

  LayerTester& param(int id, int v) { pd_.set(id, v); return *this; }
  LayerTester& param(int id, float v) { pd_.set(id, v); return *this; }
  LayerTester& param(int id, const std::vector<int>& v) { pd_.set(id, v); return *this; }
  LayerTester& param(int id, const std::vector<float>& v) { pd_.set(id, v); return *this; }
  LayerTester& weight(const Mat& w) { weights_.push_back(w); return *this; }
  LayerTester& input(const Mat& m) { inputs_.push_back(m); return *this; }
  // Relative to the largest |reference output|.
  LayerTester& tolerance(float t) { tolerance_ = t; return *this; }
  // Input elempacks to try when the optimized layer supports packing (default 1,4,8,16;
  // a value that does not divide an input's channel count falls back to 1 for that input).
  LayerTester& elempacks(std::vector<int> packs) { elempacks_ = std::move(packs); return *this; }
  LayerTester& threads(int n) { threads_ = n; return *this; }
  // Options for the optimized layer (num_threads comes from threads()).
  LayerTester& options(const Option& opt) { options_ = opt; return *this; }
  // Number of top blobs the layer is built with (layer.tops) and asked for (the output
  // vector's size) in multi-blob forward; 0 (default) leaves both empty.
  LayerTester& outputs(int n) { outputs_ = n; return *this; }

  void test() const {
    const std::vector<Mat> expected = run_layer(*make_reference(), inputs_, 1);
    for (Isa isa : available_isas()) {
      IsaGuard guard(isa);
      std::unique_ptr<Layer> probe = make_optimized();
      const std::vector<int> packs = probe->support_packing ? elempacks_ : std::vector<int>{1};
      for (int pack : packs) {
        SCOPED_TRACE(type_ + " isa=" + isa_name(isa) + " elempack=" + std::to_string(pack));
        std::vector<Mat> packed_inputs;
        Option opt;
        opt.num_threads = 1;
        for (const Mat& in : inputs_) {
          Mat p;
          convert_packing(in, p, pack, opt);
          packed_inputs.push_back(p);
        }
        const std::vector<Mat> got = run_layer(*make_optimized(), packed_inputs, threads_);
        ASSERT_EQ(got.size(), expected.size());
        for (size_t i = 0; i < got.size(); i++) compare_blob(got[i], expected[i], i);
      }
    }
  }

 private:
  std::unique_ptr<Layer> make_reference() const {
    std::unique_ptr<Layer> layer = create_reference_layer(type_);
    if (!layer) ADD_FAILURE() << "no reference layer for " << type_;
    return layer;
  }
  std::unique_ptr<Layer> make_optimized() const {
    std::unique_ptr<Layer> layer = create_layer(type_);
    if (!layer) ADD_FAILURE() << "no layer " << type_;
    return layer;
  }

  // load_param / load_model / create_pipeline / forward, the way the Net calls them.
  std::vector<Mat> run_layer(Layer& layer, const std::vector<Mat>& inputs, int threads) const {
    Option opt = options_;
    opt.num_threads = threads;
    layer.name = type_ + "_under_test";
    for (int i = 0; i < outputs_; i++) layer.tops.push_back(i);
    layer.load_param(pd_);
    std::vector<Mat> weight_copies;
    for (const Mat& w : weights_) weight_copies.push_back(w.clone());
    layer.load_model(ModelBinFromMatArray(weight_copies));
    layer.create_pipeline(opt);
    std::vector<Mat> outputs;
    if (layer.support_inplace) {
      for (const Mat& in : inputs) outputs.push_back(in.clone());
      if (layer.one_blob_only)
        layer.forward_inplace(outputs[0], opt);
      else
        layer.forward_inplace(outputs, opt);
    } else if (layer.one_blob_only) {
      outputs.resize(1);
      layer.forward(inputs.at(0), outputs[0], opt);
    } else {
      outputs.resize(outputs_);
      layer.forward(inputs, outputs, opt);
    }
    layer.destroy_pipeline(opt);
    return outputs;
  }

  void compare_blob(const Mat& got_packed, const Mat& expected, size_t index) const {
    Option opt;
    opt.num_threads = 1;
    Mat got;
    convert_packing(got_packed, got, 1, opt);
    SCOPED_TRACE("output " + std::to_string(index));
    ASSERT_EQ(got.dims, expected.dims);
    ASSERT_EQ(got.w, expected.w);
    ASSERT_EQ(got.h, expected.h);
    ASSERT_EQ(got.d, expected.d);
    ASSERT_EQ(got.c, expected.c);
    ASSERT_EQ(got.elemsize, expected.elemsize);
    const std::vector<float> a = dense_values(got), b = dense_values(expected);
    const ErrorStats s = compare(a.data(), b.data(), a.size());
    EXPECT_FALSE(s.has_nan) << "NaN mismatch";
    EXPECT_LE(s.max_rel(), tolerance_) << "max abs error " << s.max_abs << " at scalar " << s.worst_index
                                       << " (got " << a[s.worst_index] << ", reference " << b[s.worst_index] << ")";
  }

  std::string type_;
  ParamDict pd_;
  std::vector<Mat> weights_;
  std::vector<Mat> inputs_;
  float tolerance_ = 1e-5f;
  std::vector<int> elempacks_ = {1, 4, 8, 16};
  int threads_ = 2;
  Option options_;
  int outputs_ = 0;
};

}  // namespace test
}  // namespace jitconv
