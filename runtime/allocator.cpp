#include "runtime/allocator.h"

#include <cstdio>
#include <cstdlib>
#include <new>

#include <sys/mman.h>

namespace jitconv {

namespace {
// Blocks this large (a network's big weight matrices, whole feature maps) are aligned to
// 2 MiB and offered to transparent huge pages: streamed from memory, they then need one
// TLB walk per 2 MiB instead of per 4 KiB.
constexpr size_t kHugePageBytes = size_t(2) << 20;
constexpr size_t kHugePageMinBlock = size_t(8) << 20;
}  // namespace

void* aligned_malloc(size_t size) {
  void* ptr = nullptr;
  const size_t bytes = size + kOverreadBytes;
  if (bytes >= kHugePageMinBlock) {
    if (posix_memalign(&ptr, kHugePageBytes, bytes) != 0) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(ptr, bytes / kHugePageBytes * kHugePageBytes, MADV_HUGEPAGE);  // a hint: failure is harmless
#endif
    return ptr;
  }
  if (posix_memalign(&ptr, kMallocAlign, bytes) != 0) throw std::bad_alloc();
  return ptr;
}

void aligned_free(void* ptr) { free(ptr); }

PoolAllocator::PoolAllocator() : size_compare_ratio_(128) {}

PoolAllocator::~PoolAllocator() {
  clear();
  // Blocks still in use at destruction are a caller bug; free them rather than leak.
  std::lock_guard<std::mutex> lock(mutex_);
  if (!used_.empty()) {
    fprintf(stderr, "jitconv: PoolAllocator destroyed with %zu blocks still in use\n", used_.size());
    for (auto& block : used_) aligned_free(block.second);
    used_.clear();
  }
}

void PoolAllocator::set_size_compare_ratio(float ratio) {
  if (ratio <= 0.f || ratio > 1.f) return;
  std::lock_guard<std::mutex> lock(mutex_);
  size_compare_ratio_ = static_cast<unsigned int>(ratio * 256);
}

void PoolAllocator::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& block : idle_) aligned_free(block.second);
  idle_.clear();
}

void* PoolAllocator::fast_malloc(size_t size) {
  {
    // The smallest fitting block: the first fitting one could hand a large block to a small
    // request and make the next large request allocate afresh (a Net's blob pool then
    // grew on the second forward instead of reusing the first forward's blocks).
    std::lock_guard<std::mutex> lock(mutex_);
    auto best = idle_.end();
    for (auto it = idle_.begin(); it != idle_.end(); ++it) {
      const size_t block_size = it->first;
      if (block_size >= size && ((block_size * size_compare_ratio_) >> 8) <= size &&
          (best == idle_.end() || block_size < best->first))
        best = it;
    }
    if (best != idle_.end()) {
      used_.push_back(*best);
      void* ptr = best->second;
      idle_.erase(best);
      return ptr;
    }
  }
  void* ptr = aligned_malloc(size);
  std::lock_guard<std::mutex> lock(mutex_);
  used_.emplace_back(size, ptr);
  return ptr;
}

void PoolAllocator::fast_free(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = used_.begin(); it != used_.end(); ++it) {
    if (it->second == ptr) {
      idle_.push_back(*it);
      used_.erase(it);
      return;
    }
  }
  fprintf(stderr, "jitconv: PoolAllocator::fast_free of a pointer it does not own\n");
  std::abort();
}

size_t PoolAllocator::idle_block_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return idle_.size();
}

size_t PoolAllocator::used_block_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return used_.size();
}

}  // namespace jitconv
