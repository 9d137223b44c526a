// `jitconv optimize`, run as a separate process on tests/models/optimize_fusions.param:
// the lines it prints, the files it writes, --storage, --shape and usage errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "loader/model_bin.h"
#include "tests/cli_runner.h"
#include "tests/optimize_test_util.h"

namespace jitconv {
namespace test {
namespace {

// Writes the seeded random weights of the model at `param` as an ncnn .bin at `bin`.
void write_random_bin(const std::string& param, const std::string& bin, uint32_t seed) {
  const ParamGraph graph = load_param_file(param);
  RandomWeights weights(graph, seed);
  weights.record_weights(true);
  Net net;
  net.load_param(graph);
  net.load_model(weights);
  weights.write_bin(bin);
}

class OptimizeCli : public testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/jitconv_optcli_XXXXXX";
    ASSERT_NE(mkdtemp(name), nullptr);
    dir_ = name;
    in_param_ = test_model_path("optimize_fusions.param");
    in_bin_ = file("in.bin");
    write_random_bin(in_param_, in_bin_, 3);  // the model's seeded random weights
  }
  void TearDown() override {
    for (const std::string& f : files_) std::remove(f.c_str());
    rmdir(dir_.c_str());
  }
  std::string file(const std::string& name) {
    files_.push_back(dir_ + "/" + name);
    return files_.back();
  }
  CliResult run(const std::vector<std::string>& args) {
    std::vector<std::string> command = {"optimize"};
    command.insert(command.end(), args.begin(), args.end());
    return run_cli(command);
  }

  std::string dir_, in_param_, in_bin_;
  std::vector<std::string> files_;
};

TEST_F(OptimizeCli, PrintsEachRewriteAndWritesALoadableModel) {
  const std::string param = file("out.param"), bin = file("out.bin");
  const CliResult r = run({in_param_, in_bin_, param, bin});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err,
            "fuse_batchnorm_scale bn1 sc1\n"
            "fuse_convolution_batchnorm conv1 bn1\n"
            "fuse_convolutiondepthwise_bias dw1 bias1\n"
            "fuse_convolution_activation conv1 relu1\n"
            "fuse_convolution_activation fc_conv sig\n"
            "fuse_convolutiondepthwise_activation dw1 hs1\n"
            "fuse_deconvolution_activation up clip1\n"
            "fuse_memorydata_binaryop half scale1\n"
            "eliminate_dropout up drop\n"
            "eliminate_pooling1x1 up pool1x1\n"
            "eliminate_flatten_after_global_pooling gap flat\n"
            "replace_convolution_with_innerproduct_after_global_pooling gap fc_conv\n"
            "shape_inference\n");
  const std::string text = slurp(param);
  EXPECT_EQ(text.substr(0, 14), "7767517\n12 13\n");
  EXPECT_NE(text.find("-23330=4,3,26,22,8"), std::string::npos) << text;

  // The written model computes what the original does.
  const ModelGraph before = load_model_graph(in_param_, in_bin_);
  const ModelGraph after = load_model_graph(param, bin);
  expect_equivalent(before, after, 1e-4);
}

TEST_F(OptimizeCli, Fp16StorageAndInputShape) {
  const std::string param = file("out16.param"), bin = file("out16.bin");
  const CliResult r = run({in_param_, in_bin_, param, bin, "--storage", "fp16", "--shape", "3,9,15"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string bytes = slurp(bin);
  uint32_t first = 0;
  ASSERT_GE(bytes.size(), 4u);
  std::memcpy(&first, bytes.data(), 4);
  EXPECT_EQ(first, kModelBinFp16Tag);
  const std::string text = slurp(param);
  EXPECT_NE(text.find("-23330=4,3,15,9,16"), std::string::npos) << text;
  EXPECT_NE(text.find(" 0=15 1=9 2=3 "), std::string::npos) << "the Input declares the shape given\n" << text;
}

// Scale folds only into the BatchNorm before it (then into the convolution with it), as in
// ncnnoptimize: the help said Scale folds into the convolution.
TEST_F(OptimizeCli, HelpSaysWhereScaleFoldsAndAScaleAfterAConvolutionStays) {
  const CliResult help = run({"--help"});
  ASSERT_EQ(help.status, 0);
  std::string text = help.out;
  for (char& ch : text)
    if (ch == '\n') ch = ' ';
  EXPECT_NE(text.find("folds a Scale into the BatchNorm before it"), std::string::npos) << help.out;
  EXPECT_NE(text.find("a Scale straight after one of those stays a layer"), std::string::npos) << help.out;
  EXPECT_EQ(text.find("folds BatchNorm, Scale,"), std::string::npos) << help.out;

  const std::string param = file("cs.param"), bin = file("cs.bin"), out_param = file("cs_out.param"),
                    out_bin = file("cs_out.bin");
  {
    std::ofstream(param) << "7767517\n4 4\nInput data 0 1 data 0=6 1=6 2=3\n"
                            "Convolution conv 1 1 data c 0=4 1=3 5=1 6=108\nScale scale 1 1 c s 0=4 1=1\n"
                            "ReLU relu 1 1 s out\n";
    write_random_bin(param, bin, 5);
  }
  const CliResult r = run({param, bin, out_param, out_bin});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("scale"), std::string::npos) << r.err;
  EXPECT_NE(slurp(out_param).find("Scale "), std::string::npos) << slurp(out_param);
}

TEST_F(OptimizeCli, UsageErrors) {
  const std::string param = file("u.param"), bin = file("u.bin");
  EXPECT_EQ(run({in_param_, in_bin_, param}).status, 2);
  const CliResult storage = run({in_param_, in_bin_, param, bin, "--storage", "bf16"});
  EXPECT_EQ(storage.status, 2);
  EXPECT_NE(storage.err.find("--storage must be fp32 or fp16"), std::string::npos) << storage.err;
  EXPECT_EQ(run({in_param_, in_bin_, param, bin, "--shape", "3,x"}).status, 2);
  const CliResult missing = run({in_param_, file("absent.bin"), param, bin});
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("absent.bin"), std::string::npos) << missing.err;
  // The same file given twice: `o.param o.param` exited 0 with the weights in o.param, and
  // an output over the mapped input .bin would be written while it is read.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{in_param_, in_bin_, param, param}, {in_param_, in_bin_, param, in_bin_},
        {in_param_, in_bin_, in_param_, bin}, {in_param_, in_bin_, param, dir_ + "/./u.param"}}) {
    const CliResult twice = run(args);
    EXPECT_EQ(twice.status, 2) << twice.err;
    EXPECT_NE(twice.err.find("is given twice"), std::string::npos) << twice.err;
  }
}

}  // namespace
}  // namespace test
}  // namespace jitconv
