// Mat: ownership, views, reshape, fills and the 64-byte channel rule.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "runtime/error.h"
#include "runtime/mat.h"
#include "tests/test_util.h"

using namespace jitconv;

namespace {

// Counts live blocks so tests can see exactly when a Mat frees its memory.
class CountingAllocator final : public Allocator {
 public:
  void* fast_malloc(size_t size) override {
    live++;
    total++;
    return aligned_malloc(size);
  }
  void fast_free(void* ptr) override {
    live--;
    aligned_free(ptr);
  }
  int live = 0;
  int total = 0;
};

// Smallest cstep >= plane whose byte size is a multiple of 64, found by counting up:
// independent of the gcd trick a library might use.
size_t expected_cstep(size_t plane, size_t elemsize) {
  size_t cstep = plane;
  while (cstep * elemsize % 64 != 0) cstep++;
  return cstep;
}

// Scalar (q, i) of an elempack-1 fp32 Mat, i counting over the plane.
float& at(Mat& m, int q, size_t i) { return static_cast<float*>(m.data)[m.cstep * q + i]; }

void fill_sequence(Mat& m) {
  const size_t plane = static_cast<size_t>(m.w) * m.h * m.d;
  for (int q = 0; q < m.c; q++)
    for (size_t i = 0; i < plane; i++) at(m, q, i) = static_cast<float>(q * 1000 + i);
}

}  // namespace

TEST(Mat, CopiesShareDataAndTheLastOneFrees) {
  CountingAllocator alloc;
  {
    Mat a(5, 3, 7, 4u, 1, &alloc);
    ASSERT_EQ(alloc.live, 1);
    ASSERT_NE(a.refcount, nullptr);
    EXPECT_EQ(a.refcount->load(), 1);
    Mat b = a;
    Mat c;
    c = b;
    EXPECT_EQ(b.data, a.data);
    EXPECT_EQ(c.data, a.data);
    EXPECT_EQ(a.refcount->load(), 3);
    b.release();
    EXPECT_EQ(b.data, nullptr);
    EXPECT_EQ(a.refcount->load(), 2);
    Mat moved = std::move(c);
    EXPECT_EQ(c.data, nullptr);
    EXPECT_EQ(moved.data, a.data);
    EXPECT_EQ(a.refcount->load(), 2);
    a.release();
    EXPECT_EQ(alloc.live, 1) << "a copy is still alive";
    moved = moved;  // self-assignment keeps the block
    EXPECT_EQ(moved.refcount->load(), 1);
  }
  EXPECT_EQ(alloc.live, 0);
  EXPECT_EQ(alloc.total, 1);
}

TEST(Mat, CreateReusesAnExclusiveBlockButNotASharedOne) {
  CountingAllocator alloc;
  Mat a(8, 8, 4, 4u, 1, &alloc);
  void* first = a.data;
  a.create(8, 8, 4, 4u, 1, &alloc);
  EXPECT_EQ(a.data, first);
  EXPECT_EQ(alloc.total, 1);
  Mat keep = a;
  a.create(8, 8, 4, 4u, 1, &alloc);
  EXPECT_NE(a.data, first) << "creating over shared data must not write into the other owner's block";
  EXPECT_EQ(keep.data, first);
  EXPECT_EQ(alloc.live, 2);
}

TEST(Mat, ExternalDataIsNeverFreedNorCounted) {
  std::vector<float> buffer(64 * 4, 3.f);
  {
    Mat ext(5, 3, 4, buffer.data());
    EXPECT_EQ(ext.refcount, nullptr);
    EXPECT_EQ(ext.cstep, 16u);
    Mat copy = ext;
    EXPECT_EQ(copy.data, buffer.data());
    EXPECT_EQ(copy.refcount, nullptr);
    at(copy, 1, 2) = 42.f;
    copy.release();
    ext.create(5, 3, 4);  // allocates its own block; the external buffer is left alone
    EXPECT_NE(ext.data, static_cast<void*>(buffer.data()));
  }
  EXPECT_EQ(buffer[16 + 2], 42.f);
  EXPECT_EQ(buffer[0], 3.f);
}

TEST(Mat, CstepFollowsThe64ByteRuleForEveryElemsize) {
  struct Layout {
    size_t elemsize;
    int elempack;
  };
  const Layout layouts[] = {{1, 1}, {2, 1}, {3, 1}, {4, 1}, {8, 8}, {16, 4}, {32, 8},
                            {64, 16}, {4, 4}, {8, 4}, {12, 4}, {16, 16}, {32, 16}, {6, 1}};
  for (const Layout& l : layouts) {
    for (int w = 1; w <= 23; w += 2) {
      for (int h = 1; h <= 5; h++) {
        SCOPED_TRACE(testing::Message() << "elemsize " << l.elemsize << " elempack " << l.elempack << " w " << w
                                        << " h " << h);
        Mat m3(w, h, 3, l.elemsize, l.elempack);
        EXPECT_EQ(m3.cstep, expected_cstep(static_cast<size_t>(w) * h, l.elemsize));
        EXPECT_EQ(reinterpret_cast<uintptr_t>(m3.data) % 64, 0u);
        EXPECT_EQ(m3.total(), m3.cstep * 3);
        Mat m4(w, h, 2, 3, l.elemsize, l.elempack);
        EXPECT_EQ(m4.cstep, expected_cstep(static_cast<size_t>(w) * h * 2, l.elemsize));
        // 1-D and 2-D Mats have a single channel and no padding.
        Mat m2(w, h, l.elemsize, l.elempack);
        EXPECT_EQ(m2.cstep, static_cast<size_t>(w) * h);
        Mat m1(w, l.elemsize, l.elempack);
        EXPECT_EQ(m1.cstep, static_cast<size_t>(w));
      }
    }
  }
  EXPECT_EQ(aligned_cstep(0, 4), 0u);
}

TEST(Mat, RejectsBadShapes) {
  EXPECT_THROW(Mat(-1, 3, 4), Error);
  EXPECT_THROW(Mat(4, 3, 2, 12u, 3), Error);  // elempack 3
  EXPECT_THROW(Mat(4, 3, 2, 6u, 4), Error);   // 6 bytes cannot hold 4 lanes
  EXPECT_THROW(Mat(4, 3, 2, 0u, 1), Error);
  // 2^90 elements: the size_t byte count wraps to 0, which used to give a Mat of that
  // shape with no data at all.
  EXPECT_THROW(Mat(1 << 30, 1 << 30, 1 << 30, 16), Error);
  EXPECT_THROW(Mat(1 << 30, 1 << 30, 1 << 20, 4u, 1), Error);
  try {
    Mat m(4, 3, 2, 4u, 5);
    FAIL() << "elempack 5 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("elempack"), std::string::npos) << e.what();
  }
}

TEST(Mat, CloneCopiesDeeply) {
  Mat a(5, 3, 7);
  fill_sequence(a);
  Mat b = a.clone();
  ASSERT_TRUE(b.same_shape(a));
  EXPECT_NE(b.data, a.data);
  EXPECT_EQ(b.refcount->load(), 1);
  at(a, 2, 4) = -1.f;
  EXPECT_EQ(at(b, 2, 4), 2004.f);
  for (int q = 0; q < 7; q++)
    for (size_t i = 0; i < 15; i++)
      if (!(q == 2 && i == 4)) {
        ASSERT_EQ(at(b, q, i), at(a, q, i));
      }
  // A channel-range view clones into a Mat of its own shape.
  Mat part = a.channel_range(3, 2).clone();
  EXPECT_EQ(part.c, 2);
  EXPECT_EQ(at(part, 1, 14), 4014.f);
  EXPECT_TRUE(Mat().clone().empty());
}

TEST(Mat, ReshapeIsAViewOnlyWhenTheLayoutAllows) {
  // 16 fp32 per channel = 64 bytes: no channel padding, so flattening is a view.
  Mat dense(16, 1, 4);
  fill_sequence(dense);
  Mat flat = dense.reshape(64);
  EXPECT_EQ(flat.data, dense.data);
  EXPECT_EQ(flat.dims, 1);
  EXPECT_EQ(flat[17], 1001.f);

  // 15 scalars per channel padded to 16: flattening must drop the padding (a copy).
  Mat padded(5, 3, 7);
  fill_sequence(padded);
  Mat line = padded.reshape(105);
  EXPECT_NE(line.data, padded.data);
  for (int q = 0; q < 7; q++)
    for (int i = 0; i < 15; i++) ASSERT_EQ(line[q * 15 + i], q * 1000.f + i) << q << "," << i;

  // Same channel count and plane size: a view with a new w/h.
  Mat same_plane = padded.reshape(15, 1, 7);
  EXPECT_EQ(same_plane.data, padded.data);
  EXPECT_EQ(same_plane.cstep, padded.cstep);

  // 1-D to 3-D re-pads the channels (copy), and 3-D to 4-D keeps every scalar in order.
  Mat back = line.reshape(5, 3, 7);
  EXPECT_NE(back.data, line.data);
  EXPECT_EQ(back.cstep, 16u);
  for (int q = 0; q < 7; q++)
    for (int i = 0; i < 15; i++) ASSERT_EQ(at(back, q, i), q * 1000.f + i);
  Mat four = padded.reshape(5, 3, 1, 7);
  EXPECT_EQ(four.dims, 4);
  EXPECT_EQ(at(four, 6, 14), 6014.f);
  Mat regroup = padded.reshape(7, 5, 3);  // 35 scalars per channel now
  for (int j = 0; j < 105; j++) ASSERT_EQ(at(regroup, j / 35, j % 35), line[j]) << j;

  EXPECT_THROW(padded.reshape(104), Error);
  EXPECT_THROW(padded.reshape(5, 3, 8), Error);

  // A dense 3-D view (channel() of a 4-D Mat: cstep w*h, not aligned) keeps its own
  // channel stride when the planes keep their size.
  Mat cube(3, 2, 4, 1);
  for (int i = 0; i < 24; i++) static_cast<float*>(cube.data)[i] = static_cast<float>(i);
  const Mat view = cube.channel(0);
  ASSERT_EQ(view.cstep, 6u);
  const Mat rows = view.reshape(6, 1, 4);
  EXPECT_EQ(rows.data, view.data);
  EXPECT_EQ(rows.cstep, 6u);
  for (int q = 0; q < 4; q++)
    for (int i = 0; i < 6; i++) ASSERT_EQ(static_cast<const float*>(rows.data)[q * rows.cstep + i], q * 6.f + i);

  // A lone channel made from a dense Mat stays within the source's data.
  Mat six(6);
  const Mat one = six.reshape(3, 2, 1);
  EXPECT_EQ(one.data, six.data);
  EXPECT_LE(one.total(), six.total());
}

TEST(Mat, FillWritesEveryLaneIncludingPacked) {
  Mat m(3, 2, 2, 16u, 4);
  m.fill(2.5f);
  for (size_t i = 0; i < m.total() * 4; i++) ASSERT_EQ(static_cast<float*>(m.data)[i], 2.5f);
  m.fill(7);
  for (size_t i = 0; i < m.total() * 4; i++) ASSERT_EQ(static_cast<int*>(m.data)[i], 7);
  Mat bytes(9, 2, 3, 1u, 1);
  bytes.fill_bytes(0xab);
  for (size_t i = 0; i < bytes.total(); i++) ASSERT_EQ(static_cast<uint8_t*>(bytes.data)[i], 0xab);
  // 32-bit fills on 16- or 8-bit lanes would write past the data: refused.
  Mat half(64, static_cast<size_t>(2), 1);
  EXPECT_THROW(half.fill(1.f), Error);
  EXPECT_THROW(bytes.fill(3), Error);
  Mat empty;
  EXPECT_NO_THROW(empty.fill(1.f));
  EXPECT_NO_THROW(empty.fill_bytes(0));  // no memset on a null pointer (UBSan)
}

TEST(Mat, ChannelViewsPointIntoTheParent) {
  Mat m(5, 3, 4, 6);  // 4-D: w5 h3 d4 c6
  ASSERT_EQ(m.cstep, 64u);
  Mat ch = m.channel(2);
  EXPECT_EQ(ch.dims, 3);
  EXPECT_EQ(ch.c, 4);  // the depth slices become channels
  EXPECT_EQ(ch.cstep, 15u);
  EXPECT_EQ(ch.refcount, nullptr);
  EXPECT_EQ(ch.data, static_cast<void*>(static_cast<float*>(m.data) + 2 * 64));
  ch.depth(1).row<float>(2)[3] = 9.f;  // depth 1, row 2, column 3
  EXPECT_EQ(static_cast<float*>(m.data)[2 * 64 + 15 + 2 * 5 + 3], 9.f);

  Mat m3(5, 3, 6, 16u, 4);
  Mat c3 = m3.channel(5);
  EXPECT_EQ(c3.dims, 2);
  EXPECT_EQ(c3.elempack, 4);
  EXPECT_EQ(c3.data, static_cast<void*>(static_cast<unsigned char*>(m3.data) + 5 * m3.cstep * 16));
  Mat range = m3.channel_range(1, 3);
  EXPECT_EQ(range.c, 3);
  EXPECT_EQ(range.cstep, m3.cstep);
  const Mat& cm = m3;
  EXPECT_EQ(cm.channel(1).data, range.data);

  Mat rows = m3.channel(0).row_range(1, 2);
  EXPECT_EQ(rows.h, 2);
  EXPECT_EQ(rows.data, static_cast<void*>(static_cast<unsigned char*>(m3.data) + 5 * 16));
  Mat line(10);
  Mat part = line.range(3, 4);
  EXPECT_EQ(part.w, 4);
  EXPECT_EQ(part.data, static_cast<void*>(static_cast<float*>(line.data) + 3));
}

TEST(Mat, CreateLikeCopiesTheShapeNotTheData) {
  for (int dims = 1; dims <= 4; dims++) {
    Mat src;
    if (dims == 1) src.create(19, size_t(16), 4);
    if (dims == 2) src.create(7, 3, size_t(16), 4);
    if (dims == 3) src.create(7, 3, 5, 32u, 8);
    if (dims == 4) src.create(7, 3, 2, 5, 64u, 16);
    Mat dst;
    dst.create_like(src);
    EXPECT_TRUE(dst.same_shape(src)) << "dims " << dims;
    EXPECT_EQ(dst.cstep, src.cstep);
    EXPECT_NE(dst.data, src.data);
  }
  Mat none;
  Mat dst(4, 4);
  dst.create_like(none);
  EXPECT_TRUE(dst.empty());
}
