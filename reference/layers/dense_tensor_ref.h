// A plain fp32 tensor for the data-group reference layers: every scalar addressed by
// its named coordinates, no packing and no channel padding.
#pragma once
#include <vector>

#include "runtime/error.h"
#include "runtime/layer.h"

namespace jitconv {
namespace reference_layers {

enum RefAxis { kRefW = 0, kRefH = 1, kRefD = 2, kRefC = 3 };

struct DenseTensor {
  int dims = 0;
  int size[4] = {1, 1, 1, 1};  // w, h, d, c
  std::vector<float> values;   // ((c * D + d) * H + h) * W + w

  long count() const { return static_cast<long>(size[0]) * size[1] * size[2] * size[3]; }
  long index(const int* at) const {
    return ((static_cast<long>(at[kRefC]) * size[kRefD] + at[kRefD]) * size[kRefH] + at[kRefH]) * size[kRefW] + at[kRefW];
  }
  float& operator[](const int* at) { return values[index(at)]; }
  float operator[](const int* at) const { return values[index(at)]; }
};

// The name of ncnn axis `axis` (0 = outermost) of a `dims`-D blob.
inline int ref_axis_name(int dims, int axis) {
  static const int kNames[5][4] = {{0, 0, 0, 0}, {kRefW}, {kRefH, kRefW}, {kRefC, kRefH, kRefW}, {kRefC, kRefD, kRefH, kRefW}};
  return kNames[dims][axis];
}

inline DenseTensor to_dense(const Layer& layer, const Mat& m) {
  if (m.dims < 1 || m.dims > 4 || m.elempack != 1 || m.elemsize != 4)
    fail(layer.type, " reference: needs a 1-4-D fp32 blob of elempack 1 (dims ", m.dims, ", elempack ", m.elempack, ")");
  DenseTensor t;
  t.dims = m.dims;
  t.size[kRefW] = m.w;
  t.size[kRefH] = m.h;
  t.size[kRefD] = m.d;
  t.size[kRefC] = m.c;
  const long plane = static_cast<long>(m.w) * m.h * m.d;
  t.values.resize(t.count());
  for (int q = 0; q < m.c; q++)
    for (long i = 0; i < plane; i++) t.values[q * plane + i] = static_cast<const float*>(m.data)[m.cstep * q + i];
  return t;
}

inline Mat to_mat(const DenseTensor& t) {
  Mat m;
  switch (t.dims) {
    case 1: m.create(t.size[kRefW]); break;
    case 2: m.create(t.size[kRefW], t.size[kRefH]); break;
    case 3: m.create(t.size[kRefW], t.size[kRefH], t.size[kRefC]); break;
    default: m.create(t.size[kRefW], t.size[kRefH], t.size[kRefD], t.size[kRefC]); break;
  }
  const long plane = static_cast<long>(t.size[kRefW]) * t.size[kRefH] * t.size[kRefD];
  for (int q = 0; q < t.size[kRefC]; q++)
    for (long i = 0; i < plane; i++) static_cast<float*>(m.data)[m.cstep * q + i] = t.values[q * plane + i];
  return m;
}

// A tensor of the given dims and sizes, zero-filled.
inline DenseTensor make_dense(int dims, const int* size) {
  DenseTensor t;
  t.dims = dims;
  for (int i = 0; i < 4; i++) t.size[i] = size[i];
  t.values.assign(t.count(), 0.f);
  return t;
}

// Calls fn(at) for every coordinate of t, at = {w, h, d, c}.
template <typename Fn>
void for_each_coord(const DenseTensor& t, Fn&& fn) {
  int at[4];
  for (at[kRefC] = 0; at[kRefC] < t.size[kRefC]; at[kRefC]++)
    for (at[kRefD] = 0; at[kRefD] < t.size[kRefD]; at[kRefD]++)
      for (at[kRefH] = 0; at[kRefH] < t.size[kRefH]; at[kRefH]++)
        for (at[kRefW] = 0; at[kRefW] < t.size[kRefW]; at[kRefW]++) fn(at);
}

}  // namespace reference_layers
}  // namespace jitconv
