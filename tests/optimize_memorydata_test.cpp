// fuse_memorydata_binaryop: scalar MemoryData operands become BinaryOp scalars, from
// either side (sub -> rsub, div -> rdiv), directly or through a Split partly or fully
// consumed. The arithmetic is the same operation on the same values, so outputs must be
// bit-identical before and after.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/optimize_test_util.h"

namespace jitconv {
namespace test {
namespace {

struct Op {
  int type;
  const char* name;
  int swapped;  // op_type with the scalar first; -1: stays unfused
};
const Op kOps[] = {{0, "add", 0},   {1, "sub", 7},   {2, "mul", 2},    {3, "div", 8},   {4, "max", 4},
                   {5, "min", 5},   {6, "pow", -1},  {7, "rsub", -1},  {8, "rdiv", -1}, {10, "atan2", -1}};

// Inputs of each rank, odd extents and channel counts off the packs.
struct Shape {
  int c, h, w;  // c = 0: 2-D [h, w]; h = 0 too: 1-D [w]
};
const Shape kShapes[] = {{19, 5, 7}, {16, 3, 3}, {0, 3, 10}, {0, 0, 13}};

GraphText& add_input(GraphText& g, const Shape& s) {
  if (s.c > 0) return g.input("data", s.c, s.h, s.w);
  if (s.h > 0) return g.layer("Input", "data", {}, {"data"}, str_cat("0=", s.w, " 1=", s.h));
  return g.layer("Input", "data", {}, {"data"}, str_cat("0=", s.w));
}

TEST(OptimizeMemoryData, ScalarOperandOnEitherSide) {
  uint32_t seed = 1;
  for (const Shape& shape : kShapes)
    for (const Op& op : kOps)
      for (bool scalar_first : {false, true}) {
        SCOPED_TRACE(str_cat(op.name, scalar_first ? " scalar first" : " scalar second", " input c", shape.c, " h",
                             shape.h, " w", shape.w));
        GraphText g;
        add_input(g, shape).layer("MemoryData", "md", {}, {"md_out"}, "0=1");
        g.layer("BinaryOp", "op", scalar_first ? std::vector<std::string>{"md_out", "data"}
                                               : std::vector<std::string>{"data", "md_out"},
                {"out"}, str_cat("0=", op.type));
        const ModelGraph before = graph_from_text(g.str(), seed++);
        const float scalar = before.layers[1].weights[0].data[0];
        std::vector<std::string> lines;
        const ModelGraph after = optimized(before, lines);
        const bool fuses = !scalar_first || op.swapped >= 0;
        if (fuses) {
          EXPECT_EQ(rewrite_lines(lines), std::vector<std::string>{"fuse_memorydata_binaryop md op"});
          const GraphLayer& fused = live_layer(after, "op");
          EXPECT_EQ(fused.params.get(0, -1), scalar_first ? op.swapped : op.type);
          EXPECT_EQ(fused.params.get(1, 0), 1);
          EXPECT_EQ(fused.params.get(2, 0.f), scalar);
          EXPECT_EQ(fused.bottoms.size(), 1u);
          EXPECT_EQ(live_count(after, "MemoryData"), 0);
        } else {
          EXPECT_EQ(rewrite_lines(lines), std::vector<std::string>{});
          EXPECT_EQ(live_count(after, "MemoryData"), 1);
        }
        expect_equivalent(before, after, 0);
      }
}

TEST(OptimizeMemoryData, SplitFullyConsumed) {
  GraphText g;
  g.input("data", 19, 5, 7).layer("MemoryData", "md", {}, {"m"}, "0=1");
  g.layer("Split", "split", {"m"}, {"m0", "m1", "m2"});
  g.layer("BinaryOp", "add", {"data", "m0"}, {"out_add"}, "0=0");
  g.layer("BinaryOp", "sub", {"m1", "data"}, {"out_sub"}, "0=1");
  g.layer("BinaryOp", "div", {"m2", "data"}, {"out_div"}, "0=3");
  const ModelGraph before = graph_from_text(g.str(), 50);
  std::vector<std::string> lines;
  const ModelGraph after = optimized(before, lines);
  EXPECT_EQ(rewrite_lines(lines),
            (std::vector<std::string>{"fuse_memorydata_binaryop md add", "fuse_memorydata_binaryop md sub",
                                      "fuse_memorydata_binaryop md div"}));
  EXPECT_EQ(live_count(after, "Split"), 0);
  EXPECT_EQ(live_count(after, "MemoryData"), 0);
  EXPECT_EQ(live_layer(after, "sub").params.get(0, -1), 7);
  EXPECT_EQ(live_layer(after, "div").params.get(0, -1), 8);
  expect_equivalent(before, after, 0);
}

TEST(OptimizeMemoryData, SplitPartlyConsumed) {
  // pow cannot take its base as a scalar: its Split output stays, the Split is left with
  // one output and eliminate_split removes it.
  GraphText g;
  g.input("data", 16, 4, 9).layer("MemoryData", "md", {}, {"m"}, "0=1");
  g.layer("Split", "split", {"m"}, {"m0", "m1", "m2"});
  g.layer("BinaryOp", "add", {"data", "m0"}, {"out_add"}, "0=0");
  g.layer("BinaryOp", "pow", {"m1", "data"}, {"out_pow"}, "0=6");
  g.layer("BinaryOp", "max", {"m2", "data"}, {"out_max"}, "0=4");
  const ModelGraph before = graph_from_text(g.str(), 51);
  std::vector<std::string> lines;
  const ModelGraph after = optimized(before, lines);
  EXPECT_EQ(rewrite_lines(lines), (std::vector<std::string>{"fuse_memorydata_binaryop md add",
                                                             "fuse_memorydata_binaryop md max",
                                                             "eliminate_split md split"}));
  EXPECT_EQ(live_count(after, "MemoryData"), 1);
  EXPECT_EQ(live_count(after, "Split"), 0);
  EXPECT_EQ(live_layer(after, "pow").bottoms.size(), 2u);
  expect_equivalent(before, after, 0);
}

TEST(OptimizeMemoryData, NeighbouringMemoryDataThroughSplits) {
  GraphText g;
  g.input("data", 8, 3, 5);
  g.layer("MemoryData", "md1", {}, {"a"}, "0=1").layer("Split", "split1", {"a"}, {"a0", "a1"});
  g.layer("MemoryData", "md2", {}, {"b"}, "0=1").layer("Split", "split2", {"b"}, {"b0", "b1"});
  g.layer("BinaryOp", "op1", {"data", "a0"}, {"x1"}, "0=2");
  g.layer("BinaryOp", "op2", {"b0", "x1"}, {"x2"}, "0=1");
  g.layer("BinaryOp", "op3", {"a1", "x2"}, {"x3"}, "0=5");
  g.layer("BinaryOp", "op4", {"x3", "b1"}, {"out"}, "0=3");
  const ModelGraph before = graph_from_text(g.str(), 52);
  std::vector<std::string> lines;
  const ModelGraph after = optimized(before, lines);
  EXPECT_EQ(rewrite_lines(lines),
            (std::vector<std::string>{"fuse_memorydata_binaryop md1 op1", "fuse_memorydata_binaryop md1 op3",
                                      "fuse_memorydata_binaryop md2 op2", "fuse_memorydata_binaryop md2 op4"}));
  EXPECT_EQ(after.live_layer_count(), 5u);
  expect_equivalent(before, after, 0);
}

TEST(OptimizeMemoryData, OnlyLoneScalarsFuse) {
  struct Case {
    const char* what;
    const char* md_params;
    bool shared;  // the MemoryData feeds two BinaryOps without a Split
  };
  const Case kCases[] = {{"two values", "0=2", false}, {"2-D scalar", "0=1 1=1", false}, {"two readers", "0=1", true}};
  uint32_t seed = 60;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.what);
    GraphText g;
    g.layer("Input", "data", {}, {"data"}, "0=2 1=3").layer("MemoryData", "md", {}, {"m"}, c.md_params);
    g.layer("BinaryOp", "op", {"data", "m"}, {"out"}, "0=0");
    if (c.shared) g.layer("BinaryOp", "op2", {"m", "data"}, {"out2"}, "0=2");
    const ModelGraph before = graph_from_text(g.str(), seed++);
    std::vector<std::string> lines;
    const ModelGraph after = optimized(before, lines);
    EXPECT_EQ(rewrite_lines(lines), std::vector<std::string>{});
    expect_equivalent(before, after, 0);
  }
}

}  // namespace
}  // namespace test
}  // namespace jitconv
