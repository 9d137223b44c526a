// Deterministic mutation testing: thousands of damaged .param, .param.bin and .bin inputs
// must produce a jitconv::Error or a valid result, never a crash, a hang or another
// exception type. Whatever parses must also survive the writers.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "loader/model_bin_reader.h"
#include "loader/model_writer.h"
#include "loader/param_parser.h"
#include "tests/loader_test_util.h"
#include "tests/test_util.h"

namespace jitconv {
namespace {

constexpr int kMutationsPerInput = 4000;

const char* const kSeedParam =
    "7767517\n"
    "6 8\n"
    "Input            data   0 1 data 0=9 1=7 2=3 -23330=4,3,9,7,3\n"
    "Convolution      conv   1 1 data c 0=5 1=3 4=1 5=1 6=135 9=2 -23310=1,1.000000e-01\n"
    "Split            split  1 2 c c0 c1 -23330=8,3,9,7,5,3,9,7,5\n"
    "Interp           up     1 1 c0 u 0=2 1=2.5e+00 2=-1.5 3=\"bilinear mode\" 4=abc\n"
    "Eltwise          sum    2 1 c1 u s 0=1 -23301=2,1,-0.5 -23302=0 5=1,2,3\n"
    "Slice            sl     1 2 s o1 o2 -23300=2,-233,-233 1=0 2=nan 3=-inf\n";

std::vector<unsigned char> mutate(const std::vector<unsigned char>& seed, std::mt19937& rng) {
  std::vector<unsigned char> data = seed;
  // Characters that matter to the parsers, so text mutations hit interesting paths.
  static const unsigned char kInteresting[] = {'0', '1', '9', '-', '=', ',', '.', 'e', '"', ' ', '\n', '\r', '\t', 0, 0xff, 0x80};
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; e++) {
    const size_t pos = data.empty() ? 0 : rng() % data.size();
    switch (rng() % 6) {
      case 0:  // flip bits
        if (!data.empty()) data[pos] ^= static_cast<unsigned char>(1u << (rng() % 8));
        break;
      case 1:  // replace with an interesting byte
        if (!data.empty()) data[pos] = kInteresting[rng() % sizeof(kInteresting)];
        break;
      case 2:  // truncate
        data.resize(pos);
        break;
      case 3: {  // insert bytes
        const size_t n = 1 + rng() % 8;
        for (size_t k = 0; k < n; k++)
          data.insert(data.begin() + static_cast<long>(std::min(pos, data.size())),
                      rng() % 2 ? kInteresting[rng() % sizeof(kInteresting)] : static_cast<unsigned char>(rng()));
        break;
      }
      case 4: {  // delete a range
        const size_t n = std::min(data.size() - std::min(pos, data.size()), static_cast<size_t>(1 + rng() % 16));
        data.erase(data.begin() + static_cast<long>(pos), data.begin() + static_cast<long>(pos + n));
        break;
      }
      default: {  // overwrite a 4-byte word with an extreme value (binary counts and ids)
        static const int32_t kWords[] = {0, -1, -233, -23300, -23331, -23400, 0x7fffffff, static_cast<int32_t>(0x80000000), 256, 7767517};
        if (data.size() >= 4) {
          const size_t at = (rng() % (data.size() / 4)) * 4;
          memcpy(&data[at], &kWords[rng() % (sizeof(kWords) / 4)], 4);
        }
        break;
      }
    }
  }
  return data;
}

// Runs f; Error is expected, anything else fails the test with the input's index.
template <typename F>
bool only_errors(F&& f, int index, const char* what) {
  try {
    f();
    return true;
  } catch (const Error&) {
    return false;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << " mutation #" << index << " threw a non-jitconv exception: " << e.what();
  } catch (...) {
    ADD_FAILURE() << what << " mutation #" << index << " threw a non-exception";
  }
  return false;
}

// A parsed graph must be writable (or refused with an Error) and read back equal.
void check_rewrite(const ParamGraph& g, int index) {
  ParamGraph text_back;
  const bool text_ok = only_errors([&] { text_back = parse_param_text(write_param_text(g)); }, index, "rewrite");
  if (text_ok) {
    EXPECT_TRUE(test::graphs_equal(g, text_back, true)) << "mutation #" << index;
  }
  ParamGraph bin_back;
  const bool bin_ok = only_errors(
      [&] {
        const std::vector<unsigned char> bytes = write_param_binary(g);
        bin_back = parse_param_binary(bytes.data(), bytes.size());
      },
      index, "rewrite");
  if (bin_ok) {
    EXPECT_TRUE(test::graphs_equal(g, bin_back, false)) << "mutation #" << index;
  }
}

TEST(LoaderMutation, TextParam) {
  const std::vector<unsigned char> seed(kSeedParam, kSeedParam + strlen(kSeedParam));
  ASSERT_NO_THROW(parse_param_text(kSeedParam));
  std::mt19937 rng(1234);
  int parsed = 0;
  for (int i = 0; i < kMutationsPerInput; i++) {
    const std::vector<unsigned char> data = mutate(seed, rng);
    ParamGraph g;
    // An exact-size heap copy: a read past the end touches memory the parser does not own.
    std::unique_ptr<unsigned char[]> exact(new unsigned char[data.size() + 1]);
    if (!data.empty()) memcpy(exact.get(), data.data(), data.size());
    if (only_errors([&] {
          DataReaderFromMemory reader(exact.get(), data.size());
          g = parse_param_text(reader, "mutated.param");
        }, i, "text")) {
      parsed++;
      check_rewrite(g, i);
    }
  }
  // The mutations must not all be trivially fatal (or all harmless).
  EXPECT_GT(parsed, kMutationsPerInput / 50);
  EXPECT_LT(parsed, kMutationsPerInput);
}

TEST(LoaderMutation, BinaryParam) {
  const std::vector<unsigned char> seed = write_param_binary(parse_param_text(kSeedParam));
  std::mt19937 rng(5678);
  int parsed = 0;
  for (int i = 0; i < kMutationsPerInput; i++) {
    const std::vector<unsigned char> data = mutate(seed, rng);
    ParamGraph g;
    if (only_errors([&] { g = parse_param_binary(data.data(), data.size(), "mutated.param.bin"); }, i, "binary")) {
      parsed++;
      check_rewrite(g, i);
    }
    // The same bytes through a FILE*, whose size the parser cannot know.
    if (!data.empty() && i % 8 == 0) {
      FILE* fp = fmemopen(const_cast<unsigned char*>(data.data()), data.size(), "rb");
      ASSERT_NE(fp, nullptr);
      DataReaderFromStdio reader(fp);
      only_errors([&] { parse_param_binary(reader, "stream"); }, i, "binary stream");
      fclose(fp);
    }
  }
  EXPECT_GT(parsed, kMutationsPerInput / 50);
  EXPECT_LT(parsed, kMutationsPerInput);
}

TEST(LoaderMutation, ModelBin) {
  ModelBinWriter writer;
  Mat q(6, size_t{1}, 1);
  q.fill_bytes(3);
  auto values = [](int n, uint32_t seed) {
    Mat m(n);
    const std::vector<float> v = test::random_vector(n, seed);
    memcpy(m.data, v.data(), v.size() * 4);
    return m;
  };
  writer.write(values(7, 1), 0, ModelBinWriter::Storage::fp32);
  writer.write(values(5, 2), 0, ModelBinWriter::Storage::fp16);
  writer.write(q, 0, ModelBinWriter::Storage::int8);
  writer.write(values(9, 3), 0, ModelBinWriter::Storage::quantized_table);
  writer.write(values(3, 4), 1, ModelBinWriter::Storage::fp32);
  const std::vector<unsigned char> seed = writer.bytes();
  const int counts[] = {7, 5, 6, 9, 3};
  const int types[] = {0, 0, 0, 0, 1};
  std::mt19937 rng(91011);
  for (int i = 0; i < kMutationsPerInput; i++) {
    const std::vector<unsigned char> data = mutate(seed, rng);
    only_errors(
        [&] {
          DataReaderFromMemory reader(data.data(), data.size());
          ModelBinFromDataReader mb(reader);
          for (int k = 0; k < 5; k++) {
            mb.set_context("layer #" + std::to_string(k));
            Mat m = mb.load(counts[k], types[k]);
            if (m.w != counts[k]) ADD_FAILURE() << "mutation #" << i << ": loaded " << m.w << " values, not " << counts[k];
          }
        },
        i, "bin");
  }
}

}  // namespace
}  // namespace jitconv
