// Channels-last tensors: the reorder against index arithmetic written here, and whole
// networks fed and read in NHWC giving exactly what NCHW gives.
#include <gtest/gtest.h>

#include "runtime/nhwc.h"
#include "runtime/packing.h"
#include "tests/net_test_util.h"

namespace jitconv {
namespace test {
namespace {

// A channels-last tensor (Mat(C, W, H) or Mat(C, W, H, D)) whose scalar (q, z, y, x)
// holds a value derived from those indices.
float tag(int q, int z, int y, int x) { return q * 1000.f + z * 100.f + y * 10.f + x + 0.5f; }

Mat tagged_nhwc(int c, int d, int h, int w) {
  Mat m = d > 1 ? Mat(c, w, h, d) : Mat(c, w, h);
  for (int z = 0; z < d; z++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        for (int q = 0; q < c; q++) {
          // row (outer Mat channel) = z for 4-D, y for 3-D; pixels within it row-major.
          const size_t row = d > 1 ? z : y;
          const size_t pixel = d > 1 ? static_cast<size_t>(y) * w + x : x;
          static_cast<float*>(m.data)[row * m.cstep + pixel * c + q] = tag(q, z, y, x);
        }
  return m;
}

// Scalar (q, z, y, x) of a channels-first blob of any elempack.
float blob_at(const Mat& blob, int q, int z, int y, int x) {
  const int p = blob.elempack;
  const size_t plane_index = (static_cast<size_t>(z) * blob.h + y) * blob.w + x;
  return static_cast<const float*>(blob.data)[(q / p) * blob.cstep * p + plane_index * p + q % p];
}

const int kChannels[] = {1, 2, 3, 4, 5, 7, 8, 12, 13, 16, 17, 19, 24, 31, 32, 33, 48};

TEST(NetNhwc, ReorderToBlobAndBack) {
  Option opt;
  opt.num_threads = 2;
  for (Isa isa : available_isas()) {
    IsaGuard guard(isa);
    for (int c : kChannels) {
      for (int d : {1, 3}) {
        for (int pack : {1, 4, 8, 16}) {
          SCOPED_TRACE(std::string(isa_name(isa)) + " c=" + std::to_string(c) + " d=" + std::to_string(d) +
                       " pack=" + std::to_string(pack));
          const int h = 5, w = 19;
          const Mat nhwc = tagged_nhwc(c, d, h, w);
          Mat blob;
          nhwc_to_blob(nhwc, blob, pack, opt);
          ASSERT_EQ(blob.dims, d > 1 ? 4 : 3);
          ASSERT_EQ(blob.elempack, c % pack == 0 ? pack : 1);
          ASSERT_EQ(blob.c * blob.elempack, c);
          ASSERT_EQ(blob.w, w);
          ASSERT_EQ(blob.h, h);
          ASSERT_EQ(blob.d, d);
          for (int q = 0; q < c; q++)
            for (int z = 0; z < d; z++)
              for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) ASSERT_EQ(blob_at(blob, q, z, y, x), tag(q, z, y, x));
          Mat back;
          blob_to_nhwc(blob, back, opt);
          ASSERT_EQ(back.dims, nhwc.dims);
          ASSERT_EQ(back.w, c);
          ASSERT_EQ(back.c, nhwc.c);
          for (int row = 0; row < nhwc.c; row++)
            for (size_t i = 0; i < static_cast<size_t>(nhwc.w) * nhwc.h * nhwc.d; i++)
              ASSERT_EQ(static_cast<const float*>(back.data)[row * back.cstep + i],
                        static_cast<const float*>(nhwc.data)[row * nhwc.cstep + i]);
        }
      }
    }
  }
}

TEST(NetNhwc, OneAndTwoDimensionalTensorsPassThrough) {
  Option opt;
  Mat v(37);
  fill_random(v, 3);
  Mat blob, back;
  nhwc_to_blob(v, blob, 4, opt);
  EXPECT_EQ(blob.dims, 1);
  blob_to_nhwc(blob, back, opt);
  expect_outputs_equal({back}, {v});
}

TEST(NetNhwc, RejectsWhatIsNotAnFp32Tensor) {
  Option opt;
  Mat blob;
  EXPECT_THROW(nhwc_to_blob(Mat(), blob, 1, opt), Error);
  Mat packed(4, 4, 2, 16u, 4);
  EXPECT_THROW(nhwc_to_blob(packed, blob, 1, opt), Error);
  Mat half(4, 4, 4, 2u, 1);
  EXPECT_THROW(blob_to_nhwc(half, blob, opt), Error);
  EXPECT_THROW(parse_layout("nwhc"), Error);
}

// NCHW (plain Mat) -> channels-last, by index arithmetic.
Mat to_nhwc_by_hand(const Mat& nchw) {
  Mat m(nchw.c, nchw.w, nchw.h);
  for (int y = 0; y < nchw.h; y++)
    for (int x = 0; x < nchw.w; x++)
      for (int q = 0; q < nchw.c; q++)
        static_cast<float*>(m.data)[y * m.cstep + static_cast<size_t>(x) * nchw.c + q] =
            nchw.channel(q).row(y)[x];
  return m;
}

const char kConvPair[] = R"(7767517
4 4
Input        in     0 1 in 0=21 1=13 2=3
Convolution  c1     1 1 in a 0=19 1=3 4=1 5=1 6=513 9=1
Convolution  c2     1 1 a b 0=24 1=3 3=2 5=1 6=4104
Pooling      pool   1 1 b out 0=1 1=2 2=2
)";

TEST(NetNhwc, NetworkInAndOutMatchNchw) {
  for (Isa isa : available_isas()) {
    IsaGuard guard(isa);
    SCOPED_TRACE(isa_name(isa));
    Net net;
    net.load_param_mem(kConvPair);
    RandomWeights weights(net.graph(), 4);
    net.load_model(weights);
    const Mat nchw_in = seeded_input(net.input_shape(0), 8);
    for (const char* blob : {"a", "b", "out"}) {
      SCOPED_TRACE(blob);
      Extractor plain = net.create_extractor();
      plain.input("in", nchw_in);
      Mat nchw_out;
      plain.extract(blob, nchw_out);
      Extractor channels_last = net.create_extractor();
      channels_last.input("in", to_nhwc_by_hand(nchw_in), Layout::nhwc);
      Mat nhwc_out;
      channels_last.extract(blob, nhwc_out, Layout::nhwc);
      expect_outputs_equal({nhwc_out}, {to_nhwc_by_hand(nchw_out)});
    }
  }
}

}  // namespace
}  // namespace test
}  // namespace jitconv
