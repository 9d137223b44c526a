#include "tools/model_tool.h"

#include <cstdlib>
#include <random>
#include <sstream>

#include "runtime/error.h"

namespace jitconv {

namespace {

Mat shape_only(int dims, int w, int h, int d, int c) {
  Mat m;
  m.dims = dims;
  m.w = w;
  m.h = h;
  m.d = d;
  m.c = c;
  m.elemsize = 4;
  m.elempack = 1;
  return m;
}

}  // namespace

Mat parse_shape(const CliArgs& args, const std::string& text) {
  std::vector<int> extents;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end || v <= 0 || v > (1 << 24))
      args.usage_error("--shape needs positive integers like 3,224,224, got '" + text + "'");
    extents.push_back(static_cast<int>(v));
  }
  switch (extents.size()) {
    case 1: return shape_only(1, extents[0], 1, 1, 1);
    case 2: return shape_only(2, extents[1], extents[0], 1, 1);
    case 3: return shape_only(3, extents[2], extents[1], 1, extents[0]);
    case 4: return shape_only(4, extents[3], extents[2], extents[1], extents[0]);
    default: args.usage_error("--shape takes 1 to 4 extents (C,H,W), got '" + text + "'");
  }
}

std::vector<ModelInput> model_inputs(const Net& net, const CliArgs& args) {
  std::vector<ModelInput> inputs;
  for (const std::string& name : net.input_names()) {
    ModelInput in;
    in.name = name;
    in.blob = net.find_blob(name);
    in.shape = net.input_shape(in.blob);
    inputs.push_back(in);
  }
  if (inputs.empty()) fail("the network has no Input layer");
  if (args.has("shape")) {
    if (inputs.size() != 1)
      args.usage_error("--shape is for networks with one input; this one has " + std::to_string(inputs.size()));
    inputs[0].shape = parse_shape(args, args.get("shape"));
  }
  for (const ModelInput& in : inputs)
    if (in.shape.dims == 0)
      fail("the shape of input '", in.name, "' is not declared (no Input w/h/c, no shape hint): give --shape C,H,W");
  return inputs;
}

Mat plain_tensor(const Mat& shape) {
  Mat m;
  switch (shape.dims) {
    case 1: m.create(shape.w); break;
    case 2: m.create(shape.w, shape.h); break;
    case 3: m.create(shape.w, shape.h, shape.c); break;
    default: m.create(shape.w, shape.h, shape.d, shape.c); break;
  }
  return m;
}

Mat seeded_tensor(const Mat& shape, uint32_t seed) {
  Mat m = plain_tensor(shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  const int channels = m.dims >= 3 ? m.c : 1;
  const size_t plane = m.dims >= 3 ? static_cast<size_t>(m.w) * m.h * m.d : static_cast<size_t>(m.w) * m.h;
  for (int q = 0; q < channels; q++) {
    float* p = static_cast<float*>(m.data) + m.cstep * q;
    for (size_t i = 0; i < plane; i++) p[i] = dist(rng);
  }
  return m;
}

uint32_t input_seed(uint32_t seed, size_t input_index) {
  return seed * 2654435761u + 0x5bd1e995u + static_cast<uint32_t>(input_index);
}

std::string shape_text(const Mat& m) {
  switch (m.dims) {
    case 0: return "[]";
    case 1: return str_cat("[", m.w * m.elempack, "]");
    case 2: return str_cat("[", m.h * m.elempack, ",", m.w, "]");
    case 3: return str_cat("[", m.c * m.elempack, ",", m.h, ",", m.w, "]");
    default: return str_cat("[", m.c * m.elempack, ",", m.d, ",", m.h, ",", m.w, "]");
  }
}

std::vector<float> dense_values(const Mat& plain) {
  std::vector<float> out;
  if (plain.dims == 0) return out;
  if (plain.elempack != 1 || plain.elembits() != 32) fail("dense_values: expected a plain fp32 Mat");
  const int channels = plain.dims >= 3 ? plain.c : 1;
  const size_t plane =
      plain.dims >= 3 ? static_cast<size_t>(plain.w) * plain.h * plain.d : static_cast<size_t>(plain.w) * plain.h;
  out.reserve(plane * channels);
  for (int q = 0; q < channels; q++) {
    const float* p = static_cast<const float*>(plain.data) + plain.cstep * q;
    out.insert(out.end(), p, p + plane);
  }
  return out;
}

std::string model_stem(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  const size_t dot = name.find('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

}  // namespace jitconv
