// convert_packing: every element lands where an independent index formula says, for
// every elempack pair, dims 1-4, lane sizes 4/2/1 and channel counts 1..67, under every
// ISA the machine has.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/error.h"
#include "runtime/packing.h"
#include "tests/test_util.h"

using namespace jitconv;

namespace {

const int kPacks[] = {1, 4, 8, 16};

struct Shape {
  int dims;
  int w, h, d;  // the axes below the packing axis (unused ones are 1)
  int outer;    // scalars along the packing axis: w for 1-D, h for 2-D, c for 3-D/4-D
};

Mat make_packed(const Shape& s, int lane_bytes, int pack) {
  const size_t elemsize = static_cast<size_t>(lane_bytes) * pack;
  const int packed = s.outer / pack;
  switch (s.dims) {
    case 1: return Mat(packed, elemsize, pack);
    case 2: return Mat(s.w, packed, elemsize, pack);
    case 3: return Mat(s.w, s.h, packed, elemsize, pack);
    default: return Mat(s.w, s.h, s.d, packed, elemsize, pack);
  }
}

size_t plane_of(const Shape& s) {
  return s.dims == 1 ? 1 : s.dims == 2 ? static_cast<size_t>(s.w) : static_cast<size_t>(s.w) * s.h * s.d;
}

// Lane index of scalar `ch` (along the packing axis) at plane position i:
//   packed element (ch / ep) starts stride * ep lanes apart; inside it, position i holds
//   ep lanes and lane ch % ep is ours.
size_t lane_offset(const Mat& m, int ch, size_t i) {
  const size_t stride = m.dims == 1 ? 1 : m.dims == 2 ? static_cast<size_t>(m.w) : m.cstep;
  const size_t ep = static_cast<size_t>(m.elempack);
  return ((ch / ep) * stride + i) * ep + ch % ep;
}

uint32_t code(int ch, size_t i) { return static_cast<uint32_t>(ch) * 2654435761u + static_cast<uint32_t>(i) * 40503u + 1u; }

void put(Mat& m, int lane_bytes, size_t lane, uint32_t value) {
  std::memcpy(static_cast<unsigned char*>(m.data) + lane * lane_bytes, &value, lane_bytes);
}

uint32_t get(const Mat& m, int lane_bytes, size_t lane) {
  uint32_t value = 0;
  std::memcpy(&value, static_cast<const unsigned char*>(m.data) + lane * lane_bytes, lane_bytes);
  return value;
}

uint32_t truncate(uint32_t value, int lane_bytes) {
  return lane_bytes == 4 ? value : value & ((1u << (8 * lane_bytes)) - 1u);
}

// Converts s from in_pack to out_pack and back, checking every scalar's position.
void check_case(const Shape& s, int lane_bytes, int in_pack, int out_pack, const Option& opt) {
  Mat src = make_packed(s, lane_bytes, in_pack);
  const size_t plane = plane_of(s);
  for (int ch = 0; ch < s.outer; ch++)
    for (size_t i = 0; i < plane; i++) put(src, lane_bytes, lane_offset(src, ch, i), code(ch, i));

  Mat dst;
  convert_packing(src, dst, out_pack, opt);
  const int expected_pack = s.outer % out_pack == 0 ? out_pack : 1;
  ASSERT_EQ(dst.elempack, expected_pack);
  ASSERT_EQ(dst.elemsize, static_cast<size_t>(lane_bytes) * expected_pack);
  ASSERT_EQ(dst.dims, s.dims);
  const int dst_outer = s.dims == 1 ? dst.w : s.dims == 2 ? dst.h : dst.c;
  ASSERT_EQ(dst_outer * expected_pack, s.outer);
  if (expected_pack == in_pack) {
    EXPECT_EQ(dst.data, src.data) << "an unchanged layout is shared, not copied";
  }
  for (int ch = 0; ch < s.outer; ch++)
    for (size_t i = 0; i < plane; i++)
      ASSERT_EQ(get(dst, lane_bytes, lane_offset(dst, ch, i)), truncate(code(ch, i), lane_bytes))
          << "scalar " << ch << " at plane position " << i;

  Mat back;
  convert_packing(dst, back, in_pack, opt);
  ASSERT_EQ(back.elempack, in_pack);
  for (int ch = 0; ch < s.outer; ch++)
    for (size_t i = 0; i < plane; i++)
      ASSERT_EQ(get(back, lane_bytes, lane_offset(back, ch, i)), truncate(code(ch, i), lane_bytes));
}

}  // namespace

TEST(Packing, EveryElempackPairDimsAndLaneSize) {
  Option opt;
  opt.num_threads = 1;
  for (Isa isa : test::available_isas()) {
    test::IsaGuard guard(isa);
    for (int lane_bytes : {4, 2, 1}) {
      for (int dims = 1; dims <= 4; dims++) {
        for (int outer = 1; outer <= 67; outer++) {
          const Shape s{dims, dims >= 2 ? 5 : 1, dims >= 3 ? 3 : 1, dims == 4 ? 2 : 1, outer};
          for (int in_pack : kPacks) {
            if (outer % in_pack) continue;
            for (int out_pack : kPacks) {
              SCOPED_TRACE(testing::Message() << isa_name(isa) << " lane " << lane_bytes << " dims " << dims
                                              << " outer " << outer << " " << in_pack << "->" << out_pack);
              check_case(s, lane_bytes, in_pack, out_pack, opt);
              if (testing::Test::HasFatalFailure()) return;
            }
          }
        }
      }
    }
  }
}

TEST(Packing, ThreadedConversionMatchesIndexFormula) {
  Option opt;
  opt.num_threads = 4;
  const Shape s{3, 17, 9, 1, 48};
  for (int in_pack : kPacks)
    for (int out_pack : kPacks) {
      SCOPED_TRACE(testing::Message() << in_pack << "->" << out_pack);
      check_case(s, 4, in_pack, out_pack, opt);
    }
}

TEST(Packing, RejectsUnknownElempackAndPassesEmptyMats) {
  Option opt;
  Mat src(4, 4, 8);
  Mat dst;
  EXPECT_THROW(convert_packing(src, dst, 2, opt), Error);
  EXPECT_THROW(convert_packing(src, dst, 32, opt), Error);
  Mat empty;
  convert_packing(empty, dst, 4, opt);
  EXPECT_EQ(dst.dims, 0);
}

// ---- fp16 / bf16 casts -------------------------------------------------------------

namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

bool is_half_nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }
bool is_bf16_nan(uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0; }

// IEEE binary16 by its definition; 0x7c00 (the code after the largest finite half) is
// treated as 2^16 so rounding can carry into it.
double half_value(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  const double magnitude =
      exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
  return (h & 0x8000u) ? -magnitude : magnitude;
}

// Round to nearest half, ties to the even code, found by search over the codes.
uint16_t expected_half(float x) {
  const uint16_t sign = std::signbit(x) ? 0x8000u : 0u;
  const double ax = std::fabs(static_cast<double>(x));
  if (std::isinf(x)) return sign | 0x7c00u;
  uint16_t lo = 0, hi = 0x7c00;  // invariant: half_value(lo) <= ax < half_value(hi)
  if (ax >= half_value(hi)) return sign | 0x7c00u;
  while (hi - lo > 1) {
    const uint16_t mid = static_cast<uint16_t>((lo + hi) / 2);
    (half_value(mid) <= ax ? lo : hi) = mid;
  }
  const double below = ax - half_value(lo), above = half_value(hi) - ax;
  const uint16_t nearest = below < above ? lo : above < below ? hi : ((lo & 1u) ? hi : lo);
  return sign | nearest;
}

// Round to nearest bf16, ties to even, from the two codes that bracket x.
uint16_t expected_bf16(float x) {
  const uint32_t u = bits_of(x);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint16_t lo = static_cast<uint16_t>((u >> 16) & 0x7fffu);
  if (std::isinf(x)) return sign | lo;
  const uint16_t hi = static_cast<uint16_t>(lo + 1);
  const double ax = std::fabs(static_cast<double>(x));
  const double lo_value = std::fabs(static_cast<double>(float_of(static_cast<uint32_t>(lo) << 16)));
  const double hi_value = hi == 0x7f80u ? std::ldexp(1.0, 128) : float_of(static_cast<uint32_t>(hi) << 16);
  const double below = ax - lo_value, above = hi_value - ax;
  const uint16_t nearest = below < above ? lo : above < below ? hi : ((lo & 1u) ? hi : lo);
  return sign | nearest;
}

// Every finite half, the midpoints between neighbours and the floats just beside them,
// specials, and seeded random floats over a wide exponent range.
std::vector<float> interesting_floats() {
  std::vector<float> v;
  for (uint32_t h = 0; h < 0x7c00u; h++) {
    const double here = half_value(static_cast<uint16_t>(h));
    const double next = half_value(static_cast<uint16_t>(h + 1));
    const float mid = static_cast<float>((here + next) / 2);
    for (float f : {static_cast<float>(here), mid, std::nextafter(mid, 0.f), std::nextafter(mid, INFINITY)}) {
      v.push_back(f);
      v.push_back(-f);
    }
  }
  for (float f : {1e10f, 3.4028235e38f, 65519.f, 65520.f, 1e-10f, 1e-30f, 1.5f * 5.96046448e-8f})
    for (float s : {1.f, -1.f}) v.push_back(s * f);
  for (uint32_t u : {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fa00000u, 0x7fbfffffu,
                     0xff812345u, 0x7f7fffffu, 0x00000001u, 0x807fffffu})
    v.push_back(float_of(u));
  const std::vector<float> r = test::random_vector(20000, 7, -1.f, 1.f);
  for (size_t i = 0; i < r.size(); i++) v.push_back(std::ldexp(r[i], static_cast<int>(i % 80) - 40));
  return v;
}

template <typename Out, typename In>
std::vector<Out> cast_via_mat(const std::vector<In>& in, void (*cast)(const Mat&, Mat&, const Option&)) {
  Mat src(static_cast<int>(in.size()), sizeof(In), 1);
  std::memcpy(src.data, in.data(), in.size() * sizeof(In));
  Mat dst;
  Option opt;
  opt.num_threads = 2;
  cast(src, dst, opt);
  EXPECT_EQ(dst.elemsize, sizeof(Out));
  const Out* p = static_cast<const Out*>(dst.data);
  return std::vector<Out>(p, p + in.size());
}

}  // namespace

TEST(CastFp16, EveryHalfDecodesExactlyAndRoundTrips) {
  for (uint32_t h = 0; h <= 0xffffu; h++) {
    const uint16_t half = static_cast<uint16_t>(h);
    const float f = float16_to_float32(half);
    if (is_half_nan(half)) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << h;
      EXPECT_TRUE(is_half_nan(float32_to_float16(f))) << std::hex << h;
      continue;
    }
    if ((half & 0x7fffu) == 0x7c00u) {
      EXPECT_TRUE(std::isinf(f)) << std::hex << h;
    } else {
      ASSERT_EQ(static_cast<double>(f), half_value(half)) << std::hex << h;
    }
    ASSERT_EQ(std::signbit(f), (half & 0x8000u) != 0) << std::hex << h;
    ASSERT_EQ(float32_to_float16(f), half) << std::hex << h;
  }
}

TEST(CastFp16, RoundsToNearestEvenWithOverflowAndSubnormals) {
  EXPECT_EQ(float32_to_float16(1.f + std::ldexp(1.f, -11)), 0x3c00u);      // tie: down to even
  EXPECT_EQ(float32_to_float16(1.f + 3 * std::ldexp(1.f, -11)), 0x3c02u);  // tie: up to even
  EXPECT_EQ(float32_to_float16(65504.f), 0x7bffu);
  EXPECT_EQ(float32_to_float16(65519.f), 0x7bffu);
  EXPECT_EQ(float32_to_float16(65520.f), 0x7c00u);  // tie between 65504 and 2^16: Inf
  EXPECT_EQ(float32_to_float16(-1e10f), 0xfc00u);
  EXPECT_EQ(float32_to_float16(std::ldexp(1.f, -24)), 0x0001u);  // smallest subnormal
  EXPECT_EQ(float32_to_float16(std::ldexp(1.f, -25)), 0x0000u);  // tie: to zero (even)
  EXPECT_EQ(float32_to_float16(std::ldexp(3.f, -25)), 0x0002u);  // tie: up to even
  EXPECT_EQ(float32_to_float16(-1e-10f), 0x8000u);
  EXPECT_EQ(float32_to_float16(INFINITY), 0x7c00u);
  EXPECT_EQ(float32_to_float16(-INFINITY), 0xfc00u);
  for (float f : interesting_floats()) {
    const uint16_t got = float32_to_float16(f);
    if (std::isnan(f))
      ASSERT_TRUE(is_half_nan(got)) << std::hex << bits_of(f) << " -> " << got;
    else
      ASSERT_EQ(got, expected_half(f)) << f << " (" << std::hex << bits_of(f) << ")";
  }
}

TEST(CastFp16, EveryIsaAgreesBitForBitWithTheScalarDefinition) {
  const std::vector<float> floats = interesting_floats();
  std::vector<uint16_t> halves(0x10000);
  for (uint32_t h = 0; h <= 0xffffu; h++) halves[h] = static_cast<uint16_t>(h);
  for (Isa isa : test::available_isas()) {
    test::IsaGuard guard(isa);
    SCOPED_TRACE(isa_name(isa));
    const std::vector<uint16_t> to_half = cast_via_mat<uint16_t>(floats, cast_float32_to_float16);
    for (size_t i = 0; i < floats.size(); i++)
      ASSERT_EQ(to_half[i], float32_to_float16(floats[i])) << i << ": " << std::hex << bits_of(floats[i]);
    const std::vector<uint32_t> to_float = cast_via_mat<uint32_t>(halves, cast_float16_to_float32);
    for (uint32_t h = 0; h <= 0xffffu; h++)
      ASSERT_EQ(to_float[h], bits_of(float16_to_float32(static_cast<uint16_t>(h)))) << std::hex << h;
  }
}

TEST(CastBf16, RoundsToNearestEvenAndKeepsNaN) {
  EXPECT_EQ(float32_to_bfloat16(1.f), 0x3f80u);
  EXPECT_EQ(float32_to_bfloat16(1.f + std::ldexp(1.f, -8)), 0x3f80u);      // tie: down to even
  EXPECT_EQ(float32_to_bfloat16(1.f + 3 * std::ldexp(1.f, -8)), 0x3f82u);  // tie: up to even
  EXPECT_EQ(float32_to_bfloat16(float_of(0x7f800001u)) & 0x7fffu, 0x7fc0u & 0x7fffu);
  EXPECT_TRUE(is_bf16_nan(float32_to_bfloat16(float_of(0x7f800001u)))) << "a NaN with a low payload stays NaN";
  EXPECT_EQ(float32_to_bfloat16(INFINITY), 0x7f80u);
  EXPECT_EQ(float32_to_bfloat16(-INFINITY), 0xff80u);
  for (float f : interesting_floats()) {
    const uint16_t got = float32_to_bfloat16(f);
    if (std::isnan(f))
      ASSERT_TRUE(is_bf16_nan(got)) << std::hex << bits_of(f) << " -> " << got;
    else
      ASSERT_EQ(got, expected_bf16(f)) << f << " (" << std::hex << bits_of(f) << ")";
  }
  for (uint32_t b = 0; b <= 0xffffu; b++) {
    const float f = bfloat16_to_float32(static_cast<uint16_t>(b));
    ASSERT_EQ(bits_of(f), b << 16);
    if (!is_bf16_nan(static_cast<uint16_t>(b))) {
      ASSERT_EQ(float32_to_bfloat16(f), b) << std::hex << b;
    }
  }
}

TEST(CastBf16, EveryIsaAgreesBitForBitWithTheScalarDefinition) {
  const std::vector<float> floats = interesting_floats();
  std::vector<uint16_t> bf(0x10000);
  for (uint32_t b = 0; b <= 0xffffu; b++) bf[b] = static_cast<uint16_t>(b);
  for (Isa isa : test::available_isas()) {
    test::IsaGuard guard(isa);
    SCOPED_TRACE(isa_name(isa));
    const std::vector<uint16_t> to_bf = cast_via_mat<uint16_t>(floats, cast_float32_to_bfloat16);
    for (size_t i = 0; i < floats.size(); i++) ASSERT_EQ(to_bf[i], float32_to_bfloat16(floats[i])) << i;
    const std::vector<uint32_t> back = cast_via_mat<uint32_t>(bf, cast_bfloat16_to_float32);
    for (uint32_t b = 0; b <= 0xffffu; b++) ASSERT_EQ(back[b], b << 16);
  }
}

TEST(Cast, KeepsShapeAndChannelPaddingOfPackedMats) {
  Option opt;
  opt.num_threads = 2;
  Mat src(5, 3, 6, 16u, 4);  // 24 channels as 6 x pack4, 15 elements per channel
  test::fill_random(src, 3, -100.f, 100.f);
  for (Isa isa : test::available_isas()) {
    test::IsaGuard guard(isa);
    Mat half, back;
    cast_float32_to_float16(src, half, opt);
    ASSERT_EQ(half.elemsize, 8u);
    ASSERT_EQ(half.elempack, 4);
    ASSERT_EQ(half.c, 6);
    cast_float16_to_float32(half, back, opt);
    for (int q = 0; q < 6; q++)
      for (int i = 0; i < 15 * 4; i++) {
        const float x = static_cast<const float*>(src.data)[src.cstep * 4 * q + i];
        const uint16_t h = static_cast<const uint16_t*>(half.data)[half.cstep * 4 * q + i];
        ASSERT_EQ(h, expected_half(x)) << isa_name(isa) << " channel " << q << " lane " << i;
        ASSERT_EQ(static_cast<const float*>(back.data)[back.cstep * 4 * q + i], float16_to_float32(h));
      }
  }
  Mat wrong(8, size_t(2), 1);
  Mat out;
  EXPECT_THROW(cast_float32_to_float16(wrong, out, opt), Error);
}
