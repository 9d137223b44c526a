// Aligned allocation and the PoolAllocator's reuse rule and thread safety.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/allocator.h"
#include "runtime/mat.h"

using namespace jitconv;

TEST(Allocator, AlignedMallocIs64ByteAlignedWithSlack) {
  for (size_t size : {1u, 3u, 64u, 100u, 4096u, 100000u}) {
    unsigned char* p = static_cast<unsigned char*>(aligned_malloc(size));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kMallocAlign, 0u) << size;
    // Vector code may read (and the pool's users write) one register past the end.
    std::memset(p, 0x5a, size + kOverreadBytes);
    aligned_free(p);
  }
}

TEST(Allocator, LargeBlocksAreHugePageAligned) {
  // 8 MiB and more: 2 MiB aligned (offered to transparent huge pages), writable to the end.
  for (size_t size : {size_t(8) << 20, (size_t(9) << 20) + 5, size_t(40) << 20}) {
    unsigned char* p = static_cast<unsigned char*>(aligned_malloc(size));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (size_t(2) << 20), 0u) << size;
    std::memset(p, 0x5a, size + kOverreadBytes);
    EXPECT_EQ(p[size - 1], 0x5a);
    aligned_free(p);
  }
}

TEST(PoolAllocator, ReusesAFittingBlock) {
  PoolAllocator pool;
  void* a = pool.fast_malloc(1000);
  EXPECT_EQ(pool.used_block_count(), 1u);
  pool.fast_free(a);
  EXPECT_EQ(pool.idle_block_count(), 1u);
  EXPECT_EQ(pool.used_block_count(), 0u);
  // 900 <= 1000 and 1000 * 0.5 <= 900: reuse.
  void* b = pool.fast_malloc(900);
  EXPECT_EQ(b, a);
  EXPECT_EQ(pool.idle_block_count(), 0u);
  pool.fast_free(b);
  // Exactly half still fits the default ratio.
  void* c = pool.fast_malloc(500);
  EXPECT_EQ(c, a);
  pool.fast_free(c);
}

TEST(PoolAllocator, ReusesTheSmallestFittingBlock) {
  // Both idle blocks fit a 550-byte request (ratio 0.5); the 600-byte one is taken, so the
  // 1000-byte block is still there for the next 1000-byte request.
  PoolAllocator pool;
  void* large = pool.fast_malloc(1000);
  void* small = pool.fast_malloc(600);
  pool.fast_free(large);
  pool.fast_free(small);
  EXPECT_EQ(pool.fast_malloc(550), small);
  EXPECT_EQ(pool.fast_malloc(1000), large);
  EXPECT_EQ(pool.idle_block_count(), 0u);
  pool.fast_free(small);
  pool.fast_free(large);
}

TEST(PoolAllocator, DoesNotReuseTooLargeOrTooSmallBlocks) {
  PoolAllocator pool;
  void* big = pool.fast_malloc(1000);
  pool.fast_free(big);
  // 1000 * 0.5 > 400: the idle block would waste more than half, so a new one.
  void* small = pool.fast_malloc(400);
  EXPECT_NE(small, big);
  EXPECT_EQ(pool.idle_block_count(), 1u);
  // Larger than any idle block: new.
  void* larger = pool.fast_malloc(1001);
  EXPECT_NE(larger, big);
  EXPECT_EQ(pool.used_block_count(), 2u);
  pool.fast_free(small);
  pool.fast_free(larger);
  EXPECT_EQ(pool.idle_block_count(), 3u);
  pool.clear();
  EXPECT_EQ(pool.idle_block_count(), 0u);
}

TEST(PoolAllocator, SizeCompareRatioControlsReuse) {
  PoolAllocator pool;
  pool.set_size_compare_ratio(1.f);  // exact sizes only
  void* a = pool.fast_malloc(1000);
  pool.fast_free(a);
  void* b = pool.fast_malloc(999);
  EXPECT_NE(b, a);
  void* c = pool.fast_malloc(1000);
  EXPECT_EQ(c, a);
  pool.fast_free(b);
  pool.fast_free(c);

  PoolAllocator loose;
  loose.set_size_compare_ratio(0.25f);
  void* d = loose.fast_malloc(1000);
  loose.fast_free(d);
  void* quarter = loose.fast_malloc(250);
  EXPECT_EQ(quarter, d);
  loose.fast_free(quarter);
  void* below_quarter = loose.fast_malloc(249);
  EXPECT_NE(below_quarter, d);
  loose.fast_free(below_quarter);

  // Out-of-range ratios are ignored, the default (0.5) stays.
  PoolAllocator defaults;
  defaults.set_size_compare_ratio(0.f);
  defaults.set_size_compare_ratio(2.f);
  void* e = defaults.fast_malloc(1000);
  defaults.fast_free(e);
  void* below_half = defaults.fast_malloc(499);
  EXPECT_NE(below_half, e);
  void* half = defaults.fast_malloc(500);
  EXPECT_EQ(half, e);
  defaults.fast_free(below_half);
  defaults.fast_free(half);
}

TEST(PoolAllocator, MatsReturnTheirBlocksToThePool) {
  PoolAllocator pool;
  void* first = nullptr;
  {
    Mat m(16, 16, 8, 4u, 1, &pool);
    first = m.data;
    EXPECT_EQ(pool.used_block_count(), 1u);
    Mat copy = m;
  }
  EXPECT_EQ(pool.used_block_count(), 0u);
  EXPECT_EQ(pool.idle_block_count(), 1u);
  Mat again(16, 16, 8, 4u, 1, &pool);
  EXPECT_EQ(again.data, first);
}

TEST(PoolAllocatorDeathTest, FreeingAForeignPointerAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  PoolAllocator pool;
  int local = 0;
  EXPECT_DEATH(pool.fast_free(&local), "does not own");
}

// Eight threads allocate, stamp, check and free blocks of overlapping sizes: a block
// handed to two threads at once would carry the other thread's stamp.
TEST(PoolAllocator, IsThreadSafe) {
  PoolAllocator pool;
  constexpr int kThreads = 8;
  constexpr int kRounds = 400;
  int corrupted = 0;
#pragma omp parallel num_threads(kThreads) reduction(+ : corrupted)
  {
    const int thread = omp_get_thread_num();
    const unsigned char stamp = static_cast<unsigned char>(thread + 1);
    for (int round = 0; round < kRounds; round++) {
      const size_t size = 64 + static_cast<size_t>((round * 37 + thread * 101) % 2048);
      unsigned char* p = static_cast<unsigned char*>(pool.fast_malloc(size));
      std::memset(p, stamp, size);
      for (size_t i = 0; i < size; i += 61)
        if (p[i] != stamp) corrupted++;
      if (p[size - 1] != stamp) corrupted++;
      pool.fast_free(p);
    }
  }
  EXPECT_EQ(corrupted, 0);
  EXPECT_EQ(pool.used_block_count(), 0u);
  EXPECT_GE(pool.idle_block_count(), 1u);
  EXPECT_LE(pool.idle_block_count(), static_cast<size_t>(kThreads * kRounds));
}
