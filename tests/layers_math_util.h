// Shape grids and input makers shared by the math-group layer tests (layers_math_*.cpp).
#pragma once
#include <string>
#include <vector>

#include "runtime/error.h"
#include "tests/layer_tester.h"

namespace jitconv {
namespace test {

// An elempack-1 fp32 blob of `dims` with values uniform in [lo, hi).
inline Mat make_input(int dims, int w, int h, int d, int c, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  Mat m;
  switch (dims) {
    case 1: m.create(w); break;
    case 2: m.create(w, h); break;
    case 3: m.create(w, h, c); break;
    default: m.create(w, h, d, c); break;
  }
  fill_random(m, seed, lo, hi);
  return m;
}

struct ShapeCase {
  int dims, w, h, d, c;
  std::string name() const {
    return std::to_string(dims) + "d_" + std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d) + "x" +
           std::to_string(c);
  }
};

// Odd sizes, packing-axis lengths divisible and not divisible by 4/8/16, every dims.
inline std::vector<ShapeCase> elementwise_shapes() {
  return {
      {1, 1, 1, 1, 1},   {1, 7, 1, 1, 1},   {1, 48, 1, 1, 1},  {1, 100, 1, 1, 1}, {2, 5, 3, 1, 1},
      {2, 9, 16, 1, 1},  {2, 1, 24, 1, 1},  {2, 13, 7, 1, 1},  {3, 7, 5, 1, 3},   {3, 4, 3, 1, 16},
      {3, 5, 3, 1, 24},  {3, 1, 1, 1, 48},  {3, 9, 7, 1, 19},  {3, 3, 2, 1, 32},  {3, 33, 17, 1, 8},
      {4, 3, 4, 2, 5},   {4, 2, 3, 4, 16},  {4, 3, 2, 3, 12},
  };
}

inline Mat make_input(const ShapeCase& s, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  return make_input(s.dims, s.w, s.h, s.d, s.c, seed, lo, hi);
}

// Scalars along the packing axis of a shape (w, h or c).
inline int packing_axis_length(const ShapeCase& s) { return s.dims == 1 ? s.w : s.dims == 2 ? s.h : s.c; }

// Runs `f` and returns the jitconv::Error message it threw ("" when it did not throw).
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Runs `type` on `inputs` each packed to its own elempack (as a network may hand them
// over: LayerTester packs every input alike) on every ISA, and compares with the
// reference on the unpacked inputs.
inline void expect_mixed_packs_match(const std::string& type, const ParamDict& pd, const std::vector<Mat>& inputs,
                                     const std::vector<int>& packs, float tolerance = 1e-5f) {
  auto run = [&](Layer& layer, const std::vector<Mat>& in) {
    Option opt;
    opt.num_threads = 2;
    layer.load_param(pd);
    layer.create_pipeline(opt);
    std::vector<Mat> out;
    if (layer.support_inplace) {
      for (const Mat& m : in) out.push_back(m.clone());
      layer.forward_inplace(out, opt);
    } else {
      layer.forward(in, out, opt);
    }
    return out.at(0);
  };
  std::unique_ptr<Layer> ref = create_reference_layer(type);
  const Mat expected = run(*ref, inputs);
  for (Isa isa : available_isas()) {
    IsaGuard guard(isa);
    SCOPED_TRACE(type + " isa=" + isa_name(isa));
    std::vector<Mat> packed(inputs.size());
    for (size_t i = 0; i < inputs.size(); i++) convert_packing(inputs[i], packed[i], packs.at(i), Option());
    std::unique_ptr<Layer> layer = create_layer(type);
    Mat got;
    convert_packing(run(*layer, packed), got, 1, Option());
    ASSERT_EQ(got.dims, expected.dims);
    ASSERT_EQ(got.w, expected.w);
    ASSERT_EQ(got.h, expected.h);
    ASSERT_EQ(got.d, expected.d);
    ASSERT_EQ(got.c, expected.c);
    const std::vector<float> a = dense_values(got), b = dense_values(expected);
    const ErrorStats e = compare(a.data(), b.data(), a.size());
    EXPECT_FALSE(e.has_nan);
    EXPECT_LE(e.max_rel(), tolerance) << "at scalar " << e.worst_index;
  }
}

}  // namespace test
}  // namespace jitconv
