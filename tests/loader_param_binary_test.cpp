// Binary .param.bin parsing, the writers, and shape hints.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "loader/layer_type_index.h"
#include "loader/model_writer.h"
#include "loader/param_parser.h"
#include "loader/param_value_text.h"
#include "runtime/net.h"
#include "tests/loader_test_util.h"

namespace jitconv {
namespace {

using test::error_of;

const char* const kGraphText =
    "7767517\n"
    "5 6\n"
    "Input            data   0 1 data 0=9 1=7 2=3 -23330=4,3,9,7,3\n"
    "Convolution      conv   1 1 data c 0=5 1=3 4=1 5=1 6=135 9=2 -23310=1,1.000000e-01 -23330=4,3,9,7,5\n"
    "Split            split  1 2 c c0 c1\n"
    "Interp           up     1 1 c0 u 0=2 1=2.5e+00 2=-1.5 3=\"bilinear mode\"\n"
    "Eltwise          sum    2 1 c1 u out 0=1 -23301=2,1,-0.5 -23302=0\n";

std::vector<unsigned char> words_to_bytes(const std::vector<int32_t>& words) {
  std::vector<unsigned char> bytes(words.size() * 4);
  if (!words.empty()) memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

int32_t float_word(float f) {
  int32_t w;
  memcpy(&w, &f, 4);
  return w;
}

TEST(LoaderParamBinary, TypeTableMatchesNcnnIndices) {
  // Anchors from ncnn's generated layer_type_enum.h.
  EXPECT_EQ(ncnn_layer_type_index("AbsVal"), 0);
  EXPECT_EQ(ncnn_layer_type_index("Convolution"), 6);
  EXPECT_EQ(ncnn_layer_type_index("InnerProduct"), 15);
  EXPECT_EQ(ncnn_layer_type_index("Input"), 16);
  EXPECT_EQ(ncnn_layer_type_index("Pooling"), 21);
  EXPECT_EQ(ncnn_layer_type_index("ReLU"), 26);
  EXPECT_EQ(ncnn_layer_type_index("Split"), 33);
  EXPECT_EQ(ncnn_layer_type_index("BinaryOp"), 40);
  EXPECT_EQ(ncnn_layer_type_index("ConvolutionDepthWise"), 42);
  EXPECT_EQ(ncnn_layer_type_index("HardSwish"), 67);
  EXPECT_EQ(ncnn_layer_type_index("NoSuchLayer"), -1);
  for (int i = 0; i < ncnn_layer_type_count(); i++)
    EXPECT_EQ(ncnn_layer_type_index(ncnn_layer_type_name(i)), i) << "duplicate name at " << i;
  EXPECT_EQ(ncnn_layer_type_name(-1), nullptr);
  EXPECT_EQ(ncnn_layer_type_name(ncnn_layer_type_count()), nullptr);
}

TEST(LoaderParamBinary, ParsesHandBuiltFile) {
  const std::vector<int32_t> words = {
      7767517, 2, 2,
      16, 0, 1, 0,  // Input, no bottoms, top blob 0
      0, 224, 2, 3, -23330, 4, 3, 224, 224, 3, -233,
      26, 1, 1, 0, 1,  // ReLU 0 -> 1
      0, float_word(0.25f), -23403, 5, 0x6c6c6568, 0x0000006f, -233,  // "hello" padded to 8
      0x12345678,  // trailing data (a .bin may follow)
  };
  const std::vector<unsigned char> bytes = words_to_bytes(words);
  const ParamGraph g = parse_param_binary(bytes.data(), bytes.size());
  ASSERT_EQ(g.layers.size(), 2u);
  EXPECT_EQ(g.blob_names, (std::vector<std::string>{"blob_0", "blob_1"}));
  const ParamLayer& input = g.layers[0];
  EXPECT_EQ(input.type, "Input");
  EXPECT_EQ(input.name, "layer_0");
  EXPECT_EQ(input.offset, 12u);
  EXPECT_EQ(input.params.type(0), ParamDict::Type::raw_value);
  EXPECT_EQ(input.params.get(0, 0), 224);
  EXPECT_EQ(input.params.get(2, 0), 3);
  EXPECT_EQ(input.params.type(30), ParamDict::Type::raw_array);
  EXPECT_EQ(decode_shape_hints(input), (std::vector<ShapeHint>{{3, 224, 224, 3}}));
  const ParamLayer& relu = g.layers[1];
  EXPECT_EQ(relu.type, "ReLU");
  EXPECT_EQ(relu.bottoms, (std::vector<int>{0}));
  EXPECT_EQ(relu.tops, (std::vector<int>{1}));
  EXPECT_EQ(relu.params.get(0, 0.f), 0.25f);  // raw words reinterpret as floats
  EXPECT_EQ(relu.params.get(3, std::string()), "hello");
}

TEST(LoaderParamBinary, WriterEmitsNcnnLayout) {
  ParamGraph g;
  g.blob_names = {"a", "b"};
  ParamLayer in;
  in.type = "Input";
  in.name = "in";
  in.tops = {0};
  in.params.set(0, 8);
  ParamLayer clip;
  clip.type = "Clip";
  clip.name = "clip";
  clip.bottoms = {0};
  clip.tops = {1};
  clip.params.set(1, 6.f);
  clip.params.set(2, std::vector<int>{7, -1});
  clip.params.set(4, std::string("abcd"));
  g.layers = {in, clip};
  const std::vector<int32_t> expected = {
      7767517, 2, 2,
      16, 0, 1, 0, 0, 8, -233,
      54, 1, 1, 0, 1, 1, float_word(6.f), -23302, 2, 7, -1, -23404, 4, 0x64636261, -233,
  };
  EXPECT_EQ(write_param_binary(g), words_to_bytes(expected));
}

TEST(LoaderParamBinary, TextBinaryTextRoundTrip) {
  const ParamGraph text_graph = parse_param_text(kGraphText);
  const std::vector<unsigned char> bin = write_param_binary(text_graph);
  const ParamGraph bin_graph = parse_param_binary(bin.data(), bin.size());
  EXPECT_TRUE(test::graphs_equal(text_graph, bin_graph, false));
  EXPECT_EQ(bin_graph.layers[3].params.get(3, std::string()), "bilinear mode");
  // Text written from either graph reads back with the same encoding.
  const ParamGraph again = parse_param_text(write_param_text(text_graph));
  EXPECT_TRUE(test::graphs_equal(text_graph, again, true));
  const ParamGraph from_bin_text = parse_param_text(write_param_text(bin_graph));
  EXPECT_TRUE(test::graphs_equal(text_graph, from_bin_text, false));
  // The heuristic picks int text for small words and float text for the rest.
  EXPECT_EQ(from_bin_text.layers[1].params.type(0), ParamDict::Type::int_value);
  EXPECT_EQ(from_bin_text.layers[3].params.type(1), ParamDict::Type::float_value);
  EXPECT_EQ(from_bin_text.layers[1].params.type(10), ParamDict::Type::float_array);
}

TEST(LoaderParamBinary, ShapeHintsCanBeLeftOut) {
  const ParamGraph g = parse_param_text(kGraphText);
  const ParamGraph text = parse_param_text(write_param_text(g, false));
  const std::vector<unsigned char> bytes = write_param_binary(g, false);
  const ParamGraph bin = parse_param_binary(bytes.data(), bytes.size());
  for (const ParamGraph* h : {&text, &bin}) {
    for (const ParamLayer& layer : h->layers) EXPECT_FALSE(layer.params.has(kShapeHintParamId)) << layer.name;
    EXPECT_EQ(h->layers[1].params.get(6, 0), 135);
  }
}

TEST(LoaderParamBinary, RawWordsSurviveText) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 2000; trial++) {
    ParamDict pd;
    pd.set_raw(0, static_cast<uint32_t>(rng()));
    pd.set_raw(1, static_cast<uint32_t>(rng() % 4096) - 2048u);
    std::vector<uint32_t> ints, floats;
    for (int k = 0; k < 3; k++) ints.push_back(static_cast<uint32_t>(rng() % 100000) - 50000u);
    for (int k = 0; k < 3; k++) {
      float f = std::ldexp(static_cast<float>(rng() % 1000000) + 1.f, static_cast<int>(rng() % 100) - 50);
      if (rng() % 2) f = -f;
      uint32_t w;
      memcpy(&w, &f, 4);
      floats.push_back(w);
    }
    pd.set_raw(2, ints);
    pd.set_raw(3, floats);
    // An int array holding a NaN-shaped word (-233) next to a large int stays exact.
    floats.push_back(static_cast<uint32_t>(-233));
    pd.set_raw(4, floats);
    ParamDict back;
    for (int id : pd.ids()) parse_param_token(format_param(pd, id), back, "test");
    ASSERT_TRUE(pd.same_encoding(back)) << format_param(pd, 0) << " " << format_param(pd, 3);
  }
}

TEST(LoaderParamBinary, FloatsRoundTripThroughTextExactly) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 20000; trial++) {
    uint32_t w = static_cast<uint32_t>(rng());
    float f;
    memcpy(&f, &w, 4);
    if (std::isnan(f)) continue;
    ParamDict pd, back;
    pd.set(0, f);
    parse_param_token(format_param(pd, 0), back, "test");
    ASSERT_EQ(back.type(0), ParamDict::Type::float_value) << format_param(pd, 0);
    ASSERT_EQ(back.words(0), pd.words(0)) << format_param(pd, 0);
  }
}

TEST(LoaderParamBinary, ValidationErrorsNameByteOffset) {
  struct Case {
    std::vector<int32_t> words;
    const char* expect;
  };
  const Case cases[] = {
      {{7767518, 1, 1}, "byte offset 0: bad magic 7767518"},
      {{7767517, -1, 1}, "byte offset 4: negative layer count -1"},
      {{7767517, 1000, 1, 16, 0, 1, 0, -233}, "byte offset 4: layer count 1000 needs more bytes"},
      {{7767517, 1, 5, 16, 0, 1, 0, -233}, "blob 1 of 5 is never produced"},
      {{7767517, 1, 1, 200, 0, 1, 0, -233}, "byte offset 12: layer #0: unknown layer type index 200"},
      {{7767517, 1, 1, 256 | 3, 0, 1, 0, -233}, "custom layer type index 259 (custom #3) is not supported"},
      {{7767517, 1, 1, -4, 0, 1, 0, -233}, "unknown layer type index -4"},
      {{7767517, 1, 1, 16, 0, -2, -233}, "byte offset 20: layer 'layer_0' (Input): negative top count -2"},
      {{7767517, 1, 1, 16, 0, 1, 3, -233}, "byte offset 24: layer 'layer_0' (Input): top blob index 3 outside [0, 1)"},
      {{7767517, 2, 2, 16, 0, 1, 0, -233, 26, 1, 1, 1, 0, -233}, "byte offset 44: layer 'layer_1' (ReLU): bottom blob 1 is not produced"},
      {{7767517, 2, 2, 16, 0, 1, 0, -233, 26, 1, 1, 5, 0, -233}, "bottom blob index 5 outside [0, 2)"},
      {{7767517, 2, 2, 16, 0, 1, 0, -233, 26, 1, 1, 0, 0, -233}, "byte offset 48: layer 'layer_1' (ReLU): blob 0 is produced twice (also by layer #0)"},
      {{7767517, 1, 1, 16, 0, 1, 0, 32, 1, -233}, "byte offset 28: layer 'layer_0' (Input): parameter key 32 (id 32) outside 0..31"},
      {{7767517, 1, 1, 16, 0, 1, 0, -7, 1, -233}, "id -7) outside"},
      {{7767517, 1, 1, 16, 0, 1, 0, -23332, 0, -233}, "parameter key -23332 (id 32)"},
      {{7767517, 1, 1, 16, 0, 1, 0, -23432, 0, -233}, "parameter key -23432 (id 32)"},
      {{7767517, 1, 1, 16, 0, 1, 0, 1, 5, 1, 6, -233}, "byte offset 36: layer 'layer_0' (Input): parameter id 1 given twice"},
      {{7767517, 1, 1, 16, 0, 1, 0, -23301, -3, -233}, "negative array length -3"},
      {{7767517, 1, 1, 16, 0, 1, 0, -23301, 100000, -233}, "array length 100000 needs more bytes"},
      {{7767517, 1, 1, 16, 0, 1, 0, -23401, 256, -233}, "string parameter 1 has length 256"},
      {{7767517, 1, 1, 16, 0, 1, 0, -23401, 9, 0, -233}, "truncated while reading string parameter 1"},
      {{7767517, 1, 1, 16, 0, 1, 0, 0, 1}, "truncated while reading a parameter id"},
  };
  for (const Case& c : cases) {
    const std::vector<unsigned char> bytes = words_to_bytes(c.words);
    const std::string msg = error_of([&] { parse_param_binary(bytes.data(), bytes.size(), "m.param.bin"); });
    EXPECT_NE(msg.find(c.expect), std::string::npos) << "message: " << msg;
    EXPECT_EQ(msg.rfind("m.param.bin: byte offset", 0), 0u) << msg;
  }
}

TEST(LoaderParamBinary, HugeCountsFromAStreamFailCleanly) {
  // Through a FILE* with no known size, corrupt counts must not allocate their claim.
  const std::vector<int32_t> words = {7767517, 1, 2000000000, 16, 0, 1, 1999999999, -23301, 2000000000};
  const std::vector<unsigned char> bytes = words_to_bytes(words);
  FILE* fp = fmemopen(const_cast<unsigned char*>(bytes.data()), bytes.size(), "rb");
  ASSERT_NE(fp, nullptr);
  DataReaderFromStdio reader(fp);
  EXPECT_EQ(reader.remaining(), kUnknownSize);
  const std::string msg = error_of([&] { parse_param_binary(reader, "pipe"); });
  EXPECT_NE(msg.find("truncated while reading array elements"), std::string::npos) << msg;
  fclose(fp);
}

TEST(LoaderParamBinary, TruncationAtEveryByte) {
  const std::vector<unsigned char> bytes = write_param_binary(parse_param_text(kGraphText));
  for (size_t cut = 0; cut < bytes.size(); cut++) {
    std::vector<unsigned char> prefix(bytes.begin(), bytes.begin() + cut);
    const std::string msg = error_of([&] { parse_param_binary(prefix.data(), prefix.size()); });
    EXPECT_NE(msg.find("byte offset"), std::string::npos) << "cut " << cut << ": " << msg;
  }
}

TEST(LoaderParamBinary, FileDetection) {
  test::TempDir dir;
  const ParamGraph g = parse_param_text(kGraphText);
  save_param_binary(g, dir.file("m.param.bin"));
  save_param_text(g, dir.file("m.param"));
  EXPECT_TRUE(test::graphs_equal(load_param_file(dir.file("m.param.bin")), g, false));
  EXPECT_TRUE(test::graphs_equal(load_param_file(dir.file("m.param")), g, true));
  test::write_file(dir.file("empty.param"), "", 0);
  EXPECT_NE(error_of([&] { load_param_file(dir.file("empty.param")); }).find("empty file"), std::string::npos);
}

TEST(LoaderParamBinary, WritersRejectWhatTheyCannotEncode) {
  ParamGraph g = parse_param_text(kGraphText);
  ParamGraph custom = g;
  custom.layers[2].type = "MyCustomOp";
  EXPECT_NE(error_of([&] { write_param_binary(custom); }).find("no ncnn built-in layer index"), std::string::npos);
  EXPECT_FALSE(write_param_text(custom).empty());
  ParamGraph spaced = g;
  spaced.layers[1].name = "conv 1";
  EXPECT_NE(error_of([&] { write_param_text(spaced); }).find("cannot be written"), std::string::npos);
  ParamGraph quoted = g;
  quoted.layers[3].params.set(3, std::string("say \"hi\""));
  EXPECT_NE(error_of([&] { write_param_text(quoted); }).find("quotes"), std::string::npos);
  ParamGraph dangling = g;
  dangling.layers[2].bottoms = {6};
  const std::string dangling_msg = error_of([&] { write_param_text(dangling); });
  EXPECT_NE(dangling_msg.find("out of range"), std::string::npos) << dangling_msg;
  ParamGraph twice = g;
  twice.layers[2].tops = {1, 3};
  EXPECT_NE(error_of([&] { write_param_binary(twice); }).find("produced twice"), std::string::npos);
  ParamGraph bad_id = g;
  bad_id.layers[0].params.set(40, 1);
  EXPECT_NE(error_of([&] { write_param_binary(bad_id); }).find("outside 0..31"), std::string::npos);
}

TEST(LoaderShapeHints, DecodeAndValidate) {
  ParamLayer layer;
  layer.type = "Split";
  layer.name = "s";
  layer.tops = {0, 1, 2};
  set_shape_hints(layer, {{3, 4, 5, 6}, {1, 7, 0, 0}, {0, 0, 0, 0}});
  EXPECT_EQ(decode_shape_hints(layer), (std::vector<ShapeHint>{{3, 4, 5, 6}, {1, 7, 0, 0}, {0, 0, 0, 0}}));
  const std::vector<Mat> mats = shape_hint_mats(layer);
  ASSERT_EQ(mats.size(), 3u);
  EXPECT_EQ(mats[0].dims, 3);
  EXPECT_EQ(mats[0].w, 4);
  EXPECT_EQ(mats[0].h, 5);
  EXPECT_EQ(mats[0].c, 6);
  EXPECT_EQ(mats[0].data, nullptr);
  EXPECT_EQ(mats[1].dims, 1);
  EXPECT_EQ(mats[1].w, 7);
  EXPECT_EQ(mats[2].dims, 0);

  ParamLayer none;
  EXPECT_TRUE(decode_shape_hints(none).empty());
  ParamLayer short_hints = layer;
  short_hints.params.set(kShapeHintParamId, std::vector<int>{3, 4, 5, 6});
  EXPECT_NE(error_of([&] { decode_shape_hints(short_hints); }).find("expected 4 per top blob (12) or 5 (15)"),
            std::string::npos);
  // Current ncnn's five ints per top (dims, w, h, d, c), as ncnnoptimize writes them for a
  // layer with a 4-D output: the same hints; a 4-D one unknown; a depth other than 1 below
  // 4-D is bad.
  ParamLayer five = layer;
  five.params.set(kShapeHintParamId, std::vector<int>{3, 4, 5, 1, 6, 4, 3, 2, 2, 5, 1, 7, 1, 1, 1});
  EXPECT_EQ(decode_shape_hints(five), (std::vector<ShapeHint>{{3, 4, 5, 6}, {0, 0, 0, 0}, {1, 7, 1, 1}}));
  five.params.set(kShapeHintParamId, std::vector<int>{3, 4, 5, 2, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_NE(error_of([&] { decode_shape_hints(five); }).find("bad shape hint for top #0: dims=3 w=4 h=5 d=2"),
            std::string::npos);
  ParamLayer bad_dims = layer;
  set_shape_hints(bad_dims, {{5, 1, 1, 1}, {1, 1, 0, 0}, {0, 0, 0, 0}});
  EXPECT_NE(error_of([&] { decode_shape_hints(bad_dims); }).find("bad shape hint for top #0"), std::string::npos);
  // ncnnoptimize's hint for a 4-D blob (dims 4, no depth): unknown, as in ncnn.
  ParamLayer four_d = layer;
  set_shape_hints(four_d, {{4, 3, 2, 2}, {1, 7, 0, 0}, {0, 0, 0, 0}});
  const std::vector<ShapeHint> four_d_hints = decode_shape_hints(four_d);
  EXPECT_EQ(four_d_hints[0], ShapeHint());
  EXPECT_EQ(four_d_hints[1].w, 7);
  ParamLayer zero_extent = layer;
  set_shape_hints(zero_extent, {{3, 4, 0, 6}, {1, 1, 0, 0}, {0, 0, 0, 0}});
  // The message names the top, not the layer: the caller (Net, the optimizer) puts the
  // layer's file, line and name in front, once.
  EXPECT_NE(error_of([&] { decode_shape_hints(zero_extent); }).find("bad shape hint for top #0: dims=3 w=4 h=0"),
            std::string::npos);
  Net hinted;
  const std::string hint_error = error_of([&] {
    hinted.load_param_mem("7767517\n2 2\nInput in 0 1 in 0=8 1=8 2=4\nReLU r 1 1 in out -23330=4,3,-8,8,4\n");
  });
  EXPECT_NE(hint_error.find("<param>:4: layer 'r' (ReLU): bad shape hint"), std::string::npos) << hint_error;
  EXPECT_EQ(hint_error.find("(ReLU): layer"), std::string::npos) << hint_error;
  ParamLayer floats = layer;
  floats.params.set(kShapeHintParamId, std::vector<float>(12, 1.f));
  EXPECT_NE(error_of([&] { decode_shape_hints(floats); }).find("int array"), std::string::npos);
}

}  // namespace
}  // namespace jitconv
