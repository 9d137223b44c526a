// Mat: the tensor every layer reads and writes.
//
// Up to four dimensions (w, h, d, c). Elements are packed along c: with elempack p one
// element holds p consecutive channels, and elemsize is the byte size of that packed
// element (4 * p for fp32, 2 * p for fp16/bf16, 1 * p for int8). Each channel (group of
// p channels) starts on a 64-byte boundary: cstep is the channel stride in elements.
//
//   dims 3, elempack 16:  data = c/16 - [h][w][16]    (channel q at data + q*cstep*elemsize)
//
// Copies share data through a reference count; a Mat made over external memory never
// frees it.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "runtime/allocator.h"

namespace jitconv {

class Mat {
 public:
  Mat() = default;
  explicit Mat(int w, size_t elemsize = 4u, int elempack = 1, Allocator* allocator = nullptr);
  Mat(int w, int h, size_t elemsize = 4u, int elempack = 1, Allocator* allocator = nullptr);
  Mat(int w, int h, int c, size_t elemsize = 4u, int elempack = 1, Allocator* allocator = nullptr);
  Mat(int w, int h, int d, int c, size_t elemsize = 4u, int elempack = 1, Allocator* allocator = nullptr);
  // Wrap external memory (not owned). The caller keeps it alive and aligned enough for
  // the element type; cstep follows the same 64-byte rule, so the buffer must hold
  // total() * elemsize bytes.
  Mat(int w, void* data, size_t elemsize = 4u, int elempack = 1);
  Mat(int w, int h, void* data, size_t elemsize = 4u, int elempack = 1);
  Mat(int w, int h, int c, void* data, size_t elemsize = 4u, int elempack = 1);
  Mat(int w, int h, int d, int c, void* data, size_t elemsize = 4u, int elempack = 1);

  Mat(const Mat& other);
  Mat(Mat&& other) noexcept;
  Mat& operator=(const Mat& other);
  Mat& operator=(Mat&& other) noexcept;
  ~Mat() { release(); }

  void create(int w, size_t elemsize = 4u, int elempack = 1, Allocator* allocator = nullptr);
  void create(int w, int h, size_t elemsize = 4u, int elempack = 1, Allocator* allocator = nullptr);
  void create(int w, int h, int c, size_t elemsize = 4u, int elempack = 1, Allocator* allocator = nullptr);
  void create(int w, int h, int d, int c, size_t elemsize = 4u, int elempack = 1,
              Allocator* allocator = nullptr);
  // Same shape, elemsize and elempack as m.
  void create_like(const Mat& m, Allocator* allocator = nullptr);

  void release();
  bool empty() const { return data == nullptr || total() == 0; }
  // Number of packed elements including the per-channel padding.
  size_t total() const { return cstep * static_cast<size_t>(c); }
  // Number of scalar elements without padding (w*h*d*c*elempack).
  size_t scalar_count() const { return static_cast<size_t>(w) * h * d * c * elempack; }
  size_t bytes() const { return total() * elemsize; }
  int elembits() const { return elempack ? static_cast<int>(elemsize * 8 / elempack) : 0; }
  bool same_shape(const Mat& m) const {
    return dims == m.dims && w == m.w && h == m.h && d == m.d && c == m.c && elemsize == m.elemsize &&
           elempack == m.elempack;
  }

  Mat clone(Allocator* allocator = nullptr) const;
  // A view (or, when the channel padding changes, a copy) with the same scalars in a new
  // shape; the element count must match, and a 3-D/4-D target re-pads channels.
  Mat reshape(int w, Allocator* allocator = nullptr) const;
  Mat reshape(int w, int h, Allocator* allocator = nullptr) const;
  Mat reshape(int w, int h, int c, Allocator* allocator = nullptr) const;
  Mat reshape(int w, int h, int d, int c, Allocator* allocator = nullptr) const;

  void fill(float value);
  void fill(int value);
  void fill_bytes(uint8_t value);

  // Views without ownership.
  Mat channel(int q);
  const Mat channel(int q) const;
  Mat channel_range(int q, int count);
  const Mat channel_range(int q, int count) const;
  Mat depth(int z);
  const Mat depth(int z) const;
  Mat row_range(int y, int count);
  Mat range(int x, int count);

  template <typename T = float>
  T* row(int y) {
    return reinterpret_cast<T*>(static_cast<unsigned char*>(data) + static_cast<size_t>(w) * y * elemsize);
  }
  template <typename T = float>
  const T* row(int y) const {
    return reinterpret_cast<const T*>(static_cast<const unsigned char*>(data) + static_cast<size_t>(w) * y * elemsize);
  }
  template <typename T>
  operator T*() { return static_cast<T*>(data); }
  template <typename T>
  operator const T*() const { return static_cast<const T*>(data); }
  float& operator[](size_t i) { return static_cast<float*>(data)[i]; }
  const float& operator[](size_t i) const { return static_cast<const float*>(data)[i]; }

  void* data = nullptr;
  std::atomic<int>* refcount = nullptr;  // null for external or view data
  size_t elemsize = 0;
  int elempack = 0;
  Allocator* allocator = nullptr;
  int dims = 0;
  int w = 0;
  int h = 0;
  int d = 0;
  int c = 0;
  size_t cstep = 0;

 private:
  void allocate(int dims, int w, int h, int d, int c, size_t elemsize, int elempack, Allocator* allocator);
  void set_shape(int dims, int w, int h, int d, int c, size_t elemsize, int elempack);
};

// Channel step in elements for a plane of `plane` elements of `elemsize` bytes, padded so
// every channel starts on a 64-byte boundary.
size_t aligned_cstep(size_t plane, size_t elemsize);
// Throws what Mat::create would for these extents (negative, bad elempack, or more
// bytes than any machine holds), without allocating.
void check_mat_shape(int w, int h, int d, int c, size_t elemsize, int elempack);

}  // namespace jitconv
