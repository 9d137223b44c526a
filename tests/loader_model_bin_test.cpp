// .bin weight decoding: every storage flag, padding, zero copy, truncation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "loader/data_reader.h"
#include "loader/model_bin_reader.h"
#include "loader/model_writer.h"
#include "runtime/option.h"
#include "runtime/packing.h"
#include "tests/loader_test_util.h"
#include "tests/test_util.h"

namespace jitconv {
namespace {

using Storage = ModelBinWriter::Storage;
using test::error_of;

Mat vector_mat(const std::vector<float>& v) {
  Mat m(static_cast<int>(v.size()));
  if (!v.empty()) memcpy(m.data, v.data(), v.size() * 4);
  return m;
}

std::vector<float> mat_values(const Mat& m) {
  const float* p = static_cast<const float*>(m.data);
  return std::vector<float>(p, p + m.w);
}

uint32_t bits_of(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

void append_word(std::vector<unsigned char>& out, uint32_t word) {
  const size_t at = out.size();
  out.resize(at + 4);
  memcpy(&out[at], &word, 4);
}

// Every finite binary16 value decoded with plain arithmetic (no shared code with the
// library's conversions), positive ones in ascending order.
std::vector<double> positive_halves() {
  std::vector<double> values;
  for (int h = 0; h < 0x7c00; h++) {
    const int exponent = h >> 10;
    const int mantissa = h & 1023;
    values.push_back(exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25));
  }
  return values;
}

// Round x to binary16 (nearest, ties to the even encoding), as a float.
float reference_round_to_half(float x, const std::vector<double>& halves) {
  if (std::isnan(x)) return x;
  const double mag = std::fabs(static_cast<double>(x));
  // 65520 is the midpoint between the largest half (65504) and 2^16: ties go to Inf.
  if (mag >= 65520.0) return std::copysign(INFINITY, x);
  auto it = std::lower_bound(halves.begin(), halves.end(), mag);
  size_t hi = static_cast<size_t>(it - halves.begin());
  if (hi == halves.size()) hi = halves.size() - 1;
  const size_t lo = hi == 0 ? 0 : hi - 1;
  double best;
  const double dlo = mag - halves[lo], dhi = halves[hi] - mag;
  if (halves[hi] == mag) best = halves[hi];
  else if (dlo < dhi) best = halves[lo];
  else if (dhi < dlo) best = halves[hi];
  else best = (lo % 2 == 0) ? halves[lo] : halves[hi];
  return static_cast<float>(std::copysign(best, x));
}

TEST(LoaderModelBin, Fp32FlaggedAndRawRoundTripEveryLength) {
  for (int w : {0, 1, 2, 3, 5, 7, 16, 33, 257}) {
    const std::vector<float> values = test::random_vector(w, 100 + w, -5.f, 5.f);
    ModelBinWriter writer;
    writer.write(vector_mat(values), 0, Storage::fp32);
    writer.write(vector_mat(values), 1, Storage::fp32);
    writer.write(vector_mat(values), 0, Storage::fp32_tagged);
    ASSERT_EQ(writer.size(), 4u + 4u * w + 4u * w + 4u + 4u * w);
    // The first word of a flagged fp32 buffer is four zero bytes.
    uint32_t first;
    memcpy(&first, writer.bytes().data(), 4);
    EXPECT_EQ(first, 0u);
    DataReaderFromMemory reader(writer.bytes().data(), writer.size());
    ModelBinFromDataReader mb(reader);
    for (int type : {0, 1, 0}) {
      Mat m = mb.load(w, type);
      if (w == 0) {
        EXPECT_TRUE(m.empty());
        continue;
      }
      ASSERT_EQ(m.w, w);
      EXPECT_EQ(m.elemsize, 4u);
      EXPECT_EQ(mat_values(m), values) << "w=" << w << " type=" << type;
    }
    EXPECT_EQ(reader.remaining(), 0u);
  }
}

TEST(LoaderModelBin, Fp16DecodesHandBuiltHalves) {
  const std::vector<uint16_t> halves = {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x7C00, 0x8000, 0x3555};
  const std::vector<double> expected = {1.0, -2.0, 65504.0, std::ldexp(1.0, -24), INFINITY, -0.0,
                                        std::ldexp(1024 + 0x155, 13 - 25)};
  std::vector<unsigned char> bytes;
  append_word(bytes, kModelBinFp16Tag);
  for (uint16_t h : halves) bytes.insert(bytes.end(), {static_cast<unsigned char>(h), static_cast<unsigned char>(h >> 8)});
  bytes.resize(bytes.size() + 2, 0xAB);  // 7 halves = 14 bytes: two padding bytes
  append_word(bytes, 0);                 // the next buffer starts after the padding
  append_word(bytes, bits_of(42.f));
  DataReaderFromMemory reader(bytes.data(), bytes.size());
  ModelBinFromDataReader mb(reader);
  Mat m = mb.load(7, 0);
  ASSERT_EQ(m.w, 7);
  EXPECT_EQ(m.elemsize, 4u);
  for (int i = 0; i < 7; i++) EXPECT_EQ(bits_of(m[i]), bits_of(static_cast<float>(expected[i]))) << i;
  Mat next = mb.load(1, 0);
  EXPECT_EQ(next[0], 42.f);
}

TEST(LoaderModelBin, Fp16RoundTripRoundsToNearestEven) {
  const std::vector<double> halves = positive_halves();
  std::vector<float> values = test::random_vector(4001, 7, -70000.f, 70000.f);
  const std::vector<float> small = test::random_vector(999, 8, -1e-4f, 1e-4f);  // subnormal halves
  values.insert(values.end(), small.begin(), small.end());
  // Exact ties: 1 + 2^-11 lies between 1 and 1 + 2^-10 (goes to 1), 1 + 3*2^-11 goes up.
  for (float tie : {1.f + std::ldexp(1.f, -11), 1.f + 3 * std::ldexp(1.f, -11), 65520.f, 65519.f, -65520.f,
                    std::ldexp(1.f, -25), std::ldexp(3.f, -26), 0.f, -0.f, INFINITY, -INFINITY})
    values.push_back(tie);
  ModelBinWriter writer;
  writer.write(vector_mat(values), 0, Storage::fp16);
  ASSERT_EQ(writer.size(), 4u + (values.size() * 2 + 3) / 4 * 4);
  DataReaderFromMemory reader(writer.bytes().data(), writer.size());
  ModelBinFromDataReader mb(reader);
  Mat m = mb.load(static_cast<int>(values.size()), 0);
  ASSERT_EQ(m.w, static_cast<int>(values.size()));
  for (size_t i = 0; i < values.size(); i++) {
    const float want = reference_round_to_half(values[i], halves);
    ASSERT_EQ(bits_of(m[i]), bits_of(want)) << "value " << values[i] << " decoded " << m[i] << " want " << want;
  }
}

TEST(LoaderModelBin, Int8StaysInt8WithPadding) {
  for (int w : {1, 2, 3, 4, 5, 13}) {
    Mat q(w, size_t{1}, 1);
    std::mt19937 rng(w);
    for (int i = 0; i < w; i++) static_cast<int8_t*>(q.data)[i] = static_cast<int8_t>(rng() % 256 - 128);
    ModelBinWriter writer;
    writer.write(q, 0, Storage::int8);
    writer.write(vector_mat({3.5f}), 0, Storage::fp32);
    ASSERT_EQ(writer.size(), 4u + (w + 3) / 4 * 4 + 8u);
    DataReaderFromMemory reader(writer.bytes().data(), writer.size());
    ModelBinFromDataReader mb(reader);
    Mat m = mb.load(w, 0);
    ASSERT_EQ(m.w, w);
    EXPECT_EQ(m.elemsize, 1u);
    EXPECT_EQ(m.elempack, 1);
    EXPECT_EQ(memcmp(m.data, q.data, w), 0);
    EXPECT_EQ(mb.load(1, 0)[0], 3.5f) << "padding after " << w << " int8 values not skipped";
  }
}

TEST(LoaderModelBin, QuantizedTableExactAndUniform) {
  // At most 256 distinct values: exact.
  std::vector<float> few;
  for (int i = 0; i < 301; i++) few.push_back(static_cast<float>(i % 7) * 0.25f - 1.f);
  // Many distinct values: uniform levels, error at most half a step.
  const std::vector<float> many = test::random_vector(1003, 11, -3.f, 5.f);
  ModelBinWriter writer;
  writer.write(vector_mat(few), 0, Storage::quantized_table);
  writer.write(vector_mat(many), 0, Storage::quantized_table);
  writer.write(vector_mat({-7.f}), 1, Storage::fp32);
  EXPECT_EQ(writer.size(), (4u + 1024u + 304u) + (4u + 1024u + 1004u) + 4u);
  DataReaderFromMemory reader(writer.bytes().data(), writer.size());
  ModelBinFromDataReader mb(reader);
  EXPECT_EQ(mat_values(mb.load(301, 0)), few);
  Mat m = mb.load(1003, 0);
  float lo = many[0], hi = many[0];
  for (float v : many) lo = std::min(lo, v), hi = std::max(hi, v);
  const float half_step = (hi - lo) / 255.f / 2.f;
  for (int i = 0; i < 1003; i++) EXPECT_LE(std::fabs(m[i] - many[i]), half_step * 1.001f) << i;
  EXPECT_EQ(mb.load(1, 1)[0], -7.f);
}

TEST(LoaderModelBin, HandBuiltTableWithOddFlagDecodes) {
  // Any flag that is not all zeros and not a known tag selects the table form.
  std::vector<unsigned char> bytes;
  append_word(bytes, 0x01000000);
  for (int k = 0; k < 256; k++) append_word(bytes, bits_of(k * 0.5f - 3.f));
  for (unsigned char idx : {0, 255, 6, 7, 8}) bytes.push_back(idx);
  bytes.resize(bytes.size() + 3, 0);
  DataReaderFromMemory reader(bytes.data(), bytes.size());
  ModelBinFromDataReader mb(reader);
  EXPECT_EQ(mat_values(mb.load(5, 0)), (std::vector<float>{-3.f, 124.5f, 0.f, 0.5f, 1.f}));
  EXPECT_EQ(reader.remaining(), 0u);
}

// Current ncnn's bf16 storage (flag 0x01348B83, ncnnoptimize's storage type 2): the high
// halves of fp32 values, padded to 4 bytes; it was read as a quantization table.
TEST(LoaderModelBin, Bf16DecodesHandBuiltValues) {
  const std::vector<float> values = {1.f, -2.5f, 3.140625f, 0.f, -0.f, std::ldexp(1.f, 100), INFINITY};  // exact in bf16
  std::vector<unsigned char> bytes;
  append_word(bytes, 0x01348B83);
  for (float v : values) {
    const uint16_t high = static_cast<uint16_t>(bits_of(v) >> 16);
    bytes.push_back(static_cast<unsigned char>(high & 0xff));
    bytes.push_back(static_cast<unsigned char>(high >> 8));
  }
  bytes.resize(bytes.size() + 2, 0);  // 7 values: 14 bytes padded to 16
  append_word(bytes, 0);              // the next buffer: raw fp32
  append_word(bytes, bits_of(7.f));
  DataReaderFromMemory reader(bytes.data(), bytes.size());
  ModelBinFromDataReader mb(reader);
  const std::vector<float> got = mat_values(mb.load(static_cast<int>(values.size()), 0));
  ASSERT_EQ(got.size(), values.size());
  for (size_t i = 0; i < values.size(); i++) EXPECT_EQ(bits_of(got[i]), bits_of(values[i])) << i;
  EXPECT_EQ(mat_values(mb.load(1, 0)), std::vector<float>{7.f});
  EXPECT_EQ(reader.remaining(), 0u);
}

// An empty buffer under a table flag is the flag alone, as ncnn reads it (no table).
TEST(LoaderModelBin, EmptyBufferWithATableFlagIsTheFlagAlone) {
  std::vector<unsigned char> bytes;
  append_word(bytes, 0x12345678);
  append_word(bytes, 0);
  append_word(bytes, bits_of(2.f));
  DataReaderFromMemory reader(bytes.data(), bytes.size());
  ModelBinFromDataReader mb(reader);
  EXPECT_TRUE(mb.load(0, 0).empty());
  EXPECT_EQ(mat_values(mb.load(1, 0)), std::vector<float>{2.f});
  EXPECT_EQ(reader.remaining(), 0u);
}

TEST(LoaderModelBin, ShapedLoadsReshape) {
  const std::vector<float> values = test::random_vector(2 * 3 * 5, 3);
  ModelBinWriter writer;
  writer.write(vector_mat(values), 0, Storage::fp32);
  DataReaderFromMemory reader(writer.bytes().data(), writer.size());
  ModelBinFromDataReader mb(reader);
  Mat m = mb.load(2, 3, 5, 0);
  ASSERT_EQ(m.dims, 3);
  EXPECT_EQ(m.w, 2);
  EXPECT_EQ(m.h, 3);
  EXPECT_EQ(m.c, 5);
  for (int q = 0; q < 5; q++)
    for (int i = 0; i < 6; i++) EXPECT_EQ(m.channel(q)[i], values[q * 6 + i]);
  EXPECT_NE(error_of([&] { mb.load(1 << 16, 1 << 16, 1); }).find("more than"), std::string::npos);
}

TEST(LoaderModelBin, ZeroCopyPointsIntoAlignedMemory) {
  ModelBinWriter writer;
  writer.write(vector_mat(test::random_vector(9, 1)), 0, Storage::fp32);
  writer.write(vector_mat(test::random_vector(3, 2)), 0, Storage::fp16);  // 6 bytes + 2 padding
  writer.write(vector_mat(test::random_vector(5, 3)), 1, Storage::fp32);
  writer.write(vector_mat(test::random_vector(64, 4)), 0, Storage::fp32);  // the tail: no slack after it
  const std::vector<unsigned char>& bytes = writer.bytes();
  auto inside = [](const Mat& m, const void* base, size_t size) {
    const unsigned char* p = static_cast<const unsigned char*>(m.data);
    const unsigned char* b = static_cast<const unsigned char*>(base);
    return p >= b && p + m.w * 4 <= b + size;
  };
  {
    DataReaderFromMemory reader(bytes.data(), bytes.size());
    ModelBinFromDataReader mb(reader);
    Mat a = mb.load(9, 0);
    Mat h = mb.load(3, 0);
    Mat b = mb.load(5, 1);
    Mat tail = mb.load(64, 0);
    EXPECT_TRUE(inside(a, bytes.data(), bytes.size()));
    EXPECT_EQ(a.refcount, nullptr);
    EXPECT_FALSE(inside(h, bytes.data(), bytes.size()));
    EXPECT_TRUE(inside(b, bytes.data(), bytes.size()));
    // Vector code may read kOverreadBytes past the last weight: not safe at the end of
    // a caller's buffer, so the tail is copied...
    EXPECT_FALSE(inside(tail, bytes.data(), bytes.size()));
    EXPECT_EQ(mat_values(tail), test::random_vector(64, 4));
  }
  {
    // ...unless the caller vouches for readable bytes after the buffer.
    DataReaderFromMemory reader(bytes.data(), bytes.size(), kOverreadBytes);
    ModelBinFromDataReader mb(reader);
    mb.load(9, 0);
    mb.load(3, 0);
    mb.load(5, 1);
    EXPECT_TRUE(inside(mb.load(64, 0), bytes.data(), bytes.size()));
  }
  {
    DataReaderFromMemory reader(bytes.data(), bytes.size());
    ModelBinFromDataReader mb(reader);
    mb.set_allow_reference(false);
    EXPECT_FALSE(inside(mb.load(9, 0), bytes.data(), bytes.size()));
  }
}

TEST(LoaderModelBin, MisalignedSourceCopies) {
  ModelBinWriter writer;
  const std::vector<float> values = test::random_vector(20, 5);
  writer.write(vector_mat(values), 1, Storage::fp32);
  writer.write(vector_mat(values), 1, Storage::fp32);
  std::vector<unsigned char> shifted(writer.size() + 1);
  memcpy(shifted.data() + 1, writer.bytes().data(), writer.size());
  DataReaderFromMemory reader(shifted.data() + 1, writer.size());
  ModelBinFromDataReader mb(reader);
  Mat m = mb.load(20, 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(m.data) % 4, 0u);
  EXPECT_TRUE(static_cast<unsigned char*>(m.data) < shifted.data() ||
              static_cast<unsigned char*>(m.data) >= shifted.data() + shifted.size());
  EXPECT_EQ(mat_values(m), values);
}

TEST(LoaderModelBin, ZeroCopyIntoMappedFileOutlivesReader) {
  test::TempDir dir;
  ModelBinWriter writer;
  const std::vector<float> a = test::random_vector(11, 6), b = test::random_vector(7, 7);
  writer.write(vector_mat(a), 0, Storage::fp32);
  writer.write(vector_mat(b), 0, Storage::fp16);
  writer.write(vector_mat(a), 1, Storage::fp32);  // last bytes of the file: the mapping has slack
  writer.save(dir.file("w.bin"));
  Mat first, last;
  std::shared_ptr<const MappedFile> keep;
  {
    DataReaderFromMappedFile reader(std::make_shared<MappedFile>(dir.file("w.bin")));
    keep = reader.mapping();
    ModelBinFromDataReader mb(reader);
    first = mb.load(11, 0);
    mb.load(7, 0);
    last = mb.load(11, 1);
  }
  const unsigned char* base = keep->data();
  for (const Mat* m : {&first, &last}) {
    const unsigned char* p = static_cast<const unsigned char*>(m->data);
    EXPECT_TRUE(p >= base && p + 44 <= base + keep->size());
    EXPECT_EQ(mat_values(*m), a);
  }
}

TEST(LoaderModelBin, StdioReaderDecodesEverything) {
  test::TempDir dir;
  ModelBinWriter writer;
  const std::vector<float> a = test::random_vector(13, 9);
  writer.write(vector_mat(a), 0, Storage::fp32);
  writer.write(vector_mat(a), 0, Storage::quantized_table);
  writer.save(dir.file("s.bin"));
  UniqueFile fp = open_file(dir.file("s.bin"), "rb");
  DataReaderFromStdio reader(fp.get());
  EXPECT_EQ(reader.remaining(), writer.size());
  ModelBinFromDataReader mb(reader);
  EXPECT_EQ(mat_values(mb.load(13, 0)), a);
  EXPECT_EQ(mat_values(mb.load(13, 0)), a);
  EXPECT_EQ(reader.remaining(), 0u);
}

TEST(LoaderModelBin, BadArgumentsNameTheLayer) {
  std::vector<unsigned char> bytes(64, 0);
  DataReaderFromMemory reader(bytes.data(), bytes.size());
  ModelBinFromDataReader mb(reader);
  mb.set_context("layer 'fc' (InnerProduct)");
  std::string msg = error_of([&] { mb.load(-1, 0); });
  EXPECT_NE(msg.find("layer 'fc' (InnerProduct)"), std::string::npos) << msg;
  msg = error_of([&] { mb.load(3, 2); });
  EXPECT_NE(msg.find("unknown load type 2"), std::string::npos) << msg;
  msg = error_of([&] { mb.load(1000, 1); });
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
}

// A .bin with one buffer of every storage; cutting it at any byte must give an Error
// naming the layer and a byte offset, whichever reader is used.
TEST(LoaderModelBin, TruncationAtEveryByteNamesLayerAndOffset) {
  ModelBinWriter writer;
  Mat q(5, size_t{1}, 1);
  q.fill_bytes(0x7f);
  writer.write(vector_mat(test::random_vector(3, 1)), 0, Storage::fp32);
  writer.write(vector_mat(test::random_vector(5, 2)), 0, Storage::fp16);
  writer.write(q, 0, Storage::int8);
  writer.write(vector_mat(test::random_vector(6, 3)), 0, Storage::quantized_table);
  writer.write(vector_mat(test::random_vector(2, 4)), 1, Storage::fp32);
  writer.write(vector_mat(test::random_vector(3, 5)), 0, Storage::fp32_tagged);
  const std::vector<std::pair<int, int>> loads = {{3, 0}, {5, 0}, {5, 0}, {6, 0}, {2, 1}, {3, 0}};
  auto load_all = [&](DataReader& reader) {
    ModelBinFromDataReader mb(reader);
    for (size_t k = 0; k < loads.size(); k++) {
      mb.set_context("layer 'conv" + std::to_string(k) + "' (Convolution)");
      mb.load(loads[k].first, loads[k].second);
    }
  };
  {
    DataReaderFromMemory full(writer.bytes().data(), writer.size());
    load_all(full);
    EXPECT_EQ(full.remaining(), 0u);
  }
  for (size_t cut = 0; cut < writer.size(); cut++) {
    // An exact-size heap copy, so any read past the cut touches memory it does not own.
    std::vector<unsigned char> prefix(writer.bytes().begin(), writer.bytes().begin() + cut);
    for (int use_stdio = 0; use_stdio < 2; use_stdio++) {
      std::string msg;
      if (use_stdio) {
        FILE* fp = fmemopen(prefix.empty() ? nullptr : prefix.data(), prefix.size(), "rb");
        if (prefix.empty()) fp = fopen("/dev/null", "rb");
        ASSERT_NE(fp, nullptr);
        DataReaderFromStdio reader(fp);
        msg = error_of([&] { load_all(reader); });
        fclose(fp);
      } else {
        DataReaderFromMemory reader(prefix.data(), prefix.size());
        msg = error_of([&] { load_all(reader); });
      }
      EXPECT_NE(msg.find("layer 'conv"), std::string::npos) << "cut " << cut << ": " << msg;
      EXPECT_NE(msg.find("byte offset"), std::string::npos) << "cut " << cut << ": " << msg;
      EXPECT_NE(msg.find("truncated"), std::string::npos) << "cut " << cut << ": " << msg;
    }
  }
}

TEST(LoaderModelBin, WriterRejectsMismatchedStorage) {
  Mat f = vector_mat({1.f, 2.f});
  Mat q(2, size_t{1}, 1);
  ModelBinWriter writer;
  EXPECT_NE(error_of([&] { writer.write(f, 1, Storage::fp16); }).find("type 1"), std::string::npos);
  EXPECT_NE(error_of([&] { writer.write(f, 0, Storage::int8); }).find("int8"), std::string::npos);
  EXPECT_NE(error_of([&] { writer.write(q, 0, Storage::fp32); }).find("fp32"), std::string::npos);
  EXPECT_NE(error_of([&] { writer.write(f, 3, Storage::fp32); }).find("unknown type"), std::string::npos);
  EXPECT_EQ(writer.size(), 0u);
}

TEST(LoaderModelBin, WriterFlattensPackedAndPaddedMats) {
  // 3-D Mats with channel padding, at every elempack, write their scalars in ncnn order
  // (channel by channel), for fp32 and int8 alike.
  const int w = 3, h = 1, c = 16;
  Mat f(w, h, c);
  Mat q(w, h, c, size_t{1}, 1);
  for (int ch = 0; ch < c; ch++)
    for (int i = 0; i < w * h; i++) {
      f.channel(ch)[i] = static_cast<float>(ch * 10 + i);
      static_cast<int8_t*>(q.channel(ch).data)[i] = static_cast<int8_t>(ch * 5 - i);
    }
  Option opt;
  for (int elempack : {1, 4, 8, 16}) {
    Mat f_packed, q_packed;
    convert_packing(f, f_packed, elempack, opt);
    convert_packing(q, q_packed, elempack, opt);
    ASSERT_EQ(f_packed.elempack, elempack);
    ASSERT_EQ(q_packed.elempack, elempack);
    ModelBinWriter writer;
    writer.write(f_packed, 1, Storage::fp32);
    writer.write(q_packed, 0, Storage::int8);
    ASSERT_EQ(writer.size(), static_cast<size_t>(w * h * c) * 4 + 4 + static_cast<size_t>(w * h * c));
    DataReaderFromMemory reader(writer.bytes().data(), writer.size());
    ModelBinFromDataReader mb(reader);
    Mat back = mb.load(w * h * c, 1);
    Mat back_q = mb.load(w * h * c, 0);
    for (int ch = 0; ch < c; ch++)
      for (int i = 0; i < w * h; i++) {
        EXPECT_EQ(back[ch * w * h + i], ch * 10 + i) << "elempack " << elempack;
        EXPECT_EQ(static_cast<const int8_t*>(back_q.data)[ch * w * h + i], ch * 5 - i) << "elempack " << elempack;
      }
  }
}

}  // namespace
}  // namespace jitconv
