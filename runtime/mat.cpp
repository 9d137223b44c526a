#include "runtime/mat.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "runtime/error.h"

namespace jitconv {

namespace {
AlignedAllocator g_default_allocator;
}  // namespace

void check_mat_shape(int w, int h, int d, int c, size_t elemsize, int elempack) {
  if (w < 0 || h < 0 || d < 0 || c < 0) fail("Mat: negative dimension w=", w, " h=", h, " d=", d, " c=", c);
  if (elempack != 1 && elempack != 4 && elempack != 8 && elempack != 16)
    fail("Mat: elempack must be 1, 4, 8 or 16, got ", elempack);
  if (elemsize == 0 || elemsize % elempack != 0) fail("Mat: elemsize ", elemsize, " does not hold ", elempack, " lanes");
  // Four int extents can multiply past 64 bits (the size_t byte count would wrap to a
  // small block); no machine holds 2^48 bytes, so anything past that is an error.
  const double bytes = static_cast<double>(w) * h * d * c * static_cast<double>(elemsize);
  if (bytes > 281474976710656.0)
    fail("Mat: ", w, "x", h, "x", d, "x", c, " of ", elemsize, "-byte elements is too large (", bytes, " bytes)");
}

size_t aligned_cstep(size_t plane, size_t elemsize) {
  if (plane == 0) return 0;
  size_t cstep = plane;
  while ((cstep * elemsize) % kMallocAlign != 0) ++cstep;
  return cstep;
}

void Mat::set_shape(int dims_, int w_, int h_, int d_, int c_, size_t elemsize_, int elempack_) {
  dims = dims_;
  w = w_;
  h = h_;
  d = d_;
  c = c_;
  elemsize = elemsize_;
  elempack = elempack_;
  const size_t plane = static_cast<size_t>(w) * h * d;
  cstep = dims >= 3 ? aligned_cstep(plane, elemsize) : plane;
}

void Mat::allocate(int dims_, int w_, int h_, int d_, int c_, size_t elemsize_, int elempack_, Allocator* alloc) {
  check_mat_shape(w_, h_, d_, c_, elemsize_, elempack_);
  if (dims == dims_ && w == w_ && h == h_ && d == d_ && c == c_ && elemsize == elemsize_ && elempack == elempack_ &&
      allocator == alloc && refcount != nullptr && refcount->load() == 1)
    return;  // already this shape and exclusively ours
  release();
  allocator = alloc;
  set_shape(dims_, w_, h_, d_, c_, elemsize_, elempack_);
  const size_t data_bytes = align_size(total() * elemsize, 4);
  if (data_bytes == 0) return;
  Allocator* a = allocator ? allocator : &g_default_allocator;
  unsigned char* block = static_cast<unsigned char*>(a->fast_malloc(data_bytes + sizeof(std::atomic<int>)));
  data = block;
  refcount = new (block + data_bytes) std::atomic<int>(1);
}

Mat::Mat(int w_, size_t es, int ep, Allocator* a) { create(w_, es, ep, a); }
Mat::Mat(int w_, int h_, size_t es, int ep, Allocator* a) { create(w_, h_, es, ep, a); }
Mat::Mat(int w_, int h_, int c_, size_t es, int ep, Allocator* a) { create(w_, h_, c_, es, ep, a); }
Mat::Mat(int w_, int h_, int d_, int c_, size_t es, int ep, Allocator* a) { create(w_, h_, d_, c_, es, ep, a); }

Mat::Mat(int w_, void* data_, size_t es, int ep) {
  check_mat_shape(w_, 1, 1, 1, es, ep);
  set_shape(1, w_, 1, 1, 1, es, ep);
  data = data_;
}
Mat::Mat(int w_, int h_, void* data_, size_t es, int ep) {
  check_mat_shape(w_, h_, 1, 1, es, ep);
  set_shape(2, w_, h_, 1, 1, es, ep);
  data = data_;
}
Mat::Mat(int w_, int h_, int c_, void* data_, size_t es, int ep) {
  check_mat_shape(w_, h_, 1, c_, es, ep);
  set_shape(3, w_, h_, 1, c_, es, ep);
  data = data_;
}
Mat::Mat(int w_, int h_, int d_, int c_, void* data_, size_t es, int ep) {
  check_mat_shape(w_, h_, d_, c_, es, ep);
  set_shape(4, w_, h_, d_, c_, es, ep);
  data = data_;
}

Mat::Mat(const Mat& m)
    : data(m.data), refcount(m.refcount), elemsize(m.elemsize), elempack(m.elempack), allocator(m.allocator),
      dims(m.dims), w(m.w), h(m.h), d(m.d), c(m.c), cstep(m.cstep) {
  if (refcount) refcount->fetch_add(1);
}

Mat::Mat(Mat&& m) noexcept
    : data(m.data), refcount(m.refcount), elemsize(m.elemsize), elempack(m.elempack), allocator(m.allocator),
      dims(m.dims), w(m.w), h(m.h), d(m.d), c(m.c), cstep(m.cstep) {
  m.data = nullptr;
  m.refcount = nullptr;
  m.release();
}

Mat& Mat::operator=(const Mat& m) {
  if (this == &m) return *this;
  if (m.refcount) m.refcount->fetch_add(1);
  release();
  data = m.data;
  refcount = m.refcount;
  elemsize = m.elemsize;
  elempack = m.elempack;
  allocator = m.allocator;
  dims = m.dims;
  w = m.w;
  h = m.h;
  d = m.d;
  c = m.c;
  cstep = m.cstep;
  return *this;
}

Mat& Mat::operator=(Mat&& m) noexcept {
  if (this == &m) return *this;
  release();
  data = m.data;
  refcount = m.refcount;
  elemsize = m.elemsize;
  elempack = m.elempack;
  allocator = m.allocator;
  dims = m.dims;
  w = m.w;
  h = m.h;
  d = m.d;
  c = m.c;
  cstep = m.cstep;
  m.data = nullptr;
  m.refcount = nullptr;
  m.release();
  return *this;
}

void Mat::release() {
  if (refcount && refcount->fetch_sub(1) == 1) {
    refcount->~atomic<int>();
    Allocator* a = allocator ? allocator : &g_default_allocator;
    a->fast_free(data);
  }
  data = nullptr;
  refcount = nullptr;
  elemsize = 0;
  elempack = 0;
  dims = w = h = d = c = 0;
  cstep = 0;
}

void Mat::create(int w_, size_t es, int ep, Allocator* a) { allocate(1, w_, 1, 1, 1, es, ep, a); }
void Mat::create(int w_, int h_, size_t es, int ep, Allocator* a) { allocate(2, w_, h_, 1, 1, es, ep, a); }
void Mat::create(int w_, int h_, int c_, size_t es, int ep, Allocator* a) { allocate(3, w_, h_, 1, c_, es, ep, a); }
void Mat::create(int w_, int h_, int d_, int c_, size_t es, int ep, Allocator* a) {
  allocate(4, w_, h_, d_, c_, es, ep, a);
}

void Mat::create_like(const Mat& m, Allocator* a) {
  switch (m.dims) {
    case 1: create(m.w, m.elemsize, m.elempack, a); break;
    case 2: create(m.w, m.h, m.elemsize, m.elempack, a); break;
    case 3: create(m.w, m.h, m.c, m.elemsize, m.elempack, a); break;
    case 4: create(m.w, m.h, m.d, m.c, m.elemsize, m.elempack, a); break;
    default: release();
  }
}

Mat Mat::clone(Allocator* a) const {
  Mat m;
  if (dims == 0) return m;
  m.create_like(*this, a);
  if (m.total() > 0 && data) {
    if (cstep == m.cstep)
      memcpy(m.data, data, total() * elemsize);
    else {
      const size_t plane_bytes = static_cast<size_t>(w) * h * d * elemsize;
      for (int q = 0; q < c; q++)
        memcpy(static_cast<unsigned char*>(m.data) + m.cstep * q * elemsize,
               static_cast<const unsigned char*>(data) + cstep * q * elemsize, plane_bytes);
    }
  }
  return m;
}

namespace {
// Reshape to `target`'s shape: a view when the element order and padding allow it,
// otherwise a copy that strips or adds the per-channel padding.
Mat reshape_to(const Mat& src, int dims, int w, int h, int d, int c, Allocator* a) {
  const size_t want = static_cast<size_t>(w) * h * d * c;
  const size_t have = static_cast<size_t>(src.w) * src.h * src.d * src.c;
  if (want != have)
    fail("Mat::reshape: ", have, " elements cannot become ", w, "x", h, "x", d, "x", c);
  const size_t src_plane = static_cast<size_t>(src.w) * src.h * src.d;
  const bool src_dense = src.c == 1 || src.cstep == src_plane;
  const size_t dst_plane = static_cast<size_t>(w) * h * d;
  const size_t dst_cstep = dims >= 3 ? aligned_cstep(dst_plane, src.elemsize) : dst_plane;
  const bool dst_dense = c == 1 || dst_cstep == dst_plane;
  const bool view_ok = dims <= 2 ? src_dense : (src_dense && dst_dense) || (c == src.c && dst_plane == src_plane);
  if (view_ok) {
    Mat view = src;
    view.dims = dims;
    view.w = w;
    view.h = h;
    view.d = d;
    view.c = c;
    // Same channels over the same planes: the source's channel stride, whatever it is (a
    // channel() view of a 4-D Mat is dense, not aligned). Otherwise the data is dense on
    // both sides; a lone channel keeps the plane as its stride, so total() never reaches
    // past the source's data.
    const bool same_channels = dims >= 3 && c == src.c && dst_plane == src_plane && src.c > 1;
    view.cstep = same_channels ? src.cstep : dst_plane;
    return view;
  }
  // Gather the scalars densely, then scatter them into the new channel padding.
  Mat dst;
  switch (dims) {
    case 1: dst.create(w, src.elemsize, src.elempack, a); break;
    case 2: dst.create(w, h, src.elemsize, src.elempack, a); break;
    case 3: dst.create(w, h, c, src.elemsize, src.elempack, a); break;
    default: dst.create(w, h, d, c, src.elemsize, src.elempack, a); break;
  }
  const size_t es = src.elemsize;
  size_t dst_index = 0;
  for (int q = 0; q < src.c; q++) {
    const unsigned char* s = static_cast<const unsigned char*>(src.data) + src.cstep * q * es;
    for (size_t i = 0; i < src_plane; i++, dst_index++) {
      const size_t dq = dst_index / dst_plane, di = dst_index % dst_plane;
      memcpy(static_cast<unsigned char*>(dst.data) + (dq * dst.cstep + di) * es, s + i * es, es);
    }
  }
  return dst;
}
}  // namespace

Mat Mat::reshape(int w_, Allocator* a) const { return reshape_to(*this, 1, w_, 1, 1, 1, a); }
Mat Mat::reshape(int w_, int h_, Allocator* a) const { return reshape_to(*this, 2, w_, h_, 1, 1, a); }
Mat Mat::reshape(int w_, int h_, int c_, Allocator* a) const { return reshape_to(*this, 3, w_, h_, 1, c_, a); }
Mat Mat::reshape(int w_, int h_, int d_, int c_, Allocator* a) const {
  return reshape_to(*this, 4, w_, h_, d_, c_, a);
}

void Mat::fill(float value) {
  if (total() == 0) return;
  if (elembits() != 32) fail("Mat::fill(float) needs 32-bit lanes, the Mat has ", elembits(), "-bit ones");
  const size_t n = total() * elempack;
  float* p = static_cast<float*>(data);
  std::fill(p, p + n, value);
}

void Mat::fill(int value) {
  if (total() == 0) return;
  if (elembits() != 32) fail("Mat::fill(int) needs 32-bit lanes, the Mat has ", elembits(), "-bit ones");
  const size_t n = total() * elempack;
  int* p = static_cast<int*>(data);
  std::fill(p, p + n, value);
}

void Mat::fill_bytes(uint8_t value) {
  if (total() == 0 || data == nullptr) return;
  memset(data, value, total() * elemsize);
}

namespace {
Mat make_view(void* data, int dims, int w, int h, int d, int c, size_t elemsize, int elempack, size_t cstep,
              Allocator* a) {
  Mat m;
  m.data = data;
  m.dims = dims;
  m.w = w;
  m.h = h;
  m.d = d;
  m.c = c;
  m.elemsize = elemsize;
  m.elempack = elempack;
  m.cstep = cstep;
  m.allocator = a;
  return m;
}
}  // namespace

Mat Mat::channel(int q) {
  unsigned char* p = static_cast<unsigned char*>(data) + cstep * q * elemsize;
  if (dims == 4) return make_view(p, 3, w, h, 1, d, elemsize, elempack, static_cast<size_t>(w) * h, allocator);
  return make_view(p, dims >= 3 ? 2 : dims, w, h, 1, 1, elemsize, elempack, static_cast<size_t>(w) * h, allocator);
}
const Mat Mat::channel(int q) const { return const_cast<Mat*>(this)->channel(q); }

Mat Mat::channel_range(int q, int count) {
  unsigned char* p = static_cast<unsigned char*>(data) + cstep * q * elemsize;
  return make_view(p, dims, w, h, d, count, elemsize, elempack, cstep, allocator);
}
const Mat Mat::channel_range(int q, int count) const { return const_cast<Mat*>(this)->channel_range(q, count); }

Mat Mat::depth(int z) {
  unsigned char* p = static_cast<unsigned char*>(data) + static_cast<size_t>(w) * h * z * elemsize;
  return make_view(p, 2, w, h, 1, 1, elemsize, elempack, static_cast<size_t>(w) * h, allocator);
}
const Mat Mat::depth(int z) const { return const_cast<Mat*>(this)->depth(z); }

Mat Mat::row_range(int y, int count) {
  unsigned char* p = static_cast<unsigned char*>(data) + static_cast<size_t>(w) * y * elemsize;
  return make_view(p, 2, w, count, 1, 1, elemsize, elempack, static_cast<size_t>(w) * count, allocator);
}

Mat Mat::range(int x, int count) {
  unsigned char* p = static_cast<unsigned char*>(data) + x * elemsize;
  return make_view(p, 1, count, 1, 1, 1, elemsize, elempack, count, allocator);
}

}  // namespace jitconv
