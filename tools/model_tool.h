// What `jitconv run` and `jitconv benchmodel` share: loading a model with its .bin or
// seeded weights, the inputs they feed it, and how blobs are printed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/mat.h"
#include "runtime/net.h"
#include "tools/cli_args.h"

namespace jitconv {

// One input blob and the shape it is fed with.
struct ModelInput {
  int blob = -1;
  std::string name;
  Mat shape;  // shape only (data == nullptr)
};

// A --shape value (C,H,W, or W / H,W / C,D,H,W) as a shape-only Mat; a UsageError when
// it is malformed.
Mat parse_shape(const CliArgs& args, const std::string& text);

// Every Input blob of the Net with its shape: --shape (C,H,W, or W / H,W / C,D,H,W) for a
// network with one input, else the declared shape (Net::input_shape). Throws naming the
// blob when neither tells, a UsageError for a bad --shape.
std::vector<ModelInput> model_inputs(const Net& net, const CliArgs& args);

// A plain fp32 Mat of `shape`, uninitialized.
Mat plain_tensor(const Mat& shape);
// A plain fp32 Mat of `shape` with values uniform in [-1, 1], the same for the same seed.
Mat seeded_tensor(const Mat& shape, uint32_t seed);
// The seed input i gets from the --seed value (distinct from the weights' streams).
uint32_t input_seed(uint32_t seed, size_t input_index);

// "[3,224,224]": the extents outermost first (c, d, h, w as present).
std::string shape_text(const Mat& m);
// The scalars of a plain fp32 Mat in C, D, H, W order, without channel padding.
std::vector<float> dense_values(const Mat& plain);
// The model's name in reports: the file name without directories and extensions.
std::string model_stem(const std::string& path);

}  // namespace jitconv
