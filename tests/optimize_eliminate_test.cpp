// The eliminating passes (Dropout, Noop, 1x1 Pooling, Split, Flatten after global
// pooling), replace_convolution_with_innerproduct_after_global_pooling, and the lines a
// whole optimization prints. Removing a pass-through layer changes no arithmetic, so
// those outputs must be bit-identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/optimize_test_util.h"

namespace jitconv {
namespace test {
namespace {

// Input (c channels) - conv (1x1, c -> c) - `type` - Sigmoid, or with after_input the
// layer reads the Input directly.
ModelGraph through(const std::string& type, const std::string& params, bool after_input, int channels = 8) {
  GraphText g;
  g.input("data", channels, 5, 7);
  std::string in = "data";
  if (!after_input) {
    g.layer("Convolution", "conv", {"data"}, {"c"}, str_cat("0=", channels, " 1=1 6=", channels * channels));
    in = "c";
  }
  g.layer(type, "mid", {in}, {"m"}, params).layer("Sigmoid", "sig", {"m"}, {"out"});
  return graph_from_text(g.str(), 17);
}

// Removed after a convolution and after the Input, for channel counts off and on the
// packs; the outputs are bit-identical.
void expect_bypassed(const std::string& type, const std::string& params, const std::string& pass) {
  for (bool after_input : {false, true})
    for (int channels : {3, 16, 19}) {
      SCOPED_TRACE(str_cat(after_input ? "after the Input" : "after a convolution", ", ", channels, " channels"));
      const ModelGraph before = through(type, params, after_input, channels);
      std::vector<std::string> lines;
      const ModelGraph after = optimized(before, lines);
      EXPECT_EQ(rewrite_lines(lines), std::vector<std::string>{pass + (after_input ? " data mid" : " conv mid")});
      EXPECT_EQ(live_count(after, type), 0);
      // The Input keeps its blob's name; a convolution takes over the removed layer's top.
      EXPECT_EQ(after.blob_names[live_layer(after, "data").tops[0]], "data");
      if (!after_input) {
        EXPECT_EQ(after.blob_names[live_layer(after, "conv").tops[0]], "m");
      }
      expect_equivalent(before, after, 0);
    }
}

void expect_kept(const std::string& type, const std::string& params) {
  const ModelGraph before = through(type, params, false);
  std::vector<std::string> lines;
  const ModelGraph after = optimized(before, lines);
  EXPECT_EQ(rewrite_lines(lines), std::vector<std::string>{});
  EXPECT_EQ(live_count(after, type), 1);
}

TEST(OptimizeEliminate, Dropout) {
  expect_bypassed("Dropout", "", "eliminate_dropout");
  expect_bypassed("Dropout", "0=1.0", "eliminate_dropout");
  expect_kept("Dropout", "0=0.5");
}

TEST(OptimizeEliminate, Noop) { expect_bypassed("Noop", "", "eliminate_noop"); }

TEST(OptimizeEliminate, NoopWithoutInputs) {
  GraphText g;
  g.input("data", 3, 2, 2).layer("Noop", "lonely", {}, {"nothing"}).layer("ReLU", "relu", {"data"}, {"out"});
  ModelGraph graph = graph_from_text(g.str(), 18);
  const OptimizeResult result = optimize_graph(graph);
  EXPECT_EQ(rewrite_lines(result.lines), std::vector<std::string>{"eliminate_noop lonely"});
  EXPECT_EQ(live_count(graph, "Noop"), 0);
  EXPECT_EQ(to_param_graph(graph).blob_names, (std::vector<std::string>{"data", "out"}));
}

TEST(OptimizeEliminate, Pooling1x1) {
  expect_bypassed("Pooling", "0=0 1=1 2=1", "eliminate_pooling1x1");
  expect_bypassed("Pooling", "0=1 1=1", "eliminate_pooling1x1");
  expect_kept("Pooling", "0=0 1=1 2=2");
  expect_kept("Pooling", "0=0 1=2 2=1");
  expect_kept("Pooling", "0=0 1=1 3=1");
}

TEST(OptimizeEliminate, SplitWithOneReader) {
  expect_bypassed("Split", "", "eliminate_split");
  // Two readers: the Split stays.
  GraphText g;
  g.input("data", 8, 5, 7).layer("Split", "split", {"data"}, {"s0", "s1"});
  g.layer("ReLU", "relu", {"s0"}, {"out0"}).layer("Sigmoid", "sig", {"s1"}, {"out1"});
  const ModelGraph before = graph_from_text(g.str(), 19);
  std::vector<std::string> lines;
  const ModelGraph after = optimized(before, lines);
  EXPECT_EQ(rewrite_lines(lines), std::vector<std::string>{});
  EXPECT_EQ(live_count(after, "Split"), 1);
}

TEST(OptimizeEliminate, SplitOutputsNobodyReadsGoWithIt) {
  GraphText g;
  g.input("data", 8, 5, 7).layer("Convolution", "conv", {"data"}, {"c"}, "0=8 1=1 6=64");
  g.layer("Split", "split", {"c"}, {"s0", "s1"}).layer("Sigmoid", "sig", {"s1"}, {"out"});
  ModelGraph graph = graph_from_text(g.str(), 20);
  const OptimizeResult result = optimize_graph(graph);
  EXPECT_EQ(rewrite_lines(result.lines), std::vector<std::string>{"eliminate_split conv split"});
  EXPECT_EQ(to_param_graph(graph).blob_names, (std::vector<std::string>{"data", "s1", "out"}));
}

TEST(OptimizeEliminate, NetworkOutputsBehindASplitSurvive) {
  // Split -> Dropout / Noop / 1x1 Pooling -> out0 (read by nothing: a network output) and
  // Split -> ReLU -> out1. Bypassing the pass-through layer made out0 an unread Split output,
  // which eliminate_split then dropped: out0 was gone from the optimized model.
  for (const char* type : {"Dropout", "Noop", "Pooling"}) {
    SCOPED_TRACE(type);
    GraphText g;
    g.input("data", 8, 5, 7).layer("Convolution", "conv", {"data"}, {"c"}, "0=8 1=1 6=64");
    g.layer("Split", "split", {"c"}, {"s0", "s1"});
    g.layer(type, "mid", {"s0"}, {"out0"}, std::string(type) == "Pooling" ? "0=0 1=1 2=1" : "");
    g.layer("ReLU", "relu", {"s1"}, {"out1"});
    const ModelGraph before = graph_from_text(g.str(), 21);
    std::vector<std::string> lines;
    const ModelGraph after = optimized(before, lines);
    const std::vector<std::string> names = to_param_graph(after).blob_names;
    EXPECT_NE(std::find(names.begin(), names.end(), "out0"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "out1"), names.end());
    expect_equivalent(before, after, 0);
  }
}

TEST(OptimizeEliminate, FlattenAfterGlobalPooling) {
  uint32_t seed = 30;
  for (int channels : {3, 16, 19}) {
    SCOPED_TRACE(str_cat(channels, " channels"));
    GraphText g;
    g.input("data", channels, 5, 7).layer("Pooling", "pool", {"data"}, {"p"}, "0=1 4=1");
    g.layer("Flatten", "flatten", {"p"}, {"f"}).layer("InnerProduct", "fc", {"f"}, {"out"}, str_cat("0=5 2=", 5 * channels));
    const ModelGraph before = graph_from_text(g.str(), seed++);
    std::vector<std::string> lines;
    const ModelGraph after = optimized(before, lines);
    EXPECT_EQ(rewrite_lines(lines), std::vector<std::string>{"eliminate_flatten_after_global_pooling pool flatten"});
    expect_equivalent(before, after, 0);
  }
}

TEST(OptimizeEliminate, ConvolutionAfterGlobalPoolingBecomesInnerProduct) {
  // Different kernels sum the same products in another order: a few ulps of the sums.
  constexpr double kTolerance = 1e-5;
  uint32_t seed = 40;
  for (int channels : {3, 16, 19})
    for (int outputs : {1, 8, 24})
      for (bool flatten : {false, true}) {
        SCOPED_TRACE(str_cat(channels, " -> ", outputs, flatten ? " through Flatten" : ""));
        GraphText g;
        g.input("data", channels, 6, 5).layer("Pooling", "pool", {"data"}, {"p"}, "0=1 4=1");
        std::string in = "p";
        if (flatten) {
          g.layer("Flatten", "flatten", {"p"}, {"f"});
          in = "f";
        }
        g.layer("Convolution", "conv", {in}, {"c"}, str_cat("0=", outputs, " 1=1 5=1 6=", channels * outputs));
        g.layer("ReLU", "relu", {"c"}, {"out"});
        const ModelGraph before = graph_from_text(g.str(), seed++);
        std::vector<std::string> lines;
        const ModelGraph after = optimized(before, lines);
        std::vector<std::string> expected = {"fuse_convolution_activation conv relu"};
        if (flatten) expected.push_back("eliminate_flatten_after_global_pooling pool flatten");
        expected.push_back("replace_convolution_with_innerproduct_after_global_pooling pool conv");
        EXPECT_EQ(rewrite_lines(lines), expected);
        const GraphLayer& fc = live_layer(after, "conv");
        EXPECT_EQ(fc.type, "InnerProduct");
        EXPECT_EQ(fc.params.get(9, 0), 1);
        expect_equivalent(before, after, kTolerance);
      }
}

TEST(OptimizeEliminate, LargerKernelAfterGlobalPoolingStaysConvolution) {
  GraphText g;
  g.input("data", 4, 6, 5).layer("Pooling", "pool", {"data"}, {"p"}, "0=1 4=1");
  g.layer("Convolution", "conv", {"p"}, {"out"}, "0=2 1=3 4=1 6=72");
  ModelGraph graph = graph_from_text(g.str(), 41);
  const OptimizeResult result = optimize_graph(graph);
  EXPECT_EQ(rewrite_lines(result.lines), std::vector<std::string>{});
  EXPECT_EQ(live_layer(graph, "conv").type, "Convolution");
}

TEST(OptimizeLines, WholeGraphPrintsOneLinePerRewrite) {
  GraphText g;
  g.input("data", 3, 9, 8).layer("MemoryData", "scale", {}, {"s"}, "0=1");
  g.layer("BinaryOp", "prescale", {"data", "s"}, {"x"}, "0=2");
  g.layer("Convolution", "conv1", {"x"}, {"c1"}, "0=16 1=3 4=1 6=432");
  g.layer("BatchNorm", "bn1", {"c1"}, {"b1"}, "0=16 1=1e-5").layer("Scale", "sc1", {"b1"}, {"s1"}, "0=16 1=1");
  g.layer("ReLU", "relu1", {"s1"}, {"r1"}).layer("Dropout", "drop", {"r1"}, {"d"});
  g.layer("Split", "split", {"d"}, {"d0", "d1"});
  g.layer("ConvolutionDepthWise", "dw", {"d0"}, {"w"}, "0=16 1=3 4=1 6=144 7=16");
  g.layer("Clip", "clip", {"w"}, {"cl"}, "0=0 1=6");
  g.layer("BinaryOp", "sum", {"cl", "d1"}, {"y"}, "0=0");
  g.layer("Pooling", "gap", {"y"}, {"g"}, "0=1 4=1").layer("Flatten", "flat", {"g"}, {"f"});
  g.layer("InnerProduct", "fc", {"f"}, {"logits"}, "0=10 1=1 2=160").layer("Softmax", "prob", {"logits"}, {"prob"});
  const ModelGraph before = graph_from_text(g.str(), 90);
  std::vector<std::string> lines;
  const ModelGraph after = optimized(before, lines);
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "fuse_batchnorm_scale bn1 sc1",
                       "fuse_convolution_batchnorm conv1 bn1",
                       "fuse_convolution_activation conv1 relu1",
                       "fuse_convolutiondepthwise_activation dw clip",
                       "fuse_memorydata_binaryop scale prescale",
                       "eliminate_dropout conv1 drop",
                       "eliminate_flatten_after_global_pooling gap flat",
                       "shape_inference",
                   }));
  expect_equivalent(before, after, 1e-4);
}

}  // namespace
}  // namespace test
}  // namespace jitconv
