// The benchdnn-notation descriptor parser: accepted forms, derived fields, every
// rejection with a message naming the field, and the round trip through to_string.
#include <gtest/gtest.h>

#include <dirent.h>

#include <random>
#include <string>
#include <vector>

#include "runtime/conv_desc.h"
#include "runtime/error.h"

using namespace jitconv;

namespace {

// Every field, so a mismatch names the first one that differs.
void expect_same(const ConvDesc& a, const ConvDesc& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.repeat, b.repeat);
  EXPECT_EQ(a.mb, b.mb);
  EXPECT_EQ(a.g, b.g);
  EXPECT_EQ(a.has_groups, b.has_groups);
  EXPECT_EQ(a.ic, b.ic);
  EXPECT_EQ(a.ih, b.ih);
  EXPECT_EQ(a.iw, b.iw);
  EXPECT_EQ(a.oc, b.oc);
  EXPECT_EQ(a.oh, b.oh);
  EXPECT_EQ(a.ow, b.ow);
  EXPECT_EQ(a.kh, b.kh);
  EXPECT_EQ(a.kw, b.kw);
  EXPECT_EQ(a.sh, b.sh);
  EXPECT_EQ(a.sw, b.sw);
  EXPECT_EQ(a.pad_top, b.pad_top);
  EXPECT_EQ(a.pad_left, b.pad_left);
  EXPECT_EQ(a.pad_bottom, b.pad_bottom);
  EXPECT_EQ(a.pad_right, b.pad_right);
  EXPECT_EQ(a.dilation_h, b.dilation_h);
  EXPECT_EQ(a.dilation_w, b.dilation_w);
}

// Output size by the textbook formula, independent of the parser's helpers.
int out_size(int in, int k, int s, int pad_begin, int pad_end, int dilation) {
  return (in + pad_begin + pad_end - ((k - 1) * dilation + 1)) / s + 1;
}

// The descriptor must be rejected with a message containing `needle`.
void expect_rejected(const std::string& text, const std::string& needle) {
  try {
    const ConvDesc d = parse_conv_desc(text);
    ADD_FAILURE() << "'" << text << "' was accepted as " << to_string(d);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "'" << text << "': message '" << e.what() << "' does not mention '" << needle << "'";
  }
}

}  // namespace

TEST(ConvDesc, ParsesTheCompactForm) {
  const ConvDesc d = parse_conv_desc("mb1ic64ih56oc64oh56kh3ph1n\"resnet:3x3_64\"");
  EXPECT_EQ(d.name, "resnet:3x3_64");
  EXPECT_EQ(d.mb, 1);
  EXPECT_EQ(d.g, 1);
  EXPECT_FALSE(d.has_groups);
  EXPECT_EQ(d.ic, 64);
  EXPECT_EQ(d.ih, 56);
  EXPECT_EQ(d.iw, 56);  // square: w copies h
  EXPECT_EQ(d.oc, 64);
  EXPECT_EQ(d.ow, 56);
  EXPECT_EQ(d.kw, 3);
  EXPECT_EQ(d.pad_left, 1);
  EXPECT_EQ(d.pad_bottom, 1);
  EXPECT_EQ(d.pad_right, 1);
  EXPECT_EQ(d.dilation_h, 1);
  EXPECT_EQ(d.flops(), 2.0 * 64 * 56 * 56 * 64 * 9);
}

TEST(ConvDesc, ParsesTheUnderscoredFormWithGroups) {
  const ConvDesc d =
      parse_conv_desc("g2mb1_ic96ih27iw29_oc256oh27ow29_kh5kw3_sh1sw1_ph2pw1_dh0dw0_n\"alexnet:conv2\"");
  EXPECT_EQ(d.g, 2);
  EXPECT_TRUE(d.has_groups);
  EXPECT_EQ(d.iw, 29);
  EXPECT_EQ(d.kw, 3);
  EXPECT_EQ(d.pad_left, 1);
  EXPECT_EQ(d.pad_right, 1);
  EXPECT_EQ(d.name, "alexnet:conv2");
  EXPECT_EQ(d.flops(), 2.0 * 256 * 27 * 29 * 48 * 5 * 3);
  EXPECT_FALSE(d.is_depthwise());
  EXPECT_TRUE(parse_conv_desc("g32ic32ih9oc32kh3").is_depthwise());
}

TEST(ConvDesc, DefaultsAndDerivedOutput) {
  const ConvDesc d = parse_conv_desc("ic16ih10oc8kh3");
  EXPECT_EQ(d.mb, 2);
  EXPECT_EQ(d.g, 1);
  EXPECT_EQ(d.oh, 8);
  EXPECT_EQ(d.ow, 8);
  EXPECT_EQ(d.pad_top, 0);
  EXPECT_EQ(d.pad_bottom, 0);
  EXPECT_TRUE(d.name.empty());
  EXPECT_EQ(d.repeat, 1);

  // Stride 2: the output floors, so the bottom padding is one less than the top.
  const ConvDesc s = parse_conv_desc("mb1ic3ih224oc64kh7sh2ph3");
  EXPECT_EQ(s.oh, 112);
  EXPECT_EQ(s.pad_top, 3);
  EXPECT_EQ(s.pad_bottom, 2);
  EXPECT_EQ(s.oh, out_size(s.ih, s.kh, s.sh, s.pad_top, s.pad_bottom, s.dilation_h));
}

TEST(ConvDesc, OneDimensionalProblem) {
  const ConvDesc d = parse_conv_desc("ic4iw20oc8kw3pw1");
  EXPECT_EQ(d.ih, 1);
  EXPECT_EQ(d.kh, 1);
  EXPECT_EQ(d.oh, 1);
  EXPECT_EQ(d.pad_top, 0);
  EXPECT_EQ(d.pad_bottom, 0);
  EXPECT_EQ(d.iw, 20);
  EXPECT_EQ(d.ow, 20);
  EXPECT_EQ(d.pad_right, 1);
}

TEST(ConvDesc, DilationIsStoredOneBased) {
  const ConvDesc d1 = parse_conv_desc("ic8ih20oc8kh3dh1");
  EXPECT_EQ(d1.dilation_h, 2);
  EXPECT_EQ(d1.dilation_w, 2);
  EXPECT_EQ(d1.oh, 16);  // effective kernel 5
  const ConvDesc d2 = parse_conv_desc("ic8ih20iw21oc8kh3kw2dh2dw0");
  EXPECT_EQ(d2.dilation_h, 3);
  EXPECT_EQ(d2.dilation_w, 1);
  EXPECT_EQ(d2.oh, 14);  // effective kernel 7
  EXPECT_EQ(d2.ow, 20);
}

TEST(ConvDesc, GivenOutputGetsTrivialOrBottomPadding) {
  // oh given, ph not: benchdnn's trivial padding, the remainder at the bottom.
  const ConvDesc t = parse_conv_desc("ic8ih10oc8oh10kh3");
  EXPECT_EQ(t.pad_top, 1);
  EXPECT_EQ(t.pad_bottom, 1);
  const ConvDesc even = parse_conv_desc("ic8ih10oc8oh10kh4");
  EXPECT_EQ(even.pad_top, 1);
  EXPECT_EQ(even.pad_bottom, 2);
  // oh larger than derived pads the bottom/right.
  const ConvDesc big = parse_conv_desc("ic8ih10iw9oc8oh12ow11kh3kw3ph1pw0");
  EXPECT_EQ(big.pad_top, 1);
  EXPECT_EQ(big.pad_bottom, 3);
  EXPECT_EQ(big.pad_left, 0);
  EXPECT_EQ(big.pad_right, 4);
  for (const ConvDesc& d : {t, even, big}) {
    EXPECT_EQ(d.oh, out_size(d.ih, d.kh, d.sh, d.pad_top, d.pad_bottom, d.dilation_h));
    EXPECT_EQ(d.ow, out_size(d.iw, d.kw, d.sw, d.pad_left, d.pad_right, d.dilation_w));
  }
}

TEST(ConvDesc, NameQuotesAndRepeatSuffix) {
  const ConvDesc d = parse_conv_desc("ic8ih9oc8kh3n\"resnet:3x3*4\"");
  EXPECT_EQ(d.name, "resnet:3x3");
  EXPECT_EQ(d.repeat, 4);
  EXPECT_EQ(parse_conv_desc("ic8ih9oc8kh3nplain").name, "plain");
  const ConvDesc star = parse_conv_desc("ic8ih9oc8kh3n\"a*b\"");
  EXPECT_EQ(star.name, "a*b");
  EXPECT_EQ(star.repeat, 1);
  expect_rejected("ic8ih9oc8kh3n\"x*0\"", "*0");
}

TEST(ConvDesc, RejectsWithAMessageNamingTheField) {
  expect_rejected("ic8id5ih10oc8kh3kd3", "3-D");
  expect_rejected("mb1ic8ih10oc8kh3od4", "3-D");
  expect_rejected("ic8ih10oc8kh3sd2", "3-D");
  expect_rejected("ic8ih10oc8kh3pd1", "3-D");
  expect_rejected("ic8ih10oc8kh3dd1", "3-D");
  expect_rejected("ih10oc8kh3", "ic");
  expect_rejected("ic0ih10oc8kh3", "ic");
  expect_rejected("ic8ih10kh3", "oc");
  expect_rejected("ic8ih10oc0kh3", "oc");
  expect_rejected("g3ic8ih10oc9kh3", "ic 8 is not divisible by g 3");
  expect_rejected("g2ic8ih10oc9kh3", "oc 9 is not divisible by g 2");
  expect_rejected("g0ic8ih10oc8kh3", "g must be positive");
  expect_rejected("mb0ic8ih10oc8kh3", "mb must be positive");
  expect_rejected("ic8ih10oc8kh3sh0", "sh");
  expect_rejected("ic8ih2oc8kh5", "oh");            // output -2
  expect_rejected("ic8ih20iw2oc8kh3kw5", "ow");     // output -2 along w
  expect_rejected("ic8ih10oc8oh5kh3", "oh 5");      // would need cropping
  expect_rejected("ic8ih11oc8oh4kh3sh2", "ph");     // trivial padding -1
  expect_rejected("ic8ih10oc8", "kh");
  expect_rejected("ic8oc8", "spatial");
  expect_rejected("", "ic");
  expect_rejected("hello", "unexpected");
  expect_rejected("ic8ih10oc8kh3 oops", "unexpected");
  expect_rejected("icih10oc8kh3", "ic needs a non-negative number");
  expect_rejected("ic8ih10oc8kh3ph-1", "ph needs a non-negative number");
  expect_rejected("ic2000000000ih10oc8kh3", "too large");
  expect_rejected("ic8ih99999999999999999999999oc8kh3", "ih");
}

TEST(ConvDesc, ToStringRoundTripsOverARandomGrid) {
  std::mt19937 rng(2024);
  auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int checked = 0;
  for (int trial = 0; trial < 2000; trial++) {
    const int g = pick(1, 4);
    std::string text = (pick(0, 1) ? "g" + std::to_string(g) : std::string()) + "mb" + std::to_string(pick(1, 3));
    const int groups = text[0] == 'g' ? g : 1;
    const bool square = pick(0, 1);  // w fields absent: they copy h
    text += "ic" + std::to_string(groups * pick(1, 5)) + "ih" + std::to_string(pick(1, 30));
    if (!square) text += "iw" + std::to_string(pick(1, 30));
    text += "oc" + std::to_string(groups * pick(1, 5)) + "kh" + std::to_string(pick(1, 5));
    if (!square) text += "kw" + std::to_string(pick(1, 5)) + "sw" + std::to_string(pick(1, 3));
    text += "sh" + std::to_string(pick(1, 3)) + "dh" + std::to_string(pick(0, 2));
    // Either a top padding (output derived) or an output size (padding derived, maybe asymmetric).
    text += pick(0, 2) ? "ph" + std::to_string(pick(0, 3)) : "oh" + std::to_string(pick(1, 30));
    if (pick(0, 2) == 0) text += "n\"case" + std::to_string(trial) + (pick(0, 1) ? "*3\"" : "\"");
    ConvDesc d;
    try {
      d = parse_conv_desc(text);
    } catch (const Error&) {
      continue;  // e.g. a kernel larger than the padded input
    }
    SCOPED_TRACE(text + " -> " + to_string(d));
    EXPECT_EQ(d.oh, out_size(d.ih, d.kh, d.sh, d.pad_top, d.pad_bottom, d.dilation_h));
    EXPECT_EQ(d.ow, out_size(d.iw, d.kw, d.sw, d.pad_left, d.pad_right, d.dilation_w));
    expect_same(parse_conv_desc(to_string(d)), d);
    checked++;
    if (testing::Test::HasFailure()) return;
  }
  EXPECT_GT(checked, 800);
}

TEST(ConvDesc, ShapeTextSkipsCommentsAndReportsBadLines) {
  const std::vector<ShapeFileEntry> entries = parse_shape_text(
      "# header\n\n  ic8ih9oc8kh3n\"a#b\"  # trailing\nic8id3ih9oc8kh3kd3\r\nnonsense\n");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].line, 3);
  EXPECT_TRUE(entries[0].error.empty());
  EXPECT_EQ(entries[0].desc.name, "a#b");
  EXPECT_EQ(entries[1].line, 4);
  EXPECT_NE(entries[1].error.find("3-D"), std::string::npos);
  EXPECT_EQ(entries[2].line, 5);
  EXPECT_FALSE(entries[2].error.empty());
  EXPECT_THROW(read_shape_file("/nonexistent/shapes.txt"), Error);
}

// Every shape set the project ships parses, apart from 3-D problems rejected as such.
TEST(ConvDesc, EverySharedShapeFileParses) {
  const std::string dir = std::string(JITCONV_SHARED_DIR) + "/shapes";
  DIR* handle = opendir(dir.c_str());
  if (!handle) GTEST_SKIP() << dir << " does not exist (the shared folder sits beside the clone in CI)";
  std::vector<std::string> files;
  while (dirent* entry = readdir(handle)) {
    const std::string name = entry->d_name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".txt") == 0) files.push_back(dir + "/" + name);
  }
  closedir(handle);
  ASSERT_FALSE(files.empty()) << "no .txt files in " << dir;
  int parsed = 0;
  for (const std::string& path : files) {
    for (const ShapeFileEntry& e : read_shape_file(path)) {
      if (e.error.empty()) {
        parsed++;
        expect_same(parse_conv_desc(to_string(e.desc)), e.desc);
      } else {
        EXPECT_NE(e.error.find("3-D"), std::string::npos) << e.error;
      }
    }
  }
  EXPECT_GT(parsed, 0);
}
