// copy_make_border / copy_cut_border against an element-by-element formula: asymmetric
// margins, every elempack, dims 2/3/4 (2-D margins in scalar rows), lane sizes 4/2/1.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "runtime/border.h"
#include "runtime/cpu.h"
#include "runtime/error.h"
#include "runtime/packing.h"

using namespace jitconv;

namespace {

struct Margins {
  int top, bottom, left, right, front, behind;
};

const Margins kMargins[] = {{1, 2, 3, 0, 0, 0}, {0, 3, 0, 2, 1, 0}, {2, 0, 1, 1, 0, 2}, {4, 1, 0, 5, 1, 1}};

Mat make_mat(int dims, int w, int h, int d, int c, int lane_bytes, int pack) {
  const size_t es = static_cast<size_t>(lane_bytes) * pack;
  if (dims == 2) return Mat(w, h, es, pack);
  if (dims == 3) return Mat(w, h, c, es, pack);
  return Mat(w, h, d, c, es, pack);
}

// Packed element (q, z, y, x): channels cstep apart, depth slices w*h apart.
const unsigned char* element(const Mat& m, int q, int z, int y, int x) {
  const size_t index = m.cstep * q + (static_cast<size_t>(z) * m.h + y) * m.w + x;
  return static_cast<const unsigned char*>(m.data) + index * m.elemsize;
}

void fill_bytes_random(Mat& m, uint32_t seed) {
  std::mt19937 rng(seed);
  unsigned char* p = static_cast<unsigned char*>(m.data);
  for (size_t i = 0; i < m.total() * m.elemsize; i++) p[i] = static_cast<unsigned char>(rng());
}

// The border value as the lane type stores it, written independently of border.cpp.
std::vector<unsigned char> lane_bytes_of(float value, int lane_bytes, bool bf16) {
  std::vector<unsigned char> bytes(lane_bytes);
  if (lane_bytes == 4) {
    std::memcpy(bytes.data(), &value, 4);
  } else if (lane_bytes == 2) {
    const uint16_t bits = bf16 ? float32_to_bfloat16(value) : float32_to_float16(value);
    std::memcpy(bytes.data(), &bits, 2);
  } else {
    const long rounded = std::lrint(value);
    bytes[0] = static_cast<unsigned char>(static_cast<int8_t>(rounded > 127 ? 127 : rounded < -127 ? -127 : rounded));
  }
  return bytes;
}

void check_make_border(int dims, int lane_bytes, int pack, const Margins& g, float value, bool bf16) {
  const int w = 7, h = 5, d = 3, c = 3;
  Mat src = make_mat(dims, w, h, d, c, lane_bytes, pack);
  fill_bytes_random(src, 11);
  Option opt;
  opt.num_threads = 2;
  opt.use_fp16_storage = !bf16;
  opt.use_bf16_storage = bf16;
  const int front = dims == 4 ? g.front : 0, behind = dims == 4 ? g.behind : 0;
  Mat dst;
  copy_make_border_3d(src, dst, g.top, g.bottom, g.left, g.right, front, behind, value, opt);
  ASSERT_EQ(dst.dims, dims);
  ASSERT_EQ(dst.w, w + g.left + g.right);
  ASSERT_EQ(dst.h, h + g.top + g.bottom);
  ASSERT_EQ(dst.d, dims == 4 ? d + front + behind : 1);
  ASSERT_EQ(dst.elempack, pack);
  ASSERT_EQ(dst.elemsize, src.elemsize);
  const std::vector<unsigned char> lane = lane_bytes_of(value, lane_bytes, bf16);
  const int channels = dims == 2 ? 1 : c;
  for (int q = 0; q < channels; q++)
    for (int z = 0; z < dst.d; z++)
      for (int y = 0; y < dst.h; y++)
        for (int x = 0; x < dst.w; x++) {
          const int sz = z - front, sy = y - g.top, sx = x - g.left;
          const bool inside = sz >= 0 && sz < src.d && sy >= 0 && sy < h && sx >= 0 && sx < w;
          const unsigned char* got = element(dst, q, z, y, x);
          if (inside) {
            ASSERT_EQ(std::memcmp(got, element(src, q, sz, sy, sx), src.elemsize), 0)
                << "copied element q" << q << " z" << z << " y" << y << " x" << x;
          } else {
            for (int j = 0; j < pack; j++)
              ASSERT_EQ(std::memcmp(got + j * lane_bytes, lane.data(), lane_bytes), 0)
                  << "border lane " << j << " of q" << q << " z" << z << " y" << y << " x" << x;
          }
        }

  // Cutting the same margins off gives the source back.
  Mat back;
  copy_cut_border_3d(dst, back, g.top, g.bottom, g.left, g.right, front, behind, opt);
  ASSERT_TRUE(back.same_shape(src));
  for (int q = 0; q < channels; q++)
    for (int z = 0; z < src.d; z++)
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          ASSERT_EQ(std::memcmp(element(back, q, z, y, x), element(src, q, z, y, x), src.elemsize), 0);
}

// A 2-D Mat packs its rows: the margins count scalar rows (as ncnn's Padding does), and
// the result keeps the elempack only when top and bottom are whole packed rows.
void check_packed_rows(int lane_bytes, int pack, const Margins& g, float value) {
  const int w = 7, h = 5;
  Mat src = make_mat(2, w, h, 1, 1, lane_bytes, pack);
  fill_bytes_random(src, 13);
  Option opt;
  Mat plain_src;
  convert_packing(src, plain_src, 1, opt);
  Mat dst;
  copy_make_border(src, dst, g.top, g.bottom, g.left, g.right, value, opt);
  const bool whole_rows = g.top % pack == 0 && g.bottom % pack == 0;
  ASSERT_EQ(dst.dims, 2);
  ASSERT_EQ(dst.elempack, whole_rows ? pack : 1);
  ASSERT_EQ(dst.h * dst.elempack, h * pack + g.top + g.bottom);
  ASSERT_EQ(dst.w, w + g.left + g.right);
  Mat plain;
  convert_packing(dst, plain, 1, opt);
  const std::vector<unsigned char> lane = lane_bytes_of(value, lane_bytes, false);
  for (int y = 0; y < plain.h; y++)
    for (int x = 0; x < plain.w; x++) {
      const int sy = y - g.top, sx = x - g.left;
      const unsigned char* got = element(plain, 0, 0, y, x);
      if (sy >= 0 && sy < h * pack && sx >= 0 && sx < w)
        ASSERT_EQ(std::memcmp(got, element(plain_src, 0, 0, sy, sx), lane_bytes), 0) << "y" << y << " x" << x;
      else
        ASSERT_EQ(std::memcmp(got, lane.data(), lane_bytes), 0) << "border y" << y << " x" << x;
    }
  Mat back, plain_back;
  copy_cut_border(dst, back, g.top, g.bottom, g.left, g.right, opt);
  convert_packing(back, plain_back, 1, opt);
  ASSERT_TRUE(plain_back.same_shape(plain_src));
  for (int y = 0; y < h * pack; y++)
    for (int x = 0; x < w; x++)
      ASSERT_EQ(std::memcmp(element(plain_back, 0, 0, y, x), element(plain_src, 0, 0, y, x), lane_bytes), 0);
}

}  // namespace

TEST(Border, MakeBorderEveryDimsElempackAndLaneSize) {
  for (int dims = 2; dims <= 4; dims++)
    for (int lane_bytes : {4, 2, 1})
      for (int pack : {1, 4, 8, 16})
        for (const Margins& g : kMargins) {
          SCOPED_TRACE(testing::Message() << "dims " << dims << " lane " << lane_bytes << " pack " << pack << " margins "
                                          << g.top << "," << g.bottom << "," << g.left << "," << g.right << ","
                                          << g.front << "," << g.behind);
          if (dims == 2 && pack > 1)
            check_packed_rows(lane_bytes, pack, g, -2.75f);
          else
            check_make_border(dims, lane_bytes, pack, g, -2.75f, false);
          if (testing::Test::HasFatalFailure()) return;
        }
  // Whole packed rows stay packed.
  for (int lane_bytes : {4, 2, 1})
    for (int pack : {4, 8, 16}) {
      SCOPED_TRACE(testing::Message() << "2-D lane " << lane_bytes << " pack " << pack << " whole rows");
      check_packed_rows(lane_bytes, pack, Margins{pack, 2 * pack, 1, 2, 0, 0}, 1.5f);
      if (testing::Test::HasFatalFailure()) return;
    }
}

TEST(Border, UnsupportedElementSizesThrow) {
  // Lanes of 1, 2 or 4 bytes only: wider elements would overrun the packed fill value.
  Option opt;
  Mat dst;
  Mat wide(4, 3, 2, static_cast<size_t>(128), 16);  // 8-byte lanes
  EXPECT_THROW(copy_make_border(wide, dst, 1, 0, 0, 0, 0.f, opt), Error);
  Mat odd(4, 3, 2, static_cast<size_t>(80), 1);
  EXPECT_THROW(copy_make_border(odd, dst, 0, 0, 1, 0, 0.f, opt), Error);
}

TEST(Border, ValueIsStoredInTheLaneType) {
  // fp16 vs bf16 for 2-byte lanes; int8 rounds and saturates to +-127.
  for (float value : {0.1f, -3.5f, 70000.f})
    for (bool bf16 : {false, true}) {
      SCOPED_TRACE(testing::Message() << value << (bf16 ? " bf16" : " fp16"));
      check_make_border(3, 2, 8, kMargins[0], value, bf16);
    }
  for (float value : {300.f, -300.f, 2.5f, -1.5f, 0.4f}) {
    SCOPED_TRACE(value);
    check_make_border(3, 1, 16, kMargins[1], value, false);
  }
  // Both 16-bit storages on: bf16 wins, as convert_layout reads 16-bit blobs back.
  {
    Option both;
    both.use_fp16_storage = both.use_bf16_storage = true;
    Mat half(2, 2, 1, 2u, 1), padded;
    half.fill_bytes(0);
    copy_make_border(half, padded, 1, 0, 0, 0, 2.5f, both);
    EXPECT_EQ(static_cast<const uint16_t*>(padded.data)[0], float32_to_bfloat16(2.5f));
  }
  EXPECT_EQ(lane_bytes_of(-300.f, 1, false)[0], static_cast<unsigned char>(-127));
  EXPECT_EQ(lane_bytes_of(2.5f, 1, false)[0], 2);  // ties to even
}

TEST(Border, CutBorderTakesTheInnerRegion) {
  Option opt;
  Mat src(9, 8, 2, 3);  // w9 h8 d2 c3, fp32
  for (int q = 0; q < 3; q++)
    for (size_t i = 0; i < 9 * 8 * 2; i++) static_cast<float*>(src.data)[src.cstep * q + i] = q * 1000.f + i;
  Mat dst;
  copy_cut_border(src, dst, 1, 3, 2, 0, opt);
  ASSERT_EQ(dst.w, 7);
  ASSERT_EQ(dst.h, 4);
  ASSERT_EQ(dst.d, 2);
  for (int q = 0; q < 3; q++)
    for (int z = 0; z < 2; z++)
      for (int y = 0; y < 4; y++)
        for (int x = 0; x < 7; x++) {
          const float want = q * 1000.f + (z * 8 + y + 1) * 9 + x + 2;
          ASSERT_EQ(*reinterpret_cast<const float*>(element(dst, q, z, y, x)), want);
        }
}

TEST(Border, ZeroMarginsShareAndBadMarginsThrow) {
  Option opt;
  Mat src(6, 5, 4);
  Mat dst;
  copy_make_border(src, dst, 0, 0, 0, 0, 1.f, opt);
  EXPECT_EQ(dst.data, src.data);
  copy_cut_border(src, dst, 0, 0, 0, 0, opt);
  EXPECT_EQ(dst.data, src.data);
  EXPECT_THROW(copy_make_border(src, dst, -1, 0, 0, 0, 0.f, opt), Error);
  EXPECT_THROW(copy_cut_border(src, dst, 0, 0, 0, -2, opt), Error);
  EXPECT_THROW(copy_cut_border(src, dst, 3, 2, 0, 0, opt), Error);  // nothing left of h 5
  EXPECT_THROW(copy_make_border_3d(src, dst, 0, 0, 0, 0, 1, 0, 0.f, opt), Error);  // 3-D has no depth
  Mat line(10);
  EXPECT_THROW(copy_make_border(line, dst, 1, 1, 1, 1, 0.f, opt), Error);
  try {
    copy_make_border(src, dst, 0, 0, -3, 0, 0.f, opt);
    FAIL() << "a negative left margin was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("left -3"), std::string::npos) << e.what();
  }
}
