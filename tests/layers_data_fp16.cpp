// The data-movement layers declare fp16/bf16 storage: they move 16-bit lanes exactly as
// they move fp32 ones. Run each on fp16 blobs and on the same values in fp32, packed
// every way, and require bit-identical results.
#include <vector>

#include "tests/layers_data_util.h"

namespace jitconv {
namespace test {
namespace {

struct Case {
  std::string type;
  ParamDict pd;
  std::vector<Mat> inputs;
  int outputs;
};

std::vector<Case> cases() {
  std::vector<Case> all;
  ParamDict concat;
  concat.set(0, 0);
  all.push_back({"Concat", concat, {random_mat(5, 3, 12, 1u), random_mat(5, 3, 8, 2u), random_mat(5, 3, 7, 3u)}, 0});
  ParamDict concat_w;
  concat_w.set(0, -1);
  all.push_back({"Concat", concat_w, {random_mat(5, 3, 16, 4u), random_mat(2, 3, 16, 5u)}, 0});
  ParamDict slice;
  slice.set(0, std::vector<int>{5, -233, -233});
  all.push_back({"Slice", slice, {random_mat(4, 3, 37, 6u)}, 3});
  ParamDict crop;
  crop.set(2, 3);
  crop.set(5, 17);
  crop.set(0, 1);
  crop.set(3, 3);
  crop.set(4, -233);
  all.push_back({"Crop", crop, {random_mat(6, 5, 32, 7u)}, 0});
  ParamDict shuffle;
  shuffle.set(0, 4);
  all.push_back({"ShuffleChannel", shuffle, {random_mat(5, 4, 48, 8u)}, 0});
  ParamDict halves;  // two groups: the paired gather
  halves.set(0, 2);
  all.push_back({"ShuffleChannel", halves, {random_mat(5, 3, 24, 11u)}, 0});
  all.push_back({"Flatten", ParamDict(), {random_mat(5, 4, 24, 9u)}, 0});
  all.push_back({"Split", ParamDict(), {random_mat(5, 4, 24, 10u)}, 2});
  return all;
}

Mat through_fp16(const Mat& m) {
  Option opt;
  Mat half, back;
  cast_float32_to_float16(m, half, opt);
  cast_float16_to_float32(half, back, opt);
  return back;
}

TEST(DataFp16Storage, MovesHalfLanesLikeFloatOnes) {
  for (const Case& c : cases()) {
    std::unique_ptr<Layer> layer = make_layer(c.type, c.pd, c.outputs);
    ASSERT_TRUE(layer->support_fp16_storage) << c.type;
    ASSERT_TRUE(layer->support_bf16_storage) << c.type;
    for (int pack : {1, 4, 8, 16}) {
      SCOPED_TRACE(c.type + " elempack " + std::to_string(pack));
      std::vector<Mat> floats, halves;
      for (const Mat& in : c.inputs) {
        floats.push_back(packed(through_fp16(in), pack));
        Mat half;
        cast_float32_to_float16(floats.back(), half, Option());
        halves.push_back(half);
      }
      const std::vector<Mat> want = forward_layer(*layer, floats);
      const std::vector<Mat> got = forward_layer(*layer, halves);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); i++) {
        ASSERT_EQ(got[i].elemsize, 2u * got[i].elempack);
        Mat back;
        cast_float16_to_float32(got[i], back, Option());
        EXPECT_TRUE(same_blob(back, want[i])) << "output " << i;
      }
    }
  }
}

}  // namespace
}  // namespace test
}  // namespace jitconv
