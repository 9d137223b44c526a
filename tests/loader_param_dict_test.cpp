// ParamDict: typed values convert, raw words reinterpret, encodings compare by bits.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstring>

#include "loader/param_dict.h"
#include "runtime/error.h"

namespace jitconv {
namespace {

uint32_t bits_of(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

TEST(LoaderParamDict, TypedValuesConvert) {
  ParamDict pd;
  pd.set(0, 3);
  pd.set(1, -2.75f);
  pd.set(2, std::vector<int>{1, -2});
  pd.set(3, std::vector<float>{0.5f, -1.5f});
  pd.set(4, std::string("s"));
  EXPECT_EQ(pd.get(0, 0.f), 3.f);
  EXPECT_EQ(pd.get(1, 0), -2);  // truncation toward zero
  EXPECT_EQ(pd.get_floats(2), (std::vector<float>{1.f, -2.f}));
  EXPECT_EQ(pd.get_ints(3), (std::vector<int>{0, -1}));
  EXPECT_EQ(pd.get_ints(0), (std::vector<int>{3}));
  // An array or a string where a single number is asked for is an error naming the id
  // (not the default: `9=relu` must not run without its activation).
  EXPECT_THROW(pd.get(2, 9), Error);
  EXPECT_THROW(pd.get(3, 9.f), Error);
  try {
    pd.get(4, 9);
    ADD_FAILURE() << "a string was read as a number";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 4 must be a number, got the string 's'"), std::string::npos)
        << e.what();
  }
  try {
    pd.get(2, 9.f);
    ADD_FAILURE() << "an array was read as a number";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 2 must be a single number, got an array of 2 values"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(pd.get(5, 9), 9);
  EXPECT_FALSE(pd.has(5));
  EXPECT_TRUE(pd.is_array(3));
  EXPECT_FALSE(pd.is_array(4));
  EXPECT_EQ(pd.ids(), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(pd.words(1), (std::vector<uint32_t>{bits_of(-2.75f)}));
  EXPECT_TRUE(pd.words(4).empty());
}

TEST(LoaderParamDict, FloatToIntSaturates) {
  ParamDict pd;
  pd.set(0, NAN);
  pd.set(1, 3e9f);
  pd.set(2, -3e9f);
  pd.set(3, std::vector<float>{INFINITY, -INFINITY, NAN, 7.9f});
  EXPECT_EQ(pd.get(0, 5), 0);
  EXPECT_EQ(pd.get(1, 5), INT_MAX);
  EXPECT_EQ(pd.get(2, 5), INT_MIN);
  EXPECT_EQ(pd.get_ints(3), (std::vector<int>{INT_MAX, INT_MIN, 0, 7}));
}

TEST(LoaderParamDict, RawWordsReinterpret) {
  ParamDict pd;
  pd.set_raw(0, bits_of(1.5f));
  pd.set_raw(1, static_cast<uint32_t>(-233));
  pd.set_raw(2, std::vector<uint32_t>{bits_of(0.25f), 7u});
  EXPECT_EQ(pd.type(0), ParamDict::Type::raw_value);
  EXPECT_EQ(pd.get(0, 0.f), 1.5f);
  EXPECT_EQ(pd.get(0, 0), static_cast<int>(bits_of(1.5f)));
  EXPECT_EQ(pd.get(1, 0), -233);
  EXPECT_EQ(pd.get_ints(2), (std::vector<int>{static_cast<int>(bits_of(0.25f)), 7}));
  EXPECT_EQ(pd.get_floats(2)[0], 0.25f);
  Mat m = pd.get(2, Mat());
  ASSERT_EQ(m.w, 2);
  EXPECT_EQ(m[0], 0.25f);
}

TEST(LoaderParamDict, SameEncodingComparesBits) {
  ParamDict typed, raw;
  typed.set(0, 3);
  typed.set(1, 0.5f);
  typed.set(2, std::vector<int>{-1});
  typed.set(3, std::string("x"));
  raw.set_raw(0, 3u);
  raw.set_raw(1, bits_of(0.5f));
  raw.set_raw(2, std::vector<uint32_t>{0xffffffffu});
  raw.set(3, std::string("x"));
  EXPECT_TRUE(typed.same_encoding(raw));
  EXPECT_TRUE(raw.same_encoding(typed));

  ParamDict other = raw;
  other.set_raw(1, bits_of(-0.5f));
  EXPECT_FALSE(typed.same_encoding(other));
  other = raw;
  other.set_raw(2, 0xffffffffu);  // a scalar is not a one-element array
  EXPECT_FALSE(typed.same_encoding(other));
  other = raw;
  other.set(3, std::string("y"));
  EXPECT_FALSE(typed.same_encoding(other));
  other = raw;
  other.erase(3);
  EXPECT_FALSE(typed.same_encoding(other));
  // An int 1 and a float 1.0 have different words.
  ParamDict i, f;
  i.set(0, 1);
  f.set(0, 1.f);
  EXPECT_FALSE(i.same_encoding(f));
}

}  // namespace
}  // namespace jitconv
