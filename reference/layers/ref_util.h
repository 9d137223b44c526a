// Helpers for the scalar reference layers (reference/layers): elempack-1 fp32 blobs
// only, written for obviousness. Shares nothing with runtime/layers.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/layer.h"
#include "runtime/mat.h"

namespace jitconv {
namespace reference_layers {

inline std::string ref_label(const Layer& layer) { return layer.type + " " + layer.name + " (reference)"; }

inline void check_ref_blob(const Layer& layer, const Mat& m) {
  if (m.dims < 1 || m.dims > 4 || m.data == nullptr) fail(ref_label(layer), ": empty input");
  if (m.elempack != 1 || m.elemsize != 4u) fail(ref_label(layer), ": expects elempack-1 fp32 blobs");
}

// The four axes of a blob in ncnn's order, missing ones as 1.
struct Shape4 {
  int w = 1, h = 1, d = 1, c = 1;
};
inline Shape4 shape_of(const Mat& m) { return Shape4{m.w, m.h, m.d, m.c}; }

// Scalar (w, h, d, c) of an elempack-1 blob, any dims.
inline float& at(Mat& m, int x, int y, int z, int q) {
  return static_cast<float*>(m.data)[m.cstep * q + (static_cast<size_t>(z) * m.h + y) * m.w + x];
}
inline float at(const Mat& m, int x, int y, int z, int q) {
  return static_cast<const float*>(m.data)[m.cstep * q + (static_cast<size_t>(z) * m.h + y) * m.w + x];
}

// Every scalar of an elempack-1 blob in (c, d, h, w) order.
template <typename F>
void for_each_scalar(Mat& m, F f) {
  for (int q = 0; q < m.c; q++)
    for (int z = 0; z < m.d; z++)
      for (int y = 0; y < m.h; y++)
        for (int x = 0; x < m.w; x++) f(at(m, x, y, z, q));
}

// An elempack-1 fp32 blob with the given dims and axes.
inline Mat make_ref_blob(int dims, int w, int h, int d, int c) {
  switch (dims) {
    case 1: return Mat(w);
    case 2: return Mat(w, h);
    case 3: return Mat(w, h, c);
    default: return Mat(w, h, d, c);
  }
}

// Base of the one-input elementwise references: value = apply(value) in double.
class RefUnary : public Layer {
 public:
  RefUnary() {
    one_blob_only = true;
    support_inplace = true;
  }
  void forward_inplace(Mat& blob, const Option&) const override {
    check_ref_blob(*this, blob);
    for_each_scalar(blob, [this](float& v) { v = static_cast<float>(apply(v)); });
  }

 protected:
  virtual double apply(double x) const = 0;
};

}  // namespace reference_layers
}  // namespace jitconv
