// The folding passes: BatchNorm - Scale, and BatchNorm / mul / add / Bias / activations
// into each Convolution-like layer, on small graphs with seeded weights and inputs. Each
// graph runs before and after optimizing on the packed Net, the unpacked Net and the
// scalar reference executor.
//
// Tolerance: a fold rounds each changed weight once (relative 2^-24) where the original
// applied the constant to the sum; over the few dozen taps here the outputs move by a few
// 1e-7 of their range. 1e-5 leaves room for vector activations in a kernel epilogue
// against the activation layer; a wrong fold is off by O(1).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/optimizer_pass_util.h"
#include "tests/optimize_test_util.h"

namespace jitconv {
namespace test {
namespace {

constexpr double kFoldTolerance = 1e-5;
constexpr int kHeight = 5, kWidth = 7;

struct Kind {
  WeightedLayer kind;
  const char* type;
  const char* pass_name;
  bool depthwise;
};

const Kind kKinds[] = {
    {WeightedLayer::convolution, "Convolution", "convolution", false},
    {WeightedLayer::convolution_depthwise, "ConvolutionDepthWise", "convolutiondepthwise", true},
    {WeightedLayer::deconvolution, "Deconvolution", "deconvolution", false},
    {WeightedLayer::deconvolution_depthwise, "DeconvolutionDepthWise", "deconvolutiondepthwise", true},
    {WeightedLayer::inner_product, "InnerProduct", "innerproduct", false},
};

// Input and output channel counts: odd, below and above the packs of 4, 8 and 16.
struct Channels {
  int in, out;
};
const Channels kChannels[] = {{3, 19}, {16, 8}, {4, 16}, {19, 24}, {1, 1}};

int out_channels(const Kind& k, const Channels& c) { return k.depthwise ? c.in : c.out; }

// X's parameters: 3x2 kernels (no Winograd), stride 2 for the deconvolutions.
std::string x_params(const Kind& k, const Channels& c, int bias) {
  const int in = c.in, out = out_channels(k, c);
  const std::string b = " 5=" + std::to_string(bias);
  switch (k.kind) {
    case WeightedLayer::convolution: return str_cat("0=", out, " 1=3 11=2 4=1", b, " 6=", out * in * 6);
    case WeightedLayer::convolution_depthwise: return str_cat("0=", out, " 1=3 4=1", b, " 6=", out * 9, " 7=", out);
    case WeightedLayer::deconvolution: return str_cat("0=", out, " 1=3 3=2 4=1", b, " 6=", out * in * 9);
    case WeightedLayer::deconvolution_depthwise:
      return str_cat("0=", out, " 1=3 11=2 3=2", b, " 6=", out * 6, " 7=", out);
    case WeightedLayer::inner_product: return str_cat("0=", out, " 1=", bias, " 2=", out * in * kHeight * kWidth);
  }
  return "";
}

// Input - X - `type` (params), the last layer writing "out".
ModelGraph pair_graph(const Kind& k, const Channels& c, int bias, const std::string& type, const std::string& params,
                      uint32_t seed) {
  GraphText g;
  g.input("data", c.in, kHeight, kWidth).layer(k.type, "x", {"data"}, {"x_out"}, x_params(k, c, bias));
  g.layer(type, "second", {"x_out"}, {"out"}, params);
  return graph_from_text(g.str(), seed);
}

std::string fused_line(const Kind& k, const char* what, const std::string& second = "second") {
  return str_cat("fuse_", k.pass_name, "_", what, " x ", second);
}

TEST(OptimizeFold, BatchnormIntoEveryWeightedLayer) {
  uint32_t seed = 1;
  for (const Kind& k : kKinds)
    for (const Channels& c : kChannels)
      for (int bias : {0, 1}) {
        SCOPED_TRACE(str_cat(k.type, " ", c.in, "->", out_channels(k, c), " bias ", bias));
        const int out = out_channels(k, c);
        const ModelGraph before = pair_graph(k, c, bias, "BatchNorm", str_cat("0=", out, " 1=1e-3"), seed++);
        std::vector<std::string> lines;
        const ModelGraph after = optimized(before, lines);
        EXPECT_EQ(rewrite_lines(lines), std::vector<std::string>{fused_line(k, "batchnorm")});
        EXPECT_EQ(live_count(after, "BatchNorm"), 0);
        const GraphLayer& x = live_layer(after, "x");
        EXPECT_EQ(x.params.get(k.kind == WeightedLayer::inner_product ? 1 : 5, 0), 1) << "bias created";
        EXPECT_EQ(after.blob_names[x.tops[0]], "out");
        expect_equivalent(before, after, kFoldTolerance);
      }
}

TEST(OptimizeFold, BatchnormIntoUnusualGeometries) {
  // Cropping to an output size, output padding (it holds the bias, which takes the fold
  // like the rest), grouped convolutions, a pad value.
  struct Case {
    const char* type;
    int in, out;
    const char* params;
  };
  const Case kCases[] = {
      {"Deconvolution", 5, 12, "0=12 1=3 3=2 4=-233 20=12 21=8 6=540"},
      {"Deconvolution", 5, 12, "0=12 1=3 3=2 18=1 19=0 5=1 6=540"},
      {"DeconvolutionDepthWise", 8, 12, "0=12 1=2 3=2 18=1 5=1 6=96 7=4"},
      {"ConvolutionDepthWise", 8, 12, "0=12 1=3 4=1 5=1 6=216 7=4"},
      {"Convolution", 3, 19, "0=19 1=3 4=2 18=0.75 6=513"},
  };
  uint32_t seed = 50;
  for (const Case& c : kCases) {
    SCOPED_TRACE(str_cat(c.type, " ", c.params));
    GraphText g;
    g.input("data", c.in, kHeight, kWidth).layer(c.type, "x", {"data"}, {"x_out"}, c.params);
    g.layer("BatchNorm", "second", {"x_out"}, {"out"}, str_cat("0=", c.out, " 1=1e-3"));
    const ModelGraph before = graph_from_text(g.str(), seed++);
    std::vector<std::string> lines;
    const ModelGraph after = optimized(before, lines);
    EXPECT_EQ(rewrite_lines(lines).size(), 1u);
    EXPECT_EQ(live_count(after, "BatchNorm"), 0);
    expect_equivalent(before, after, kFoldTolerance);
  }
}

TEST(OptimizeFold, OutputPaddedDeconvolutionTakesEveryFold) {
  // The padding holds the activated bias (as in current ncnn), so activations that move 0
  // and added constants fold as they do elsewhere.
  struct Case {
    const char* type;
    const char* params;
  };
  const Case kCases[] = {{"ReLU", ""},      {"ReLU", "0=0.2"},    {"Mish", ""},     {"HardSwish", ""},
                         {"Clip", "0=-1 1=1"}, {"Sigmoid", ""}, {"Clip", "0=0.5 1=1"}};
  uint32_t seed = 60;
  for (const Case& c : kCases) {
    SCOPED_TRACE(str_cat(c.type, " ", c.params));
    GraphText g;
    g.input("data", 5, kHeight, kWidth).layer("Deconvolution", "x", {"data"}, {"x_out"}, "0=6 1=3 3=2 18=2 5=1 6=270");
    g.layer(c.type, "second", {"x_out"}, {"out"}, c.params);
    const ModelGraph before = graph_from_text(g.str(), seed++);
    std::vector<std::string> lines;
    const ModelGraph after = optimized(before, lines);
    EXPECT_EQ(rewrite_lines(lines).size(), 1u);
    expect_equivalent(before, after, kFoldTolerance);
  }
  // A factor and an added constant alike.
  for (int op : {2, 0}) {
    SCOPED_TRACE(op == 2 ? "mul" : "add");
    GraphText g;
    g.input("data", 5, kHeight, kWidth).layer("MemoryData", "md", {}, {"m"}, "0=6");
    g.layer("Deconvolution", "x", {"data"}, {"x_out"}, "0=6 1=3 3=2 19=1 5=1 6=270");
    g.layer("BinaryOp", "op", {"x_out", "m"}, {"out"}, str_cat("0=", op));
    const ModelGraph before = graph_from_text(g.str(), seed++);
    std::vector<std::string> lines;
    const ModelGraph after = optimized(before, lines);
    EXPECT_EQ(rewrite_lines(lines).size(), 2u);
    expect_equivalent(before, after, kFoldTolerance);
  }
}

TEST(OptimizeFold, MulAndAddWithMemoryDataIntoEveryWeightedLayer) {
  uint32_t seed = 100;
  for (const Kind& k : kKinds)
    for (const Channels& c : kChannels)
      for (const char* what : {"mul", "add"})
        for (bool constant_first : {false, true}) {
          const int out = out_channels(k, c);
          SCOPED_TRACE(str_cat(k.type, " ", c.in, "->", out, " ", what, constant_first ? " constant first" : ""));
          GraphText g;
          g.input("data", c.in, kHeight, kWidth).layer("MemoryData", "md", {}, {"md_out"}, str_cat("0=", out));
          g.layer(k.type, "x", {"data"}, {"x_out"}, x_params(k, c, seed % 2));
          const std::vector<std::string> operands =
              constant_first ? std::vector<std::string>{"md_out", "x_out"} : std::vector<std::string>{"x_out", "md_out"};
          g.layer("BinaryOp", "op", operands, {"out"}, std::string("0=") + (what[0] == 'm' ? "2" : "0"));
          const ModelGraph before = graph_from_text(g.str(), seed++);
          std::vector<std::string> lines;
          const ModelGraph after = optimized(before, lines);
          EXPECT_EQ(rewrite_lines(lines),
                    (std::vector<std::string>{fused_line(k, what, "op"), "eliminate_orphaned_memorydata md"}));
          EXPECT_EQ(after.live_layer_count(), 2u);
          expect_equivalent(before, after, kFoldTolerance);
        }
}

TEST(OptimizeFold, AddOfPerChannelMemoryDataIntoConvolutions) {
  // A [1,1,C] constant lines up with a 3-D output's channels.
  uint32_t seed = 300;
  for (const Kind& k : kKinds) {
    if (k.kind == WeightedLayer::inner_product) continue;
    for (const Channels& c : kChannels) {
      const int out = out_channels(k, c);
      SCOPED_TRACE(str_cat(k.type, " ", c.in, "->", out));
      GraphText g;
      g.input("data", c.in, kHeight, kWidth).layer("MemoryData", "md", {}, {"md_out"}, str_cat("0=1 1=1 2=", out));
      g.layer(k.type, "x", {"data"}, {"x_out"}, x_params(k, c, 1));
      g.layer("BinaryOp", "op", {"x_out", "md_out"}, {"out"}, "0=0");
      const ModelGraph before = graph_from_text(g.str(), seed++);
      std::vector<std::string> lines;
      const ModelGraph after = optimized(before, lines);
      EXPECT_EQ(rewrite_lines(lines), (std::vector<std::string>{fused_line(k, "add", "op"),
                                                                 "eliminate_orphaned_memorydata md"}));
      expect_equivalent(before, after, kFoldTolerance);
    }
  }
}

TEST(OptimizeFold, BiasLayerIntoConvolutions) {
  uint32_t seed = 400;
  for (const Kind& k : kKinds) {
    if (k.kind == WeightedLayer::inner_product) continue;  // Bias treats a 1-D blob as one channel
    for (const Channels& c : kChannels)
      for (int bias : {0, 1}) {
        const int out = out_channels(k, c);
        SCOPED_TRACE(str_cat(k.type, " ", c.in, "->", out, " bias ", bias));
        const ModelGraph before = pair_graph(k, c, bias, "Bias", str_cat("0=", out), seed++);
        std::vector<std::string> lines;
        const ModelGraph after = optimized(before, lines);
        EXPECT_EQ(rewrite_lines(lines), std::vector<std::string>{fused_line(k, "bias")});
        expect_equivalent(before, after, kFoldTolerance);
      }
  }
}

// A convolution of a flattened (1-D) input gives a 1-D blob, on which a Bias layer adds its
// first value everywhere (ncnn's Bias works per channel, and a 1-D blob is one): folding it
// per output changed the result (after global pooling, outputs {W p + 10, W p + 100} where
// ncnn gives W p + 10 for both). Not folded; one output, or a known 3-D blob, still folds.
TEST(OptimizeFold, BiasLayerOnAOneDimensionalBlobIsNotFolded) {
  for (int outputs : {2, 1}) {
    SCOPED_TRACE(str_cat(outputs, " outputs"));
    GraphText g;
    g.input("data", 3, 4, 4).layer("Pooling", "gp", {"data"}, {"p"}, "0=1 4=1");
    g.layer("Convolution", "fc", {"p"}, {"c"}, str_cat("0=", outputs, " 1=1 5=0 6=", 3 * outputs));
    g.layer("Bias", "b", {"c"}, {"out"}, str_cat("0=", outputs));
    const ModelGraph before = graph_from_text(g.str(), 700 + outputs);
    std::vector<std::string> lines;
    const ModelGraph after = optimized(before, lines);
    bool skipped = false;
    for (const std::string& l : lines)
      // (The shape inference fails on that model, as the Bias cannot run: "unknown shape".)
      skipped = skipped || l.find("fuse_convolution_bias fc b skipped: ") != std::string::npos;
    EXPECT_EQ(live_count(after, "Bias"), outputs == 1 ? 0 : 1);
    EXPECT_EQ(skipped, outputs != 1);
    if (outputs == 1) expect_equivalent(before, after, kFoldTolerance);
  }
}

TEST(OptimizeFold, BiasLayerIntoSingleOutputInnerProduct) {
  const Kind& k = kKinds[4];
  const Channels c{5, 1};
  const ModelGraph before = pair_graph(k, c, 1, "Bias", "0=1", 401);
  std::vector<std::string> lines;
  const ModelGraph after = optimized(before, lines);
  EXPECT_EQ(rewrite_lines(lines), std::vector<std::string>{"fuse_innerproduct_bias x second"});
  expect_equivalent(before, after, kFoldTolerance);
}

TEST(OptimizeFold, ActivationsIntoEveryWeightedLayer) {
  struct Act {
    const char* type;
    const char* params;
    int fused_type;
    std::vector<float> fused_params;
  };
  const Act kActs[] = {
      {"ReLU", "", 1, {}},
      {"ReLU", "0=0.1", 2, {0.1f}},
      {"Clip", "0=-0.25 1=0.5", 3, {-0.25f, 0.5f}},
      {"Sigmoid", "", 4, {}},
      {"Mish", "", 5, {}},
      {"HardSwish", "", 6, {0.2f, 0.5f}},
      {"HardSwish", "0=0.25 1=0.375", 6, {0.25f, 0.375f}},
  };
  uint32_t seed = 500;
  for (const Kind& k : kKinds)
    for (const Act& act : kActs) {
      const Channels& c = kChannels[seed % 5];
      SCOPED_TRACE(str_cat(k.type, " ", c.in, "->", out_channels(k, c), " ", act.type, " ", act.params));
      const ModelGraph before = pair_graph(k, c, 1, act.type, act.params, seed++);
      std::vector<std::string> lines;
      const ModelGraph after = optimized(before, lines);
      EXPECT_EQ(rewrite_lines(lines), std::vector<std::string>{fused_line(k, "activation")});
      const GraphLayer& x = live_layer(after, "x");
      EXPECT_EQ(x.params.get(9, 0), act.fused_type);
      EXPECT_EQ(x.params.get_floats(10), act.fused_params);
      expect_equivalent(before, after, kFoldTolerance);
    }
}

TEST(OptimizeFold, BatchnormScale) {
  uint32_t seed = 600;
  for (int channels : {1, 3, 16, 19})
    for (int scale_bias : {0, 1}) {
      SCOPED_TRACE(str_cat(channels, " channels, scale bias ", scale_bias));
      GraphText g;
      g.input("data", channels, kHeight, kWidth);
      g.layer("BatchNorm", "bn", {"data"}, {"bn_out"}, str_cat("0=", channels, " 1=1e-5"));
      g.layer("Scale", "scale", {"bn_out"}, {"out"}, str_cat("0=", channels, " 1=", scale_bias));
      const ModelGraph before = graph_from_text(g.str(), seed++);
      std::vector<std::string> lines;
      const ModelGraph after = optimized(before, lines);
      EXPECT_EQ(rewrite_lines(lines), std::vector<std::string>{"fuse_batchnorm_scale bn scale"});
      EXPECT_EQ(live_count(after, "Scale"), 0);
      expect_equivalent(before, after, kFoldTolerance);
    }
}

TEST(OptimizeFold, BatchnormThenActivationChain) {
  GraphText g;
  g.input("data", 19, 9, 11).layer("Convolution", "conv", {"data"}, {"c"}, str_cat("0=24 1=3 4=1 6=", 24 * 19 * 9));
  g.layer("BatchNorm", "bn", {"c"}, {"b"}, "0=24 1=1e-3").layer("ReLU", "relu", {"b"}, {"out"});
  const ModelGraph before = graph_from_text(g.str(), 700);
  std::vector<std::string> lines;
  const ModelGraph after = optimized(before, lines);
  EXPECT_EQ(rewrite_lines(lines), (std::vector<std::string>{"fuse_convolution_batchnorm conv bn",
                                                             "fuse_convolution_activation conv relu"}));
  EXPECT_EQ(after.live_layer_count(), 2u);
  // A 3x3 convolution may take a Winograd path, whose transforms round the folded
  // weights differently: the Winograd tests' bound, 1.8e-5 of the range per layer.
  expect_equivalent(before, after, 1e-4);
}

TEST(OptimizeFold, NothingFusesIntoABlobWithTwoReaders) {
  GraphText g;
  g.input("data", 8, kHeight, kWidth).layer("Convolution", "conv", {"data"}, {"c"}, str_cat("0=8 1=1 6=", 64));
  g.layer("BatchNorm", "bn", {"c"}, {"out1"}, "0=8").layer("ReLU", "relu", {"c"}, {"out2"});
  const ModelGraph before = graph_from_text(g.str(), 800);
  std::vector<std::string> lines;
  const ModelGraph after = optimized(before, lines);
  EXPECT_EQ(rewrite_lines(lines), std::vector<std::string>{});
  EXPECT_EQ(after.live_layer_count(), 4u);
  expect_equivalent(before, after, 0);
}

TEST(OptimizeFold, NothingFoldsBehindAnExistingActivation) {
  const std::pair<const char*, const char*> kAfter[] = {
      {"Sigmoid", ""}, {"BatchNorm", "0=8"}, {"Bias", "0=8"}, {"BinaryOp", "0=2"}, {"BinaryOp", "0=0"}};
  uint32_t seed = 801;
  for (const auto& after_conv : kAfter) {
    SCOPED_TRACE(str_cat(after_conv.first, " ", after_conv.second));
    GraphText g;
    g.input("data", 8, kHeight, kWidth).layer("MemoryData", "md", {}, {"m"}, "0=8");
    g.layer("Convolution", "conv", {"data"}, {"c"}, "0=8 1=1 6=64 9=1");
    const bool binary = std::string(after_conv.first) == "BinaryOp";
    g.layer(after_conv.first, "second", binary ? std::vector<std::string>{"c", "m"} : std::vector<std::string>{"c"},
            {"out"}, after_conv.second);
    if (!binary) g.layer("BinaryOp", "keep_md", {"m", "out"}, {"out2"}, "0=0");
    const ModelGraph before = graph_from_text(g.str(), seed++);
    std::vector<std::string> lines;
    const ModelGraph after = optimized(before, lines);
    EXPECT_EQ(rewrite_lines(lines), std::vector<std::string>{});
    expect_equivalent(before, after, 0);
  }
}

TEST(OptimizeFold, InnerProductOverRowsKeepsItsBatchnorm) {
  // A 2-D input [w=6, h=4] is 4 rows through the InnerProduct: its output is [4, 4], and
  // BatchNorm normalizes per row there, not per output channel.
  GraphText g;
  g.layer("Input", "data", {}, {"data"}, "0=6 1=4");
  g.layer("InnerProduct", "fc", {"data"}, {"f"}, "0=4 1=1 2=24").layer("BatchNorm", "bn", {"f"}, {"out"}, "0=4");
  const ModelGraph before = graph_from_text(g.str(), 802);
  std::vector<std::string> lines;
  const ModelGraph after = optimized(before, lines);
  EXPECT_EQ(rewrite_lines(lines), std::vector<std::string>{});
  expect_equivalent(before, after, 0);
}

TEST(OptimizeFold, InnerProductWithUnknownShapeIsNotFolded) {
  GraphText g;
  g.input("data", 0, 0, 0).layer("InnerProduct", "fc", {"data"}, {"f"}, "0=4 1=1 2=24");
  g.layer("BatchNorm", "bn", {"f"}, {"out"}, "0=4");
  ModelGraph graph = graph_from_text(g.str(), 803);
  const OptimizeResult result = optimize_graph(graph);
  EXPECT_FALSE(result.shapes_inferred);
  EXPECT_EQ(result.lines, (std::vector<std::string>{
                              "fuse_innerproduct_batchnorm fc bn skipped: the InnerProduct's output shape is unknown "
                              "(declare the input shape)",
                              "Input layer data without shape info, shape_inference skipped"}));
  EXPECT_EQ(live_count(graph, "BatchNorm"), 1);
}

TEST(OptimizeFold, CopiedGraphKeepsItsWeights) {
  const ModelGraph before = pair_graph(kKinds[0], kChannels[1], 1, "BatchNorm", "0=8", 900);
  const std::vector<float> weights = passes::values_of(before.layers[1].weights[0].data);
  std::vector<std::string> lines;
  const ModelGraph after = optimized(before, lines);
  EXPECT_EQ(passes::values_of(before.layers[1].weights[0].data), weights);
  EXPECT_NE(passes::values_of(after.layers[1].weights[0].data), weights);
}

}  // namespace
}  // namespace test
}  // namespace jitconv
