// Memory for tensors. Every block is 64-byte aligned and followed by kOverreadBytes of
// slack, so vector code (and generated kernels) may read one register past the end.
#pragma once
#include <cstddef>
#include <list>
#include <mutex>
#include <utility>

namespace jitconv {

constexpr size_t kMallocAlign = 64;
constexpr size_t kOverreadBytes = 64;

inline size_t align_size(size_t size, size_t alignment) {
  return (size + alignment - 1) / alignment * alignment;
}

void* aligned_malloc(size_t size);
void aligned_free(void* ptr);

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual void* fast_malloc(size_t size) = 0;
  virtual void fast_free(void* ptr) = 0;
};

// Plain aligned allocation; what a Mat uses when given no allocator.
class AlignedAllocator final : public Allocator {
 public:
  void* fast_malloc(size_t size) override { return aligned_malloc(size); }
  void fast_free(void* ptr) override { aligned_free(ptr); }
};

// Keeps freed blocks and hands them out again to a request of fitting size: a block
// is reused when it is at least the request and at most request / size_compare_ratio
// (the smallest such block).
// Thread-safe. Blocks are released when the pool is cleared or destroyed.
class PoolAllocator final : public Allocator {
 public:
  PoolAllocator();
  ~PoolAllocator() override;
  PoolAllocator(const PoolAllocator&) = delete;
  PoolAllocator& operator=(const PoolAllocator&) = delete;

  // ratio in (0, 1]; 0.5 (the default) reuses blocks up to twice the requested size.
  void set_size_compare_ratio(float ratio);
  // Frees every idle block. Blocks still in use stay owned by their users.
  void clear();

  void* fast_malloc(size_t size) override;
  void fast_free(void* ptr) override;

  size_t idle_block_count() const;
  size_t used_block_count() const;

 private:
  mutable std::mutex mutex_;
  unsigned int size_compare_ratio_;  // in 1/256 units
  std::list<std::pair<size_t, void*>> idle_;
  std::list<std::pair<size_t, void*>> used_;
};

}  // namespace jitconv
