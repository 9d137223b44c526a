// Saving an optimized graph (fp32 and fp16 weights, int8 kept, compacted counts, shape
// hints) and loading it back; the error cases of loading, optimizing and saving.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "loader/model_bin.h"
#include "loader/model_writer.h"
#include "runtime/error.h"
#include "runtime/layer_registry.h"
#include "runtime/optimizer_pass_util.h"
#include "runtime/packing.h"
#include "tests/optimize_test_util.h"

namespace jitconv {
namespace test {
namespace {

// A directory removed with its files at the end of the test.
class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/jitconv_optimize_XXXXXX";
    const char* made = mkdtemp(name);
    EXPECT_NE(made, nullptr);
    path_ = made ? made : "/tmp";
  }
  ~TempDir() {
    for (const std::string& f : files_) std::remove(f.c_str());
    rmdir(path_.c_str());
  }
  std::string file(const std::string& name) {
    files_.push_back(path_ + "/" + name);
    return files_.back();
  }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const std::string& path, const std::string& text) { save_bytes(text.data(), text.size(), path); }

uint32_t word_at(const std::string& bytes, size_t offset) {
  uint32_t w = 0;
  std::memcpy(&w, bytes.data() + offset, 4);
  return w;
}

// A graph every pass kind touches, with layers of each rank of output.
std::string mixed_graph() {
  GraphText g;
  g.input("data", 19, 7, 9).layer("Convolution", "conv", {"data"}, {"c"}, str_cat("0=24 1=3 11=1 4=1 14=0 6=", 24 * 19 * 3));
  g.layer("BatchNorm", "bn", {"c"}, {"b"}, "0=24 1=1e-3").layer("ReLU", "relu", {"b"}, {"r"}, "0=0.125");
  g.layer("Dropout", "drop", {"r"}, {"d"}).layer("Split", "split", {"d"}, {"d0", "d1"});
  g.layer("Pooling", "gap", {"d0"}, {"g"}, "0=1 4=1").layer("Flatten", "flat", {"g"}, {"f"});
  g.layer("InnerProduct", "fc", {"f"}, {"logits"}, "0=10 1=1 2=240");
  g.layer("Reshape", "rows", {"d1"}, {"rows"}, "0=63 1=24");
  return g.str();
}

TEST(OptimizeSave, Fp32RoundTripKeepsEverything) {
  TempDir dir;
  ModelGraph graph = graph_from_text(mixed_graph(), 5);
  ASSERT_TRUE(optimize_graph(graph).shapes_inferred);
  const std::string param = dir.file("opt.param"), bin = dir.file("opt.bin");
  save_model_graph(graph, param, bin, WeightStorage::fp32);

  // Counts rewritten for the live layers and the blobs they use.
  const std::string text = slurp(param);
  EXPECT_EQ(text.substr(0, text.find('\n', 8) + 1), "7767517\n6 7\n");
  // Hints of every rank: 3-D convolution, 1-D InnerProduct, 2-D Reshape.
  EXPECT_NE(text.find("-23330=4,3,9,7,24"), std::string::npos) << text;
  EXPECT_NE(text.find("-23330=4,1,10,1,1"), std::string::npos) << text;
  EXPECT_NE(text.find("-23330=4,2,63,24,1"), std::string::npos) << text;
  EXPECT_NE(text.find("-23330=8,3,9,7,24,3,9,7,24"), std::string::npos) << text;

  ModelGraph reloaded = load_model_graph(param, bin);
  EXPECT_EQ(write_param_text(to_param_graph(reloaded)), write_param_text(to_param_graph(graph)));
  ASSERT_EQ(reloaded.layers.size(), graph.live_layer_count());
  EXPECT_EQ(model_graph_bin(reloaded, WeightStorage::fp32), model_graph_bin(graph, WeightStorage::fp32));
  expect_equivalent(graph, reloaded, 0);

  // And the saved files load into a Net directly.
  Net net;
  net.load_param(param);
  net.load_model(bin);
  std::vector<std::string> names, loaded_names;
  Net in_memory;
  const std::vector<Mat> expected = run_graph(graph, in_memory, names);
  const std::vector<Mat> got = run_sorted_outputs(net, loaded_names);
  ASSERT_EQ(loaded_names, names);
  expect_outputs_equal(got, expected);
}

TEST(OptimizeSave, Fp16StoresFlaggedWeightsAsHalves) {
  TempDir dir;
  ModelGraph graph = graph_from_text(mixed_graph(), 6);
  optimize_graph(graph);
  const std::string param = dir.file("opt16.param"), bin = dir.file("opt16.bin");
  save_model_graph(graph, param, bin, WeightStorage::fp16);
  const std::string bytes = slurp(bin);
  EXPECT_EQ(word_at(bytes, 0), kModelBinFp16Tag) << "the convolution's weights come first";
  EXPECT_LT(bytes.size(), model_graph_bin(graph, WeightStorage::fp32).size());

  const ModelGraph reloaded = load_model_graph(param, bin);
  // Each fp16 weight is off by at most half an ulp (2^-11 relative), which the sums of
  // products carry into the outputs at about that size.
  expect_equivalent(graph, reloaded, 2e-3);
  for (size_t i = 0, r = 0; i < graph.layers.size(); i++) {
    if (graph.layers[i].fused) continue;
    const GraphLayer& a = graph.layers[i];
    const GraphLayer& b = reloaded.layers[r++];
    ASSERT_EQ(a.weights.size(), b.weights.size()) << a.name;
    for (size_t k = 0; k < a.weights.size(); k++) {
      const std::vector<float> want = passes::values_of(a.weights[k].data), got = passes::values_of(b.weights[k].data);
      ASSERT_EQ(want.size(), got.size());
      for (size_t v = 0; v < want.size(); v++) {
        const float expected =
            a.weights[k].type == 0 ? float16_to_float32(float32_to_float16(want[v])) : want[v];
        ASSERT_EQ(got[v], expected) << a.name << " weight #" << k << " value " << v;
      }
    }
  }
}

// A shape-only Mat (as OptimizeOptions::input_shapes takes): w x h x c.
Mat shape_3d(int w, int h, int c) {
  Mat shape;
  shape.dims = 3;
  shape.w = w;
  shape.h = h;
  shape.c = c;
  return shape;
}

// Writes Input(3x4x4) - Convolution `conv` (4 outputs, 1x1, int8_scale_term `scale_term`,
// params + " 8=scale_term") - `second` (layer `act_type` with `act_params`, writing "out")
// with int8 weights, a bias, weight and input scales and, when scale_term > 100, the
// output scale ncnn2int8 writes for requantizing.
void write_int8_pair(const std::string& param, const std::string& bin, int scale_term, const std::string& act_type,
                     const std::string& act_params) {
  GraphText g;
  g.input("data", 3, 4, 4).layer("Convolution", "conv", {"data"}, {"c"}, str_cat("0=4 1=1 5=1 6=12 8=", scale_term));
  g.layer(act_type, "second", {"c"}, {"out"}, act_params);
  write_text(param, g.str());
  Mat weight(12, static_cast<size_t>(1), 1);
  for (int i = 0; i < 12; i++) static_cast<int8_t*>(weight.data)[i] = static_cast<int8_t>(i * 11 - 60);
  std::vector<std::vector<float>> rest = {{0.5f, -1.f, 2.f, 0.f}, {10.f, 20.f, 30.f, 40.f}, {64.f}};
  if (scale_term > 100) rest.push_back({23.f});
  ModelBinWriter writer;
  writer.write(weight, 0, ModelBinWriter::Storage::int8);
  for (const std::vector<float>& v : rest) {
    Mat m(static_cast<int>(v.size()));
    std::memcpy(m.data, v.data(), v.size() * 4);
    writer.write(m, 1);
  }
  writer.save(bin);
}

// tolerance 0: bit-identical outputs.
void expect_same_outputs(const ModelGraph& original, const ModelGraph& graph, double tolerance = 0) {
  for (Executor executor : {Executor::packed, Executor::unpacked}) {  // no int8 reference layer
    std::vector<std::string> names_before, names_after;
    const std::vector<Mat> expected = run_graph(original, executor, names_before);
    const std::vector<Mat> got = run_graph(graph, executor, names_after);
    ASSERT_EQ(names_after, names_before);
    if (tolerance == 0)
      expect_outputs_equal(got, expected);
    else
      expect_outputs_near(got, expected, names_before, tolerance);
  }
}

TEST(OptimizeSave, BinaryParamWordsReadBackWithTheirBits) {
  // A binary .param stores untyped words; written as text, each must read back as the
  // layer reads it: a count of 2^24 or more as an int (as a float it read back as 0), a
  // tiny or -FLT_MAX float as a float (as an int it read back converted).
  const std::string text = R"(7767517
5 6
Input data 0 1 data 0=6 1=5 2=3
BatchNorm bn 1 1 data b 0=3 1=1e-40
Clip clip 1 1 b c 0=-3.40282347e+38 1=6.5e+00
Crop crop 1 1 c d 0=16777217 1=33554432
Slice slice 1 2 d s1 s2 -23300=2,16777219,-8388609 1=0
)";
  const ParamGraph from_text = parse_param_text(text, "<text>");
  const std::vector<unsigned char> binary = write_param_binary(from_text, false);
  const ParamGraph from_binary = parse_param_binary(binary.data(), binary.size());
  ASSERT_EQ(from_binary.layers[1].params.type(1), ParamDict::Type::raw_value);
  RandomWeights weights(from_binary, 4);
  const ModelGraph graph = load_model_graph(from_binary, weights, "<binary>");
  const ParamGraph reread = parse_param_text(write_param_text(to_param_graph(graph)), "<written>");
  ASSERT_EQ(reread.layers.size(), from_text.layers.size());
  for (size_t i = 0; i < reread.layers.size(); i++) {
    const ParamDict& want = from_text.layers[i].params;
    const ParamDict& got = reread.layers[i].params;
    SCOPED_TRACE(from_text.layers[i].name);
    ASSERT_EQ(got.ids(), want.ids());
    for (int id : want.ids()) {
      EXPECT_EQ(got.type(id), want.type(id)) << "param " << id;
      EXPECT_EQ(got.words(id), want.words(id)) << "param " << id;
    }
  }
}

TEST(OptimizeSave, Int8WeightsStayInt8) {
  TempDir dir;
  const std::string in_param = dir.file("int8.param"), in_bin = dir.file("int8.bin");
  write_int8_pair(in_param, in_bin, 1, "ReLU", "");
  const ModelGraph original = load_model_graph(in_param, in_bin);
  ModelGraph graph = original;
  ASSERT_TRUE(optimize_graph(graph).shapes_inferred);
  expect_same_outputs(original, graph);
  const std::string param = dir.file("out.param"), bin = dir.file("out.bin");
  save_model_graph(graph, param, bin, WeightStorage::fp16);
  EXPECT_EQ(word_at(slurp(bin), 0), kModelBinInt8Tag);
  const ModelGraph reloaded = load_model_graph(param, bin);
  const GraphLayer& conv = live_layer(reloaded, "conv");
  const GraphLayer& source = live_layer(original, "conv");
  ASSERT_EQ(conv.weights.size(), 4u);
  EXPECT_EQ(conv.weights[0].data.elemsize, 1u);
  EXPECT_EQ(std::memcmp(conv.weights[0].data.data, source.weights[0].data.data, 12), 0);
  for (int k = 1; k < 4; k++)
    EXPECT_EQ(passes::values_of(conv.weights[k].data), passes::values_of(source.weights[k].data)) << "buffer " << k;
  EXPECT_EQ(conv.params.get(9, 0), 1) << "the activation still fuses";
}

TEST(OptimizeSave, RequantizingInt8TakesOnlyRelu) {
  // With int8_scale_term > 100 the layer activates before rounding to the output scale,
  // the separate layer after: only ReLU commutes with that rounding.
  struct Case {
    const char* type;
    const char* params;
    bool fuses;
  };
  const Case kCases[] = {{"ReLU", "", true},     {"ReLU", "0=0.1", false}, {"Sigmoid", "", false},
                         {"Clip", "0=-0.13 1=0.37", false}, {"HardSwish", "", false}, {"Mish", "", false}};
  TempDir dir;
  for (int scale_term : {1, 101})
    for (const Case& c : kCases) {
      SCOPED_TRACE(str_cat("8=", scale_term, " ", c.type, " ", c.params));
      const std::string param = dir.file("rq.param"), bin = dir.file("rq.bin");
      write_int8_pair(param, bin, scale_term, c.type, c.params);
      const ModelGraph original = load_model_graph(param, bin);
      ModelGraph graph = original;
      optimize_graph(graph);
      const bool fuses = scale_term < 100 || c.fuses;
      EXPECT_EQ(live_count(graph, c.type), fuses ? 0 : 1);
      EXPECT_EQ(live_layer(graph, "conv").params.get(9, 0) != 0, fuses);
      // A fused activation runs in the kernel's epilogue, not the layer's loop (last-bit
      // differences); a misplaced one moves outputs by a level of the output scale (1/23).
      expect_same_outputs(original, graph, 1e-5);
    }
}

TEST(OptimizeErrors, InputWithoutShape) {
  GraphText g;
  g.input("data", 0, 0, 0).layer("Convolution", "conv", {"data"}, {"c"}, "0=4 1=1 6=12");
  g.layer("ReLU", "relu", {"c"}, {"out"});
  const std::string text = g.str();
  {
    ModelGraph graph = graph_from_text(text);
    const OptimizeResult result = optimize_graph(graph);
    EXPECT_FALSE(result.shapes_inferred);
    EXPECT_EQ(result.lines, (std::vector<std::string>{"fuse_convolution_activation conv relu",
                                                      "Input layer data without shape info, shape_inference skipped"}));
    EXPECT_EQ(write_param_text(to_param_graph(graph)).find("-23330"), std::string::npos);
  }
  ModelGraph graph = graph_from_text(text);
  OptimizeOptions options;
  const Mat shape = shape_3d(5, 6, 3);
  options.input_shapes["data"] = shape;
  EXPECT_TRUE(optimize_graph(graph, options).shapes_inferred);
  EXPECT_NE(write_param_text(to_param_graph(graph)).find("-23330=4,3,5,6,4"), std::string::npos);
  options.input_shapes["nope"] = shape;
  try {
    optimize_graph(graph, options);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no Input layer produces a blob named 'nope'"), std::string::npos) << e.what();
  }
}

TEST(OptimizeErrors, FailedShapeInferenceKeepsOnlyHintsStillTrue) {
  // Hints for a 3x3 input, and a layer shape inference cannot run.
  TempDir dir;
  const std::string param = dir.file("hinted.param"), bin = dir.file("hinted.bin");
  write_text(param, R"(7767517
3 3
Input data 0 1 data 0=3 1=3 2=4 -23330=4,3,3,3,4
Convolution conv 1 1 data c 0=4 1=1 6=16 -23330=4,3,3,3,4
FancyOp fancy 1 1 c y -23330=4,3,3,3,4
)");
  std::string bytes(4 + 16 * 4, '\0');  // the fp32 flag word, then 16 weights of 0
  save_bytes(bytes.data(), bytes.size(), bin);
  {
    ModelGraph graph = load_model_graph(param, bin);
    EXPECT_FALSE(optimize_graph(graph).shapes_inferred);
    EXPECT_NE(write_param_text(to_param_graph(graph)).find("-23330=4,3,3,3,4"), std::string::npos) << "kept";
  }
  ModelGraph graph = load_model_graph(param, bin);
  OptimizeOptions options;
  options.input_shapes["data"] = shape_3d(8, 6, 4);
  EXPECT_FALSE(optimize_graph(graph, options).shapes_inferred);
  const std::string text = write_param_text(to_param_graph(graph));
  EXPECT_EQ(text.find("-23330"), std::string::npos) << "the 3x3 hints would contradict the 8x6 input\n" << text;
  EXPECT_NE(text.find("0=8 1=6 2=4"), std::string::npos) << text;
}

TEST(OptimizeErrors, UnknownLayerTypeSkipsShapeInference) {
  TempDir dir;
  const std::string in_param = dir.file("fancy.param"), in_bin = dir.file("fancy.bin");
  GraphText g;
  g.input("data", 4, 3, 3).layer("Convolution", "conv", {"data"}, {"c"}, "0=4 1=1 6=16");
  g.layer("ReLU", "relu", {"c"}, {"r"}).layer("FancyOp", "fancy", {"r"}, {"y"}, "0=7 3=2.5");
  g.layer("Convolution", "conv2", {"y"}, {"out"}, "0=2 1=1 6=8");
  write_text(in_param, g.str());
  {
    const ParamGraph parsed = parse_param_text(g.str());
    RandomWeights weights(parsed, 1);
    weights.record_weights(true);
    Net probe;
    probe.set_layer_creator([](const std::string& type) {
      return type == "FancyOp" ? create_layer("Noop") : create_layer(type);
    });
    probe.load_param(parsed);
    probe.load_model(weights);
    weights.write_bin(in_bin);
  }
  ModelGraph graph = load_model_graph(in_param, in_bin);
  EXPECT_TRUE(graph.layers[3].opaque);
  const OptimizeResult result = optimize_graph(graph);
  EXPECT_FALSE(result.shapes_inferred);
  ASSERT_EQ(result.lines.size(), 3u);
  EXPECT_EQ(result.lines[0], "fuse_convolution_activation conv relu");
  EXPECT_EQ(result.lines[1], "shape_inference");
  EXPECT_NE(result.lines[2].find("shape_inference skipped: "), std::string::npos);
  EXPECT_NE(result.lines[2].find("unknown layer type 'FancyOp'"), std::string::npos) << result.lines[2];
  const std::string param = dir.file("out.param"), bin = dir.file("out.bin");
  save_model_graph(graph, param, bin);
  const std::string text = slurp(param);
  const size_t fancy = text.find("FancyOp ");
  ASSERT_NE(fancy, std::string::npos) << text;
  const std::string fancy_line = text.substr(fancy, text.find('\n', fancy) - fancy);
  EXPECT_NE(fancy_line.find(" fancy "), std::string::npos) << fancy_line;
  EXPECT_NE(fancy_line.find(" 1 1 r y 0=7 3=2.5e+00"), std::string::npos) << fancy_line;
  EXPECT_EQ(slurp(bin).size(), slurp(in_bin).size());

  // Bytes the known layers leave unread belong to the unknown one: refuse to guess.
  save_bytes((slurp(in_bin) + std::string(8, '\0')).data(), slurp(in_bin).size() + 8, in_bin);
  try {
    load_model_graph(in_param, in_bin);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("8 bytes left"), std::string::npos) << what;
    EXPECT_NE(what.find("layer 'fancy' (FancyOp) has a type jitconv does not know"), std::string::npos) << what;
  }
}

TEST(OptimizeErrors, TruncatedBinNamesTheLayer) {
  TempDir dir;
  const std::string param = dir.file("t.param"), bin = dir.file("t.bin");
  GraphText g;
  g.input("data", 4, 3, 3).layer("Convolution", "conv", {"data"}, {"out"}, "0=4 1=3 5=1 6=144");
  write_text(param, g.str());
  write_text(bin, std::string(100, '\0'));
  try {
    load_model_graph(param, bin);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("layer 'conv' (Convolution)"), std::string::npos) << what;
    EXPECT_NE(what.find("truncated"), std::string::npos) << what;
  }
}

TEST(OptimizeErrors, Fp16OverflowIsRefused) {
  ModelGraph graph = graph_from_text(mixed_graph(), 7);
  static_cast<float*>(graph.layers[1].weights[0].data)[5] = 1e6f;
  EXPECT_NO_THROW(model_graph_bin(graph, WeightStorage::fp32));
  try {
    model_graph_bin(graph, WeightStorage::fp16);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("layer 'conv' (Convolution): weight #0 holds 1e+06 at position 5"), std::string::npos)
        << what;
  }
}

}  // namespace
}  // namespace test
}  // namespace jitconv
