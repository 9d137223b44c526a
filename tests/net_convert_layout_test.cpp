// convert_layout: the elempack and storage each layer gets, and that conversions keep the
// values (exactly for fp32, within the rounding for fp16/bf16).
#include <gtest/gtest.h>

#include "runtime/convert_layout.h"
#include "runtime/layer_registry.h"
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
  opt.use_fp16_storage = true;
  EXPECT_EQ(layer_storage(both, opt), cpu_info().f16c ? Storage::fp16 : Storage::bf16);
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

// 16-bit blobs appear only where every reader keeps them: between data-movement layers
// up to an output, never in front of a layer that would cast straight back.
TEST(NetConvertLayout, NetPlansSixteenBitStorage) {
  if (!cpu_info().f16c) GTEST_SKIP() << "fp16 storage needs F16C";
  for (bool fp16 : {true, false}) {
    Net net;
    net.opt.use_fp16_storage = fp16;
    load_random(net, test_model_path("storage.param"));
    Extractor ex = net.create_extractor();
    ex.set_light_mode(false);
    ex.input("in", declared_inputs(net)[0].mat);
    Mat out, cat, flat;
    ex.extract("out", out);
    ex.extract("flat", flat);
    ex.extract_raw(net.find_blob("cat"), cat);
    EXPECT_EQ(cat.elembits(), fp16 ? 16 : 32);
    EXPECT_EQ(out.elembits(), 32);
    EXPECT_EQ(flat.elembits(), 32);
  }
  Net mixed;
  mixed.opt.use_fp16_storage = true;
  mixed.load_param_mem(R"(7767517
3 3
Input        in    0 1 in 0=6 1=5 2=8
Concat       cat   1 1 in c 0=0
Convolution  conv  1 1 c out 0=4 1=1 6=32
)");
  RandomWeights weights(mixed.graph(), 1);
  mixed.load_model(weights);
  Extractor ex = mixed.create_extractor();
  ex.set_light_mode(false);
  ex.input("in", seeded_input(mixed.input_shape(0), 2));
  Mat out, c;
  ex.extract("out", out);
  ex.extract_raw(mixed.find_blob("c"), c);
  EXPECT_EQ(c.elembits(), 32) << "Concat feeding a Convolution should stay fp32";
}

}  // namespace
}  // namespace test
}  // namespace jitconv
