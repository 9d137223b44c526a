// ncnn's float2int8 as the int8 path implements it (runtime/conv_int8_quantize.h and the
// per-ISA input quantizer in conv_int8_simd.inl) against reference_float2int8
// (std::round, saturation, NaN -> -127): ties, the largest float below 0.5, saturation,
// infinities, NaN, -0, and a sweep over the float range that matters.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "reference/conv_int8_ref.h"
#include "runtime/conv_int8_quantize.h"
#include "runtime/mat.h"
#include "tests/test_util.h"

using namespace jitconv;
using namespace jitconv::test;

namespace {

std::vector<float> special_values() {
  std::vector<float> v = {0.f, -0.f, 0.49999997f, -0.49999997f, 126.5f, -126.5f, 127.f, 127.49999f, 127.5f,
                          -127.5f, 128.f, -128.f, 1000.f, -1e30f, std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                          1e-40f, -1e-40f};
  for (int k = -128; k <= 128; k++) {
    const float tie = k + 0.5f;
    v.push_back(tie);
    v.push_back(std::nextafter(tie, 1000.f));
    v.push_back(std::nextafter(tie, -1000.f));
  }
  return v;
}

// Every 613th float from 0 to 130, both signs.
std::vector<float> sweep_values() {
  std::vector<float> v;
  uint32_t end;
  const float limit = 130.f;
  memcpy(&end, &limit, 4);
  for (uint32_t bits = 0; bits <= end; bits += 613) {
    float f;
    memcpy(&f, &bits, 4);
    v.push_back(f);
    v.push_back(-f);
  }
  return v;
}

// Quantizes `values` as one (16, 1, n/16) blob packed by in_pack with run_quantize_to_image
// and checks every element (plus the channel padding fill) against the reference.
void check_quantizer(Isa isa, int in_pack, int elem_bytes, const std::vector<float>& values, float scale) {
  SCOPED_TRACE(std::string(isa_name(isa)) + " in_pack " + std::to_string(in_pack) + " elem_bytes " +
               std::to_string(elem_bytes));
  const int ic = 16, w = static_cast<int>((values.size() + ic - 1) / ic);
  Mat src(w, 1, ic / in_pack, static_cast<size_t>(4 * in_pack), in_pack);
  for (int c = 0; c < ic; c++)
    for (int x = 0; x < w; x++) {
      const size_t i = (static_cast<size_t>(c) * w + x) % values.size();
      static_cast<float*>(src.data)[(c / in_pack) * src.cstep * in_pack + x * in_pack + c % in_pack] = values[i];
    }
  const long pixel_elems = ic + 3;
  std::vector<uint8_t> dst(static_cast<size_t>(w) * pixel_elems * elem_bytes, 0xAB);
  Int8QuantizeJob job;
  job.src = static_cast<const float*>(src.data);
  job.in_pack = in_pack;
  job.src_channel_stride = static_cast<long>(src.cstep) * in_pack;
  job.src_w = w;
  job.x_step = 1;
  job.y_step = 1;
  job.w = w;
  job.h = 1;
  job.ic = ic;
  job.scale = scale;
  job.dst = dst.data();
  job.elem_bytes = elem_bytes;
  job.offset = elem_bytes == 1 ? 128 : 0;
  job.pixel_elems = pixel_elems;
  job.dst_row_stride = w * pixel_elems;
  job.fill = elem_bytes == 1 ? 128 : 0;
  job.num_threads = 1;
  run_quantize_to_image(isa, job);
  int failures = 0;
  for (int x = 0; x < w && failures < 5; x++)
    for (long c = 0; c < pixel_elems; c++) {
      int want = job.fill;
      float v = 0.f;
      if (c < ic) {
        v = values[(static_cast<size_t>(c) * w + x) % values.size()];
        want = reference_float2int8(v * scale) + job.offset;
      }
      const size_t at = static_cast<size_t>(x) * pixel_elems + c;
      int got;
      if (elem_bytes == 1) {
        got = dst[at];
      } else {
        int16_t g;
        memcpy(&g, &dst[at * 2], 2);
        got = g;
      }
      if (got != want && failures++ < 5)
        ADD_FAILURE() << "value " << v << " channel " << c << ": got " << got << ", expected " << want;
    }
}

}  // namespace

TEST(ConvInt8Quantize, ScalarMatchesReference) {
  std::vector<float> values = special_values();
  const std::vector<float> sweep = sweep_values();
  values.insert(values.end(), sweep.begin(), sweep.end());
  for (float v : values) {
    const int8_t want = reference_float2int8(v);
    ASSERT_EQ(float_to_int8(v), want) << "value " << v;
    ASSERT_EQ(int8_round_clamp(v), want) << "value " << v;
  }
}

TEST(ConvInt8Quantize, InputQuantizerMatchesReferenceOnEveryIsa) {
  const std::vector<float> specials = special_values();
  const std::vector<float> sweep = sweep_values();
  for (Isa isa : available_isas())
    for (int in_pack : {1, 4, 8, 16})
      for (int elem_bytes : {1, 2}) {
        check_quantizer(isa, in_pack, elem_bytes, specials, 1.f);
        check_quantizer(isa, in_pack, elem_bytes, specials, 0.5f);
        if (in_pack == 1 || in_pack == 16) check_quantizer(isa, in_pack, elem_bytes, sweep, 1.f);
      }
}
