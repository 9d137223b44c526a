// convert_layout: the elempack and storage each layer gets, and that conversions keep the
// values (exactly for fp32, within the rounding for fp16/bf16).
#include <gtest/gtest.h>

#include "runtime/convert_layout.h"
#include "runtime/layer_registry.h"
#include "runtime/packing.h"
#include "tests/net_test_util.h"

namespace jitconv {
namespace test {
namespace {

class FlagLayer final : public Layer {
 public:
  FlagLayer(bool packing, bool fp16, bool bf16) {
    support_packing = packing;
    support_fp16_storage = fp16;
    support_bf16_storage = bf16;
  }
};

Mat random_blob(int dims, int outer, uint32_t seed) {
  Mat m;
  switch (dims) {
    case 1: m.create(outer); break;
    case 2: m.create(5, outer); break;
    case 3: m.create(7, 3, outer); break;
    default: m.create(3, 4, 2, outer); break;
  }
  fill_random(m, seed, -4.f, 4.f);
  return m;
}

int expected_pack(Isa isa, int scalars) {
  if (isa == Isa::avx512 && scalars % 16 == 0) return 16;
  if (isa != Isa::scalar && scalars % 8 == 0) return 8;
  return scalars % 4 == 0 ? 4 : 1;
}

TEST(NetConvertLayout, ElempackFollowsIsaLayerAndOptions) {
  Option opt;
  const FlagLayer packing(true, false, false), plain(false, false, false);
  for (Isa isa : available_isas())
    for (int dims = 1; dims <= 4; dims++)
      for (int outer : {1, 3, 4, 8, 12, 16, 24, 32, 33}) {
        const Mat m = random_blob(dims, outer, 1);
        EXPECT_EQ(layer_elempack(packing, m, opt, isa), expected_pack(isa, outer)) << dims << " " << outer;
        EXPECT_EQ(layer_elempack(plain, m, opt, isa), 1);
        Option off = opt;
        off.use_packing_layout = false;
        EXPECT_EQ(layer_elempack(packing, m, off, isa), 1);
      }
}

TEST(NetConvertLayout, StorageFollowsOptionsAndLayer) {
  Option opt;
  opt.use_fp16_storage = false;
  opt.use_bf16_storage = false;
  const FlagLayer both(true, true, true), none(true, false, false);
  EXPECT_EQ(layer_storage(both, opt), Storage::fp32);
  opt.use_bf16_storage = true;
  EXPECT_EQ(layer_storage(both, opt), Storage::bf16);
  EXPECT_EQ(layer_storage(none, opt), Storage::fp32);
  // Both on: bf16, as ncnn's x86 build reads 16-bit blobs (fp16 won here, so a custom
  // layer's bf16 blob was decoded as fp16 with fp16 storage on by default).
  opt.use_fp16_storage = true;
  EXPECT_EQ(layer_storage(both, opt), Storage::bf16);
  opt.use_bf16_storage = false;
  EXPECT_EQ(layer_storage(both, opt), cpu_info().f16c ? Storage::fp16 : Storage::fp32);
}

TEST(NetConvertLayout, RoundTripsKeepValues) {
  for (Storage storage : {Storage::fp32, Storage::fp16, Storage::bf16}) {
    if (storage == Storage::fp16 && !cpu_info().f16c) continue;
    Option opt;
    opt.num_threads = 2;
    opt.use_fp16_storage = storage == Storage::fp16;
    opt.use_bf16_storage = storage == Storage::bf16;
    // Half a unit in the last place, relative; fp16 subnormals (below 6e-5) round to 2^-25.
    const double tolerance = storage == Storage::fp32 ? 0.0 : storage == Storage::fp16 ? 1.0 / 2048 : 1.0 / 256;
    const double subnormal_error = storage == Storage::fp16 ? 3e-8 : 0.0;
    for (int dims = 1; dims <= 4; dims++)
      for (int outer : {1, 5, 8, 16, 48})
        for (int pack : {1, 4, 8, 16}) {
          SCOPED_TRACE(std::string(storage_name(storage)) + " dims " + std::to_string(dims) + " outer " +
                       std::to_string(outer) + " pack " + std::to_string(pack));
          const Mat plain = random_blob(dims, outer, 7);
          Mat converted;
          convert_layout(plain, converted, pack, storage, opt);
          EXPECT_EQ(converted.elempack, outer % pack == 0 ? pack : 1);
          EXPECT_EQ(converted.elembits(), storage == Storage::fp32 ? 32 : 16);
          Mat back;
          convert_to_plain(converted, back, opt);
          ASSERT_EQ(back.elempack, 1);
          ASSERT_EQ(back.elemsize, 4u);
          const std::vector<float> a = plain_values(back), b = plain_values(plain);
          ASSERT_EQ(a.size(), b.size());
          for (size_t i = 0; i < a.size(); i++)
            ASSERT_LE(std::fabs(a[i] - b[i]), tolerance * std::fabs(b[i]) + subnormal_error) << i << ": " << a[i] << " vs " << b[i];
        }
  }
}

// The Net never casts an fp32 blob down to 16 bits: with fp16 storage on (the default),
// data-movement layers up to an output still see and give fp32, bit for bit.
TEST(NetConvertLayout, FloatModelsKeepFloatBlobsWithSixteenBitStorageOn) {
  if (!cpu_info().f16c) GTEST_SKIP() << "fp16 storage needs F16C";
  std::vector<Mat> outputs[2];
  for (bool fp16 : {false, true}) {
    Net net;
    net.opt.use_fp16_storage = fp16;
    load_random(net, test_model_path("storage.param"));
    Extractor ex = net.create_extractor();
    ex.set_light_mode(false);
    ex.input("in", declared_inputs(net)[0].mat);
    for (const char* name : {"s1", "cat", "crop", "shuf", "out", "flat"}) {
      Mat raw, plain;
      ex.extract_raw(net.find_blob(name), raw);
      EXPECT_EQ(raw.elembits(), 32) << name << (fp16 ? " with" : " without") << " fp16 storage";
      ex.extract(name, plain);
      outputs[fp16].push_back(plain);
    }
  }
  for (size_t i = 0; i < outputs[0].size(); i++) {
    const std::vector<float> a = plain_values(outputs[0][i]), b = plain_values(outputs[1][i]);
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); k++) ASSERT_EQ(a[k], b[k]) << "blob " << i << " value " << k;
  }
}

// Rounds its input to fp16 and hands on the 16-bit blob, as a layer computing in fp16 would.
class HalfLayer final : public Layer {
 public:
  HalfLayer() { one_blob_only = true; }
  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    cast_float32_to_float16(bottom, top, opt);
  }
};

// Loads `param` with the Half type available (no weights to load).
void load_with_half(Net& net, const char* param) {
  net.set_layer_creator([](const std::string& type) -> std::unique_ptr<Layer> {
    if (type == "Half") return std::make_unique<HalfLayer>();
    return create_layer(type);
  });
  net.load_param_mem(param);
  RandomWeights none(net.graph(), 1);
  net.load_model(none);
}

// 16-bit blobs a layer produces stay 16-bit through the layers that take them and come back
// as fp32 (the same values) for the ones that do not, and for the user.
TEST(NetConvertLayout, SixteenBitBlobsPassThroughLayersThatTakeThem) {
  if (!cpu_info().f16c) GTEST_SKIP() << "fp16 storage needs F16C";
  Net net;
  load_with_half(net, R"(7767517
6 7
Input        in    0 1 in 0=6 1=5 2=8
Split        split 1 2 in a b
Half         half  1 1 a h
Concat       cat   2 1 h b cat 0=0
Noop         noop  1 1 cat out
ReLU         relu  1 1 h r
)");
  Extractor ex = net.create_extractor();
  ex.set_light_mode(false);
  const Mat input = seeded_input(net.input_shape(0), 2);
  ex.input("in", input);
  Mat half, cat, out, relu, half_plain, out_plain;
  ex.extract_raw(net.find_blob("h"), half);
  ex.extract_raw(net.find_blob("cat"), cat);
  ex.extract_raw(net.find_blob("out"), out);
  ex.extract_raw(net.find_blob("r"), relu);
  EXPECT_EQ(half.elembits(), 16);
  EXPECT_EQ(cat.elembits(), 32) << "one of Concat's inputs is fp32: it runs on fp32";
  EXPECT_EQ(out.elembits(), 32);
  EXPECT_EQ(relu.elembits(), 32) << "ReLU takes no 16-bit blobs";
  ex.extract("h", half_plain);
  ex.extract("out", out_plain);
  const std::vector<float> h = plain_values(half_plain), o = plain_values(out_plain), x = plain_values(input);
  ASSERT_EQ(o.size(), 2 * h.size());
  for (size_t k = 0; k < h.size(); k++) {
    ASSERT_EQ(o[k], h[k]) << k;
    ASSERT_EQ(o[h.size() + k], x[k]) << "the fp32 half of the Concat must stay exact, " << k;
  }

  // A layer whose inputs all arrive 16-bit keeps them.
  Net narrow;
  load_with_half(narrow, R"(7767517
3 3
Input        in    0 1 in 0=6 1=5 2=8
Half         half  1 1 in h
Noop         noop  1 1 h out
)");
  Extractor nx = narrow.create_extractor();
  nx.input("in", input);
  Mat raw_out, plain_out, plain_half;
  nx.extract_raw(narrow.find_blob("out"), raw_out);
  EXPECT_EQ(raw_out.elembits(), 16);
  nx.extract("out", plain_out);
  nx.extract("h", plain_half);
  EXPECT_EQ(plain_values(plain_out), plain_values(plain_half));
}

}  // namespace
}  // namespace test
}  // namespace jitconv
