// Text .param parsing: every value form, arrays, strings, layout tolerance, and one
// error (with its line number) per validation rule.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "loader/param_parser.h"
#include "loader/param_value_text.h"
#include "runtime/error.h"
#include "tests/loader_test_util.h"

namespace jitconv {
namespace {

using test::error_of;
using Type = ParamDict::Type;

ParamDict parse_params(const std::string& kv) {
  const std::string text = "7767517\n1 1\nInput in 0 1 data " + kv + "\n";
  return parse_param_text(text).layers.at(0).params;
}

uint32_t bits_of(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

TEST(LoaderParamText, ParsesAGraph) {
  const std::string text =
      "7767517\n"
      "4 5\n"
      "Input            data     0 1 data 0=8 1=6 2=3\n"
      "Convolution      conv1    1 1 data c1 0=16 1=3 4=1 5=1 6=432 -23330=4,3,8,6,16\n"
      "Split            split    1 2 c1 c1_a c1_b\n"
      "BinaryOp         add      2 1 c1_a c1_b out 0=0\n";
  const ParamGraph g = parse_param_text(text, "net.param");
  ASSERT_EQ(g.layers.size(), 4u);
  EXPECT_EQ(g.blob_names, (std::vector<std::string>{"data", "c1", "c1_a", "c1_b", "out"}));
  const ParamLayer& conv = g.layers[1];
  EXPECT_EQ(conv.type, "Convolution");
  EXPECT_EQ(conv.name, "conv1");
  EXPECT_EQ(conv.line, 4);
  EXPECT_EQ(conv.bottoms, (std::vector<int>{0}));
  EXPECT_EQ(conv.tops, (std::vector<int>{1}));
  EXPECT_EQ(conv.params.get(0, 0), 16);
  EXPECT_EQ(conv.params.get(6, 0), 432);
  EXPECT_EQ(conv.params.get_ints(30), (std::vector<int>{3, 8, 6, 16}));
  EXPECT_EQ(g.layers[3].bottoms, (std::vector<int>{2, 3}));
  EXPECT_EQ(g.layers[3].tops, (std::vector<int>{4}));
  EXPECT_EQ(g.find_blob("c1_b"), 3);
  EXPECT_EQ(g.find_layer("split"), 2);
  EXPECT_EQ(g.find_layer("nope"), -1);
}

TEST(LoaderParamText, ScalarForms) {
  const ParamDict pd = parse_params("0=42 1=-7 2=+5 3=1.5 4=-2.5E-2 5=1e3 6=.5 7=5. 8=1.000000e-04 9=0.1");
  EXPECT_EQ(pd.type(0), Type::int_value);
  EXPECT_EQ(pd.get(0, 0), 42);
  EXPECT_EQ(pd.get(1, 0), -7);
  EXPECT_EQ(pd.get(2, 0), 5);
  for (int id = 3; id <= 9; id++) EXPECT_EQ(pd.type(id), Type::float_value) << id;
  EXPECT_EQ(pd.get(3, 0.f), 1.5f);
  EXPECT_EQ(pd.get(4, 0.f), -0.025f);
  EXPECT_EQ(pd.get(5, 0.f), 1000.f);
  EXPECT_EQ(pd.get(6, 0.f), 0.5f);
  EXPECT_EQ(pd.get(7, 0.f), 5.f);
  EXPECT_EQ(pd.get(8, 0.f), 1e-4f);  // nearest float, as strtof would give
  EXPECT_EQ(bits_of(pd.get(9, 0.f)), bits_of(0.1f));
  // Ints and floats convert to each other instead of being reinterpreted.
  EXPECT_EQ(pd.get(0, 0.f), 42.f);
  EXPECT_EQ(pd.get(3, 0), 1);
}

TEST(LoaderParamText, NonFiniteAndExtremeFloats) {
  const ParamDict pd = parse_params("0=nan 1=inf 2=-inf 3=INF 4=-Infinity 5=NaN 6=1e-50 7=-1e-50 8=1e-40");
  EXPECT_TRUE(std::isnan(pd.get(0, 0.f)));
  EXPECT_EQ(pd.get(1, 0.f), INFINITY);
  EXPECT_EQ(pd.get(2, 0.f), -INFINITY);
  EXPECT_EQ(pd.get(3, 0.f), INFINITY);
  EXPECT_EQ(pd.get(4, 0.f), -INFINITY);
  EXPECT_TRUE(std::isnan(pd.get(5, 0.f)));
  EXPECT_EQ(bits_of(pd.get(6, 1.f)), bits_of(0.f));
  EXPECT_EQ(bits_of(pd.get(7, 1.f)), bits_of(-0.f));
  EXPECT_EQ(pd.get(8, 0.f), 1e-40f);  // a subnormal float is kept
}

TEST(LoaderParamText, ArraysInBothForms) {
  const ParamDict pd = parse_params(
      "-23300=3,1,-2,3 -23301=2,0.5,1e1 -23302=3,1,2.5,3 -23303=0 4=4,5,6 5=0.25,-1 6=1,2.5 -23307=1,-9 8=7,8,");
  EXPECT_EQ(pd.type(0), Type::int_array);
  EXPECT_EQ(pd.get_ints(0), (std::vector<int>{1, -2, 3}));
  EXPECT_EQ(pd.type(1), Type::float_array);
  EXPECT_EQ(pd.get_floats(1), (std::vector<float>{0.5f, 10.f}));
  // A mixed array is a float array; its int elements are converted.
  EXPECT_EQ(pd.type(2), Type::float_array);
  EXPECT_EQ(pd.get_floats(2), (std::vector<float>{1.f, 2.5f, 3.f}));
  EXPECT_TRUE(pd.is_array(3));
  EXPECT_TRUE(pd.get_ints(3, {99}).empty());
  EXPECT_EQ(pd.type(4), Type::int_array);
  EXPECT_EQ(pd.get_ints(4), (std::vector<int>{4, 5, 6}));
  EXPECT_EQ(pd.type(5), Type::float_array);
  EXPECT_EQ(pd.get_floats(5), (std::vector<float>{0.25f, -1.f}));
  EXPECT_EQ(pd.get_floats(6), (std::vector<float>{1.f, 2.5f}));
  EXPECT_EQ(pd.get_ints(7), (std::vector<int>{-9}));
  // A trailing comma ends an array, as ncnn's scan stops there.
  EXPECT_EQ(pd.get_ints(8), (std::vector<int>{7, 8}));
  // Int arrays come back from get(id, Mat) as int32 bits, as in ncnn.
  Mat m = pd.get(4, Mat());
  ASSERT_EQ(m.w, 3);
  EXPECT_EQ(static_cast<const int*>(m.data)[2], 6);
}

TEST(LoaderParamText, Strings) {
  const ParamDict pd = parse_params("0=\"hello world\" 1=abc 2=\"\" 3=x,y 4=\"a=b,c\" 5=\"nan\"");
  EXPECT_EQ(pd.type(0), Type::string_value);
  EXPECT_EQ(pd.get(0, std::string()), "hello world");
  EXPECT_EQ(pd.get(1, std::string()), "abc");
  EXPECT_EQ(pd.type(2), Type::string_value);
  EXPECT_EQ(pd.get(2, std::string("x")), "");
  EXPECT_EQ(pd.get(3, std::string()), "x,y");  // unquoted strings may hold commas (ncnn)
  EXPECT_EQ(pd.get(4, std::string()), "a=b,c");
  EXPECT_EQ(pd.get(5, std::string()), "nan");  // quoted: a string, not a float
  EXPECT_THROW(pd.get(0, 7), Error);          // a string is no number: an error, not the default
  const std::string longest(255, 'q');
  EXPECT_EQ(parse_params("0=" + longest).get(0, std::string()), longest);
}

TEST(LoaderParamText, ToleratesLayoutNoise) {
  const std::string text =
      "\xEF\xBB\xBF" "7767517\r\n"
      "\r\n"
      "  2\t2 \r\n"
      "Input\t\tdata 0 1 data\t0=3   1=4\r\n"
      "\n"
      "ReLU relu 1 1 data out 0=0.1\r\n"
      "   \t\r\n";
  const ParamGraph g = parse_param_text(text);
  ASSERT_EQ(g.layers.size(), 2u);
  EXPECT_EQ(g.layers[0].params.get(1, 0), 4);
  EXPECT_EQ(g.layers[1].params.get(0, 0.f), 0.1f);
  EXPECT_EQ(g.layers[1].line, 6);
  EXPECT_EQ(g.blob_names, (std::vector<std::string>{"data", "out"}));
  // No line break at the end of the file.
  EXPECT_EQ(parse_param_text("7767517\n1 1\nInput in 0 1 x 0=1").layers[0].params.get(0, 0), 1);
  // The counts on the magic's line (ncnn reads the header as three numbers).
  const ParamGraph one_line = parse_param_text("7767517 2 2\nInput in 0 1 x\nReLU r 1 1 x y\n");
  ASSERT_EQ(one_line.layers.size(), 2u);
  EXPECT_EQ(one_line.layers[1].line, 3);
}

struct BadParam {
  const char* text;
  const char* expect;  // a fragment the message must contain
};

// Each rule once; the location fragment pins the line (and layer) the error names.
TEST(LoaderParamText, ValidationErrorsNameLineAndLayer) {
  const BadParam cases[] = {
      {"", "empty file"},
      {"7767518\n1 1\nInput in 0 1 x\n", "bad.param:1: bad magic '7767518'"},
      {"7767517 1\n", "bad.param:1: expected the magic number alone or followed by 'layer_count blob_count', got 2"},
      {"\x01\x02z\n1 1\n", "bad.param:1: bad magic '\\x01\\x02z'"},  // bytes shown, not cut at a NUL
      {"7767517\n", "truncated after the magic"},
      {"7767517\n1\nInput in 0 1 x\n", "bad.param:2: expected 'layer_count blob_count'"},
      {"7767517\n1 x\nInput in 0 1 x\n", "bad.param:2: bad blob count 'x'"},
      {"7767517\n-1 1\n", "bad.param:2: bad layer count '-1'"},
      {"7767517\n2 2\nInput in 0 1 x\n", "bad.param:4: truncated: the header declares 2 layers, found 1"},
      {"7767517\n1 1\nInput in 0 1 x\nReLU r 1 1 x y\n", "bad.param:4: extra line after the 1 layers"},
      {"7767517\n1 2\nInput in 0 1 x\n", "the header declares 2 blobs, the layers produce 1"},
      {"7767517\n2 1\nInput in 0 1 x\nInput in2 0 1 x\n", "bad.param:4: layer 'in2' (Input): blob 'x' is produced twice (first on line 3)"},
      {"7767517\n2 2\nInput in 0 1 x\nReLU r 1 2 x y z\n", "bad.param:4: layer 'r' (ReLU): top blob 'z' exceeds the 2"},
      {"7767517\n2 2\nInput a 0 1 x\nReLU a 1 1 x y\n", "bad.param:4: layer 'a' (ReLU): duplicate layer name (first used on line 3)"},
      {"7767517\n2 2\nInput in 0 1 x\nReLU r 1 1 q y\n", "bad.param:4: layer 'r' (ReLU): unknown bottom blob 'q'"},
      {"7767517\n2 2\nInput in 0 1 x\nReLU r 1 1 y y\n", "unknown bottom blob 'y'"},
      {"7767517\n2 2\nInput in 0 1 x\nReLU r 1 1 x\n", "bad.param:4: layer 'r' (ReLU): expected 1 bottom and 1 top blob names, found 1"},
      {"7767517\n2 2\nInput in 0 1 x\nReLU r 1 1 x 0=1\n", "expected 1 bottom and 1 top blob names, found 1"},
      {"7767517\n2 2\nInput in 0 1 x\nReLU r 1 1 x y z\n", "expected 1 bottom and 1 top blob names, found 3"},
      {"7767517\n1 1\nInput in 0 1\n", "bad.param:3: layer 'in' (Input): expected 0 bottom and 1 top blob names, found 0"},
      {"7767517\n1 1\nInput in x 1 a\n", "bad.param:3: layer 'in' (Input): bad bottom count 'x'"},
      {"7767517\n1 1\nInput in 0 -1 a\n", "bad top count '-1'"},
      {"7767517\n1 1\nInput\n", "bad.param:3: expected 'type name bottom_count top_count"},
      {"7767517\n1 1\nInput in 0 1 x 0=\n", "bad.param:3: layer 'in' (Input): parameter '0=': missing value"},
      {"7767517\n1 1\nInput in 0 1 x 0=1 junk\n", "bad.param:3: layer 'in' (Input): expected key=value, got 'junk'"},
      {"7767517\n1 1\nInput in 0 1 x 0=1.2.3\n", "parameter '0=1.2.3': '1.2.3' is not a number"},
      {"7767517\n1 1\nInput in 0 1 x 0=12ab\n", "'12ab' is not a number"},
      {"7767517\n1 1\nInput in 0 1 x 0=-abc\n", "'-abc' is not a number"},
      {"7767517\n1 1\nInput in 0 1 x 0=0x10\n", "'0x10' is not a number"},
      {"7767517\n1 1\nInput in 0 1 x 0=99999999999\n", "out of int range"},
      {"7767517\n1 1\nInput in 0 1 x 0=1e39\n", "out of float range"},
      {"7767517\n1 1\nInput in 0 1 x 0=1,,2\n", "empty number"},
      {"7767517\n1 1\nInput in 0 1 x 0=1,b\n", "'b' is not a number"},
      {"7767517\n1 1\nInput in 0 1 x -23300=3,1,2\n", "count says 3 elements, found 2"},
      {"7767517\n1 1\nInput in 0 1 x -23300=1,1,2\n", "count says 1 elements, found 2"},
      {"7767517\n1 1\nInput in 0 1 x -23300=-1\n", "bad element count '-1'"},
      {"7767517\n1 1\nInput in 0 1 x -23300=a,1\n", "'a' is not a number"},
      {"7767517\n1 1\nInput in 0 1 x 32=1\n", "id 32 outside 0..31"},
      {"7767517\n1 1\nInput in 0 1 x -5=1\n", "id -5 outside 0..31"},
      {"7767517\n1 1\nInput in 0 1 x -23332=2,1,1\n", "id 32 outside 0..31"},
      {"7767517\n1 1\nInput in 0 1 x 99999999999999999999=1\n", "key out of range"},
      {"7767517\n1 1\nInput in 0 1 x 1=1 1=2\n", "id 1 given twice"},
      {"7767517\n1 1\nInput in 0 1 x 1=1 -23301=1,2\n", "id 1 given twice"},
      {"7767517\n1 1\nInput in 0 1 x 1=\"abc\n", "bad.param:3: unterminated quoted string"},
      {"7767517\n1 1\nInput in 0 1 x 1=\"ab\"c\n", "malformed quoted string"},
      {"7767517\n1 1\nInput in 0 1 x 1=ab\"c\"\n", "stray quote"},
  };
  for (const BadParam& c : cases) {
    const std::string msg = error_of([&] { parse_param_text(c.text, "bad.param"); });
    EXPECT_NE(msg.find(c.expect), std::string::npos) << "input:\n" << c.text << "\nmessage: " << msg;
  }
  const std::string too_long = "7767517\n1 1\nInput in 0 1 x 0=" + std::string(256, 's') + "\n";
  EXPECT_NE(error_of([&] { parse_param_text(too_long, "bad.param"); }).find("longer than 255"), std::string::npos);
}

TEST(LoaderParamText, StdioAndStringReadersAgree) {
  const std::string text = "7767517\n2 2\nInput in 0 1 x 0=4 -23301=2,1.5,2\nReLU r 1 1 x y 0=\"s p\"\n";
  test::TempDir dir;
  test::write_file(dir.file("a.param"), text.data(), text.size());
  UniqueFile fp = open_file(dir.file("a.param"), "rb");
  DataReaderFromStdio reader(fp.get());
  const ParamGraph from_file = parse_param_text(reader, "a.param");
  EXPECT_TRUE(test::graphs_equal(from_file, parse_param_text(text), true));
  EXPECT_TRUE(test::graphs_equal(load_param_file(dir.file("a.param")), from_file, true));
  EXPECT_NE(error_of([&] { load_param_file(dir.file("missing.param")); }).find("missing.param"), std::string::npos);
}

TEST(LoaderParamText, LooksLikeParam) {
  EXPECT_TRUE(looks_like_param("0=1"));
  EXPECT_TRUE(looks_like_param("-23300=0"));
  EXPECT_TRUE(looks_like_param("+3=x"));
  EXPECT_FALSE(looks_like_param("=1"));
  EXPECT_FALSE(looks_like_param("a=1"));
  EXPECT_FALSE(looks_like_param("12"));
  EXPECT_FALSE(looks_like_param("-="));
}

}  // namespace
}  // namespace jitconv
