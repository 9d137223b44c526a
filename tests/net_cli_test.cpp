// `jitconv run` and `jitconv benchmodel` as separate processes: outputs written and
// reproduced from a saved .bin, layouts, benchncnn's format, the profile, errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "loader/param_parser.h"
#include "tests/cli_runner.h"
#include "tests/net_test_util.h"

namespace jitconv {
namespace test {
namespace {

class NetCli : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(access(JITCONV_CLI_PATH, X_OK), 0) << JITCONV_CLI_PATH << " is missing: build jitconv_cli";
    char tmpl[] = "/tmp/jitconv_net_cli_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + shell_quote(dir_)).c_str()); }

  CliResult run(const std::vector<std::string>& args) { return run_cli(args); }

  std::string dir_;
};

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

TEST_F(NetCli, RunWritesOutputsThatASavedBinReproduces) {
  const std::string param = test_model_path("branches.param");
  const CliResult first = run({"run", param, "--seed", "4", "--write-bin", dir_ + "/w.bin", "--output-dir", dir_ + "/a",
                            "--threads", "1"});
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_TRUE(contains(first.out, "m2  shape [9,11,")) << first.out;
  EXPECT_TRUE(contains(first.out, "out2  shape [")) << first.out;
  const CliResult again = run({"run", param, dir_ + "/w.bin", "--seed", "4", "--output-dir", dir_ + "/b", "--threads", "1"});
  ASSERT_EQ(again.status, 0) << again.err;
  for (const char* blob : {"m2", "out2"}) {
    const std::string a = slurp(dir_ + "/a/" + blob + ".bin"), b = slurp(dir_ + "/b/" + blob + ".bin");
    EXPECT_FALSE(a.empty()) << blob;
    EXPECT_EQ(a, b) << blob;
  }
  EXPECT_EQ(first.out, again.out);
}

TEST_F(NetCli, RunWarnsAboutWeightsLeftInTheBin) {
  // Another model's .bin ran silently (ncnn reads no further than it needs): a warning.
  const std::string small = test_model_path("branches.param"), big = test_model_path("elementwise.param");
  ASSERT_EQ(run({"run", big, "--write-bin", dir_ + "/big.bin", "--output-dir", dir_ + "/x", "--threads", "1"}).status, 0);
  ASSERT_EQ(run({"run", small, "--write-bin", dir_ + "/small.bin", "--output-dir", dir_ + "/y", "--threads", "1"}).status, 0);
  const CliResult own = run({"run", small, dir_ + "/small.bin", "--output-dir", dir_ + "/z", "--threads", "1"});
  ASSERT_EQ(own.status, 0) << own.err;
  EXPECT_FALSE(contains(own.err, "warning")) << own.err;
  const CliResult other = run({"run", small, dir_ + "/big.bin", "--output-dir", dir_ + "/w", "--threads", "1"});
  EXPECT_TRUE(contains(other.err, "warning: " + dir_ + "/big.bin: ")) << other.err;
  EXPECT_TRUE(contains(other.err, "bytes left after the weights of every layer")) << other.err;
}

TEST_F(NetCli, BenchmodelWithoutAnOutputBlobIsAnError) {
  const std::string param = dir_ + "/noout.param";
  { std::ofstream(param) << "7767517\n2 1\nInput in 0 1 a 0=4 1=4 2=3\nNoop n 1 0 a\n"; }
  const CliResult r = run({"benchmodel", param, "--threads", "1"});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "no output blob")) << r.err;
}

TEST_F(NetCli, RunOutputIsPlainChwAndMatchesTheLibrary) {
  const std::string param = test_model_path("conv_chain.param");
  Net net;
  load_random(net, param, 9);
  const Mat in = seeded_input(net.input_shape(0), 77);
  const std::vector<float> values = plain_values(in);
  std::ofstream(dir_ + "/in.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  const CliResult r = run({"run", param, "--seed", "9", "--input", dir_ + "/in.bin", "--extract", "k", "--extract",
                        "out", "--output-dir", dir_, "--threads", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "top-5:")) << r.out;  // "out" is 1-D
  Extractor ex = net.create_extractor();
  ex.input("in", in);
  for (const char* blob : {"k", "out"}) {
    Mat m;
    ex.extract(blob, m);
    const std::vector<float> want = plain_values(m);
    const std::string got = slurp(dir_ + "/" + blob + ".bin");
    ASSERT_EQ(got.size(), want.size() * sizeof(float)) << blob;
    EXPECT_EQ(0, std::memcmp(got.data(), want.data(), got.size())) << blob;
  }
}

TEST_F(NetCli, RunNhwcInputMatchesNchw) {
  const std::string param = test_model_path("conv_chain.param");
  const int c = 3, h = 17, w = 23;
  std::vector<float> nchw(c * h * w), nhwc(c * h * w);
  for (size_t i = 0; i < nchw.size(); i++) nchw[i] = std::sin(0.37f * i);
  for (int q = 0; q < c; q++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) nhwc[(y * w + x) * c + q] = nchw[(q * h + y) * w + x];
  std::ofstream(dir_ + "/nchw.bin", std::ios::binary).write(reinterpret_cast<const char*>(nchw.data()), nchw.size() * 4);
  std::ofstream(dir_ + "/nhwc.bin", std::ios::binary).write(reinterpret_cast<const char*>(nhwc.data()), nhwc.size() * 4);
  const CliResult a = run({"run", param, "--input", dir_ + "/nchw.bin", "--output-dir", dir_ + "/a"});
  const CliResult b = run({"run", param, "--input", dir_ + "/nhwc.bin", "--layout", "nhwc", "--output-dir", dir_ + "/b"});
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(slurp(dir_ + "/a/out.bin"), slurp(dir_ + "/b/out.bin"));
  // Without --input the seeded input is the same tensor in either layout.
  EXPECT_EQ(run({"run", param}).out, run({"run", param, "--layout", "nhwc"}).out);
}

TEST_F(NetCli, RunErrors) {
  const std::string param = test_model_path("conv_chain.param");
  std::ofstream(dir_ + "/short.bin", std::ios::binary) << "abcd";
  const CliResult short_input = run({"run", param, "--input", dir_ + "/short.bin"});
  EXPECT_EQ(short_input.status, 1);
  EXPECT_TRUE(contains(short_input.err, "holds 4 bytes")) << short_input.err;
  const CliResult short_bin = run({"run", param, dir_ + "/short.bin"});
  EXPECT_EQ(short_bin.status, 1);
  EXPECT_TRUE(contains(short_bin.err, "layer 'conv_a' (Convolution)")) << short_bin.err;
  const CliResult missing_blob = run({"run", param, "--extract", "nope"});
  EXPECT_EQ(missing_blob.status, 1);
  EXPECT_TRUE(contains(missing_blob.err, "no blob named 'nope'")) << missing_blob.err;
  EXPECT_EQ(run({"run"}).status, 2);
  EXPECT_EQ(run({"run", param, "--layout", "hwc"}).status, 2);
  EXPECT_EQ(run({"run", param, "--shape", "3,x"}).status, 2);
  EXPECT_EQ(run({"run", param, dir_ + "/short.bin", "--write-bin", dir_ + "/x.bin"}).status, 2);
}

// A blob residual fusion folds away names the environment variable that keeps it: a
// command-line user has no Option to set.
TEST_F(NetCli, RunSaysHowToKeepABlobResidualFusionFolded) {
  const std::string param = dir_ + "/res.param";
  std::ofstream(param) << "7767517\n4 4\nInput data 0 1 data 0=8 1=8 2=4\n"
                          "Convolution c1 1 1 data c1 0=4 1=3 4=1 5=1 6=144\nEltwise sum 2 1 c1 data s 0=1\n"
                          "ReLU relu 1 1 s out\n";
  const CliResult fused = run({"run", param, "--extract", "c1"});
  EXPECT_EQ(fused.status, 1);
  EXPECT_TRUE(contains(fused.err, "JITCONV_RESIDUAL_FUSION=0")) << fused.err;
  const CliResult kept = run_cli({"run", param, "--extract", "c1"}, "JITCONV_RESIDUAL_FUSION=0");
  EXPECT_EQ(kept.status, 0) << kept.err;
  EXPECT_TRUE(contains(kept.out, "c1  shape [4,8,8]")) << kept.out;
}

// An input too large for memory is named with its size, not "internal error: std::bad_alloc".
TEST_F(NetCli, RunNamesAnInputItCannotAllocate) {
  // 3 x 70000 x 70000 floats are 58.8 GB; the address-space limit makes that fail anywhere.
  const CliResult r = run_cli({"run", test_model_path("conv_chain.param"), "--shape", "3,70000,70000"},
                              "ulimit -v 4000000;");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_FALSE(contains(r.err, "internal error")) << r.err;
  EXPECT_TRUE(contains(r.err, "cannot allocate input") && contains(r.err, "[3,70000,70000]") &&
              contains(r.err, "58800000000 bytes"))
      << r.err;
}

// Blob names map to file names ('/' and the like become '_'): two blobs that would share a
// file are an error before anything is written, not one file silently replacing the other.
TEST_F(NetCli, RunRefusesTwoBlobsThatWouldShareAnOutputFile) {
  const std::string param = dir_ + "/coll.param";
  std::ofstream(param) << "7767517\n3 3\nInput data 0 1 data 0=4 1=4 2=2\nReLU r 1 1 data a/b\n"
                          "Sigmoid s 1 1 a/b a_b\n";
  const CliResult r = run({"run", param, "--extract", "a/b", "--extract", "a_b", "--output-dir", dir_ + "/out"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(contains(r.err, "'a/b' and 'a_b'") && contains(r.err, "a_b.bin")) << r.err;
  EXPECT_EQ(access((dir_ + "/out/a_b.bin").c_str(), F_OK), -1) << "nothing is written";
  // Without --output-dir nothing collides; one blob named twice is one file.
  EXPECT_EQ(run({"run", param, "--extract", "a/b", "--extract", "a_b"}).status, 0);
  const CliResult twice = run({"run", param, "--extract", "a/b", "--extract", "a/b", "--output-dir", dir_ + "/out"});
  EXPECT_EQ(twice.status, 0) << twice.err;
  EXPECT_EQ(slurp(dir_ + "/out/a_b.bin").size(), 2u * 4 * 4 * 4);
  EXPECT_TRUE(contains(run({"run", "--help"}).out, "('a/b' -> a_b.bin)"));
}

// A network whose layers leave no blob unconsumed has no output: say so instead of
// printing nothing and exiting 0.
TEST_F(NetCli, RunWithNothingToExtractFails) {
  const std::string param = dir_ + "/topzero.param";
  std::ofstream(param) << "7767517\n2 1\nInput data 0 1 data 0=4 1=4 2=2\nReLU r 1 0 data\n";
  const CliResult r = run({"run", param});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "no output blob") && contains(r.err, "--extract")) << r.err;
  const CliResult named = run({"run", param, "--extract", "data"});
  EXPECT_EQ(named.status, 0) << named.err;
}

// Seeded random weights keep each layer's variance, not the network's: residual sums grow.
// The help must not promise O(1) activations throughout.
TEST_F(NetCli, RunHelpSaysResidualStagesGrow) {
  std::string help = run({"run", "--help"}).out;
  for (char& ch : help)
    if (ch == '\n') ch = ' ';
  EXPECT_FALSE(contains(help, "activations stay O(1) (")) << help;
  EXPECT_TRUE(contains(help, "residual additions still grow")) << help;
}

TEST_F(NetCli, BenchmodelPrintsBenchncnnLinesAndAProfile) {
  const CliResult r = run({"benchmodel", test_model_path("conv_chain.param"), test_model_path("head.param"), "--loops",
                        "2", "--warmup", "1", "--threads", "1", "--profile"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* name : {"conv_chain", "head"}) {
    const std::string line = std::string(name) + "  min = ";
    EXPECT_TRUE(contains(r.out, line)) << r.out;
  }
  EXPECT_TRUE(contains(r.out, "load + create_pipeline")) << r.out;
  EXPECT_TRUE(contains(r.out, "transformed weights")) << r.out;
  EXPECT_TRUE(contains(r.out, "conv_b")) << r.out;
  EXPECT_TRUE(contains(r.out, "Deconvolution")) << r.out;
}

TEST_F(NetCli, BenchmodelReportsAModelItCannotLoadAndGoesOn) {
  std::ofstream(dir_ + "/bad.param") << "7767517\n2 2\nInput in 0 1 in 0=4 1=4 2=3\nFrobnicate f 1 1 in out\n";
  const CliResult r = run({"benchmodel", dir_ + "/bad.param", test_model_path("branches.param"), "--loops", "1",
                        "--warmup", "0"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "unknown layer type 'Frobnicate'")) << r.err;
  EXPECT_TRUE(contains(r.out, "branches  min = ")) << r.out;
}

TEST_F(NetCli, BenchmodelWithoutArgumentsRunsTheEmbeddedResnet) {
  const CliResult model = run({"benchmodel", "--print-model"});
  ASSERT_EQ(model.status, 0);
  EXPECT_TRUE(contains(model.out, "7767517")) << model.out;
  std::ofstream(dir_ + "/embedded.param") << model.out;
  const ParamGraph graph = load_param_file(dir_ + "/embedded.param");
  int convolutions = 0;
  for (const ParamLayer& layer : graph.layers) convolutions += layer.type == "Convolution";
  EXPECT_EQ(convolutions, 20);  // ResNet-18: stem, 16 in the blocks, 3 projections

  const CliResult r = run({"benchmodel", "--loops", "1", "--warmup", "0", "--threads", "1", "--min-time", "0"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "resnet18-embedded  min = ")) << r.out;
  EXPECT_TRUE(contains(r.out, "jitconv vs oneDNN")) << r.out;
  EXPECT_TRUE(contains(r.out, "layer4.1.conv2")) << r.out;
  EXPECT_TRUE(contains(r.out, "total")) << r.out;
}

TEST_F(NetCli, HelpListsTheNewCommands) {
  const CliResult top = run({"--help"});
  EXPECT_TRUE(contains(top.out, "  run ")) << top.out;
  EXPECT_TRUE(contains(top.out, "  benchmodel ")) << top.out;
  for (const char* command : {"run", "benchmodel"}) {
    const CliResult r = run({command, "--help"});
    EXPECT_EQ(r.status, 0);
    EXPECT_TRUE(contains(r.out, std::string("usage: jitconv ") + command)) << r.out;
  }
}

}  // namespace
}  // namespace test
}  // namespace jitconv
