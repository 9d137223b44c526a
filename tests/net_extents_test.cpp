// Parameters near INT_MAX (pads, strides, output pads, window sizes, scales) in a .param:
// the output extents they imply are computed in 64 bits and rejected by name when they do
// not fit in int, instead of wrapping to a small or negative size (undefined behaviour,
// then a wrong shape or a misleading message). Found by running models forward under
// UBSan (tests/fuzz/forward_fuzz.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "runtime/error.h"
#include "runtime/extractor.h"
#include "runtime/model_random.h"
#include "runtime/net.h"
#include "tests/net_test_util.h"

namespace jitconv {
namespace test {
namespace {

const char* const kInput = "Input data 0 1 data 0=8 1=8 2=4\n";

// Runs a two-layer model (an 8x8x4 input, then `layer`) with seeded weights; the error
// message, or "" when it ran.
std::string forward_error(const std::string& layer, Mat* out = nullptr) {
  Net net;
  try {
    net.load_param_mem(std::string("7767517\n2 2\n") + kInput + layer + "\n");
    RandomWeights weights(net.graph(), 3);
    net.load_model(weights);
    const std::vector<Mat> outputs = run_outputs(net, declared_inputs(net));
    if (out) *out = outputs.at(0);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& layer, const std::string& expected) {
  const std::string error = forward_error(layer);
  EXPECT_NE(error.find(expected), std::string::npos) << layer << "\n  gave: " << error;
}

TEST(NetExtents, HugePadsStridesAndScalesAreRejectedByName) {
  // Convolution: ih + pad_top + pad_bottom wrapped negative ("smaller than the kernel").
  expect_error("Convolution conv 1 1 data out 0=4 1=3 4=2147483647 6=144", "padded input height");
  expect_error("ConvolutionDepthWise dw 1 1 data out 0=4 1=3 4=2147483647 6=36 7=4", "padded input height");
  expect_error("Convolution conv 1 1 data out 0=4 1=3 2=1073741824 6=144", "dilated kernel width");
  // Pads that fit in int but no machine could allocate: refused at forward, and no kernel
  // is generated for the hinted 8x8 input first (that took minutes and gigabytes).
  expect_error("Convolution conv 1 1 data out 0=4 1=3 4=33554433 6=144", "too large");
  expect_error("ConvolutionDepthWise dw 1 1 data out 0=4 1=3 4=33554433 6=36 7=4", "too large");
  // Deconvolution: (w - 1) * stride and the output pad wrapped.
  expect_error("Deconvolution deconv 1 1 data out 0=4 1=3 3=1073741824 6=144", "deconvolution output width");
  expect_error("Deconvolution deconv 1 1 data out 0=4 1=3 18=2147483647 6=144", "padded output width");
  expect_error("Deconvolution deconv 1 1 data out 0=4 1=3 4=2147483647 14=2147483647 6=144", "empty output");
  // Pooling and Padding: input + pads wrapped.
  expect_error("Pooling pool 1 1 data out 0=0 1=3 2=1 3=2147483647", "padded input width");
  expect_error("Padding pad 1 1 data out 0=2147483647 1=1", "padded height");
  expect_error("Padding pad 1 1 data out 2=2147483647 3=1", "padded width");
  expect_error("Padding pad 1 1 data out 7=2147483647 8=4", "padded channels");
  // Interp: int(w * scale) of a NaN or huge scale is no int at all.
  expect_error("Interp up 1 1 data out 0=2 1=nan 2=nan", "width_scale");
  expect_error("Interp up 1 1 data out 0=2 1=3e38 2=3e38", "width_scale");
}

TEST(NetExtents, HugeStrideStillRuns) {
  // A stride past the input: one output pixel (the input-row prefetch distance, two rows
  // of stride, used to overflow int on the way).
  Mat out;
  EXPECT_EQ(forward_error("Convolution conv 1 1 data out 0=16 1=1 3=2147483647 6=64", &out), "");
  EXPECT_EQ(out.w, 1);
  EXPECT_EQ(out.h, 1);
  EXPECT_EQ(out.c, 16);
}

TEST(NetExtents, LrnWindowWiderThanThePlane) {
  // local_size 65537 within the channel: local_size^2 wrapped to 131073 in int (a wrong
  // alpha / n) and the window's right end wrapped negative (an empty sum). The window
  // covers every pixel of the 8x8 plane, so each output is
  // x * (bias + alpha / 65537^2 * sum of the plane's squares)^-beta.
  Net net;
  net.load_param_mem(std::string("7767517\n2 2\n") + kInput + "LRN lrn 1 1 data out 0=1 1=65537 2=1e9 3=0.75 4=1\n");
  RandomWeights weights(net.graph(), 3);
  net.load_model(weights);
  const std::vector<NamedMat> inputs = declared_inputs(net);
  const std::vector<Mat> outputs = run_outputs(net, inputs);
  const Mat& in = inputs.at(0).mat;
  const Mat& out = outputs.at(0);
  ASSERT_EQ(out.c, 4);
  const double n = 65537.0 * 65537.0;
  for (int q = 0; q < 4; q++) {
    const float* x = static_cast<const float*>(in.data) + in.cstep * q;
    const float* y = static_cast<const float*>(out.data) + out.cstep * q;
    double squares = 0;
    for (int i = 0; i < 64; i++) squares += static_cast<double>(x[i]) * x[i];
    const double factor = std::pow(1.0 + 1e9 / n * squares, -0.75);
    for (int i = 0; i < 64; i++) EXPECT_NEAR(y[i], x[i] * factor, 1e-5) << "channel " << q << " pixel " << i;
  }
}

}  // namespace
}  // namespace test
}  // namespace jitconv
