// Every way of loading a model gives the same network: weights from a file (mapped), from
// memory, from a FILE*, straight from RandomWeights; the .param as text, from memory or
// as binary. The written .bin reproduces the random weights exactly.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include "loader/model_writer.h"
#include "loader/param_parser.h"
#include "tests/net_test_util.h"

namespace jitconv {
namespace test {
namespace {

std::string temp_path(const std::string& name) {
  return testing::TempDir() + "net_load_" + std::to_string(getpid()) + "_" + name;
}

class NetLoad : public testing::TestWithParam<const char*> {};

TEST_P(NetLoad, EveryPathGivesTheSameOutputs) {
  const std::string param = test_model_path(GetParam());
  Net direct;
  direct.load_param(param);
  RandomWeights weights(direct.graph(), 21);
  weights.record_weights(true);
  direct.load_model(weights);
  const std::vector<NamedMat> inputs = declared_inputs(direct);
  const std::vector<Mat> expected = run_outputs(direct, inputs);

  ModelBinWriter writer;
  weights.write_bin(writer);
  const std::string bin = temp_path(std::string(GetParam()) + ".bin");
  writer.save(bin);

  {
    SCOPED_TRACE("mapped file");
    Net net;
    net.load_param(param);
    net.load_model(bin);
    expect_outputs_equal(run_outputs(net, inputs), expected);
  }
  {
    SCOPED_TRACE("memory");
    Net net;
    const ParamGraph graph = load_param_file(param);
    net.load_param_mem(write_param_text(graph));
    net.load_model_mem(writer.bytes().data(), writer.size());
    expect_outputs_equal(run_outputs(net, inputs), expected);
  }
  {
    SCOPED_TRACE("FILE*");
    Net net;
    net.load_param(param);
    FILE* fp = std::fopen(bin.c_str(), "rb");
    ASSERT_NE(fp, nullptr);
    net.load_model(fp);
    std::fclose(fp);
    expect_outputs_equal(run_outputs(net, inputs), expected);
  }
  {
    SCOPED_TRACE("binary .param");
    const std::vector<unsigned char> param_bin = write_param_binary(load_param_file(param));
    Net net;
    net.load_param_bin_mem(param_bin.data(), param_bin.size());
    net.load_model_mem(writer.bytes().data(), writer.size());
    // Binary graphs carry no names: the same inputs by index, the outputs in graph order.
    std::vector<NamedMat> by_index = inputs;
    ASSERT_EQ(net.output_names().size(), expected.size());
    expect_outputs_equal(run_outputs(net, by_index), expected);
  }
  std::remove(bin.c_str());
}

INSTANTIATE_TEST_SUITE_P(Models, NetLoad, testing::Values("conv_chain.param", "head.param", "branches.param"));

TEST(NetLoadRandom, SameSeedSameWeightsOtherSeedOthers) {
  const std::string param = test_model_path("conv_chain.param");
  auto outputs = [&](uint32_t seed) {
    Net net;
    load_random(net, param, seed);
    return run_outputs(net, declared_inputs(net));
  };
  const std::vector<Mat> a = outputs(5), b = outputs(5), c = outputs(6);
  expect_outputs_equal(a, b);
  const std::vector<float> va = plain_values(a[0]), vc = plain_values(c[0]);
  EXPECT_NE(va, vc);
}

// Random weights keep activations O(1) through depth: the conv chain's output neither
// vanishes nor explodes.
TEST(NetLoadRandom, ActivationsStayOrderOne) {
  Net net;
  load_random(net, test_model_path("conv_chain.param"), 3);
  Extractor ex = net.create_extractor();
  ex.input("in", declared_inputs(net)[0].mat);
  for (const char* blob : {"c", "i", "k", "out"}) {
    Mat m;
    ex.extract(blob, m);
    double sum_sq = 0;
    const std::vector<float> v = plain_values(m);
    for (float x : v) sum_sq += static_cast<double>(x) * x;
    const double rms = std::sqrt(sum_sq / v.size());
    EXPECT_GT(rms, 0.02) << blob;
    EXPECT_LT(rms, 20.0) << blob;
  }
}

}  // namespace
}  // namespace test
}  // namespace jitconv
