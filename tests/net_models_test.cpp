// Whole models through the optimized Net against the reference executor: the self-written
// models in tests/models (together they use every registered layer type) and the ncnn
// model graphs in JITCONV_SHARED_DIR/models, all with seeded random weights.
//
// Tolerances are relative to the largest |value| of each output:
//   fp32 blobs        both sides compute in fp32 (the reference convolution accumulates in
//                     double), so what differs is summation order and, on the Winograd
//                     paths, transform rounding: up to 1.8e-5 of a layer's output range for
//                     F(6,3) (the Winograd tests' measured bound). Measured on whole models
//                     on this project's AVX-512 machine: at most 3e-7 on the test models,
//                     1e-5 on resnet50 (53 convolutions, up to 4608 taps). 1e-4 allows a few
//                     Winograd layers at their worst; a wrong blob is off by O(1).
//   fp16 / bf16       one rounding of a stored value (a 16-bit blob only flows between
//                     layers that keep it): half an ulp, 2^-11 / 2^-8 relative, plus the
//                     fp32 bound.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "loader/param_parser.h"
#include "reference/reference_executor.h"
#include "runtime/layer_registry.h"
#include "tests/net_test_util.h"

namespace jitconv {
namespace test {
namespace {

constexpr double kFp32Tolerance = 1e-4;
constexpr double kFp16Tolerance = 1.0 / 2048 + kFp32Tolerance;
constexpr double kBf16Tolerance = 1.0 / 256 + kFp32Tolerance;

std::vector<std::string> param_files(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > 6 && name.compare(name.size() - 6, 6, ".param") == 0) names.push_back(name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string shared_models_dir() { return std::string(JITCONV_SHARED_DIR) + "/models"; }

struct Config {
  const char* name;
  bool packing;
  bool fp16;
  bool bf16;
  int threads;
  double tolerance;
};

const Config kConfigs[] = {
    {"packed fp32", true, false, false, 1, kFp32Tolerance},
    {"packed fp32, 2 threads", true, false, false, 2, kFp32Tolerance},
    {"unpacked fp32", false, false, false, 1, kFp32Tolerance},
    {"packed fp16 storage", true, true, false, 1, kFp16Tolerance},
    {"packed bf16 storage", true, false, true, 1, kBf16Tolerance},
};

// Loads `path` into the optimized Net (under the ISA in force) and the reference
// executor with the same seeded weights and inputs, and compares every output.
void compare_with_reference(const std::string& path, const std::vector<const Config*>& configs,
                            const std::vector<Isa>& isas) {
  {
    Net probe;  // the optimized Net first, so a layer type it lacks is reported as such
    load_random(probe, path);
  }
  ReferenceExecutor reference;
  prepare_reference(reference);
  load_random(reference, path);
  const std::vector<NamedMat> inputs = declared_inputs(reference);
  const std::vector<Mat> expected = run_outputs(reference, inputs, 2);
  const std::vector<std::string> names = reference.output_names();
  for (Isa isa : isas) {
    IsaGuard guard(isa);
    for (const Config* c : configs) {
      SCOPED_TRACE(std::string("isa ") + isa_name(isa) + ", " + c->name);
      Net net;
      net.opt.use_packing_layout = c->packing;
      net.opt.use_fp16_storage = c->fp16;
      net.opt.use_bf16_storage = c->bf16;
      net.opt.num_threads = c->threads;
      load_random(net, path);
      ASSERT_EQ(net.output_names(), names);
      expect_outputs_near(run_outputs(net, inputs, c->threads), expected, names, c->tolerance);
    }
  }
}

class NetTestModel : public testing::TestWithParam<std::string> {};

TEST_P(NetTestModel, MatchesReferenceExecutor) {
  const std::string path = test_model_path(GetParam());
  std::vector<const Config*> configs;
  for (const Config& c : kConfigs) configs.push_back(&c);
  try {
    compare_with_reference(path, configs, available_isas());
  } catch (const Error& e) {
    FAIL() << e.what();
  }
}

std::string param_test_name(const testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.size() - 6);
  for (char& ch : name)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Models, NetTestModel, testing::ValuesIn(param_files(std::string(JITCONV_SOURCE_DIR) + "/tests/models")),
                         param_test_name);

TEST(NetTestModels, CoverEveryRegisteredLayerType) {
  std::set<std::string> used;
  for (const std::string& file : param_files(std::string(JITCONV_SOURCE_DIR) + "/tests/models")) {
    const ParamGraph graph = load_param_file(test_model_path(file));
    for (const ParamLayer& layer : graph.layers) used.insert(layer.type);
  }
  for (const std::string& type : layer_types()) EXPECT_TRUE(used.count(type)) << "no test model uses " << type;
  EXPECT_TRUE(used.count("ConvolutionDepthWise")) << "the depthwise model is missing";
}

class NetSharedModel : public testing::TestWithParam<std::string> {};

// Until ConvolutionDepthWise is registered, models using it fail here with the Net's
// "unknown layer type 'ConvolutionDepthWise'" message (deliberately a failure, not a skip).
TEST_P(NetSharedModel, MatchesReferenceExecutor) {
  const std::string path = shared_models_dir() + "/" + GetParam();
  const Config packed = {"packed fp32", true, false, false, 1, kFp32Tolerance};
  std::vector<Isa> isas;
  for (Isa isa : available_isas())
    if (isa != Isa::scalar) isas.push_back(isa);
  try {
    compare_with_reference(path, {&packed}, isas);
  } catch (const Error& e) {
    FAIL() << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Shared, NetSharedModel, testing::ValuesIn(param_files(shared_models_dir())), param_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(NetSharedModel);

// Reports the absence of the shared folder as a skip; where it exists, every graph in it
// must at least parse.
TEST(NetSharedModels, FolderParses) {
  const std::vector<std::string> files = param_files(shared_models_dir());
  if (files.empty())
    GTEST_SKIP() << "no ncnn models in " << shared_models_dir() << " (the shared folder is absent in this checkout)";
  for (const std::string& file : files) {
    const ParamGraph graph = load_param_file(shared_models_dir() + "/" + file);
    EXPECT_GT(graph.layers.size(), 1u) << file;
  }
}

}  // namespace
}  // namespace test
}  // namespace jitconv
