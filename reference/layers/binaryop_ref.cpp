#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

namespace {

double apply_op(int op, double a, double b) {
  switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4: return std::max(a, b);
    case 5: return std::min(a, b);
    case 6: return std::pow(a, b);
    case 7: return b - a;
    case 8: return b / a;
    case 9: return std::pow(b, a);
    case 10: return std::atan2(a, b);
    case 11: return std::atan2(b, a);
  }
  return 0;
}

// An operand seen as a 4-axis (w, h, d, c) tensor of the output's dims.
struct View {
  Shape4 shape;
  std::function<float(int x, int y, int z, int q)> value;
};

// ncnn's rules for lifting `m` to `outdims` dims next to `other` (which has outdims).
View lift(const Mat& m, const Mat& other, int outdims) {
  const Mat* p = &m;
  if (m.dims == outdims) return {shape_of(m), [p](int x, int y, int z, int q) { return at(*p, x, y, z, q); }};
  if (m.dims == 1) {
    const bool per_outer = (outdims == 2 && m.w == other.h) || (outdims >= 3 && m.w == other.c);
    Shape4 s;
    if (!per_outer) {
      s.w = m.w;
      return {s, [p](int x, int, int, int) { return at(*p, x, 0, 0, 0); }};
    }
    if (outdims == 2) {
      s.h = m.w;
      return {s, [p](int, int y, int, int) { return at(*p, y, 0, 0, 0); }};
    }
    s.c = m.w;
    return {s, [p](int, int, int, int q) { return at(*p, q, 0, 0, 0); }};
  }
  if (m.dims == 2 && outdims == 3) {  // [w, h] -> [1, w, h]
    Shape4 s;
    s.h = m.w;
    s.c = m.h;
    return {s, [p](int, int y, int, int q) { return at(*p, y, q, 0, 0); }};
  }
  if (m.dims == 2) {  // [w, h] -> [1, 1, w, h]
    Shape4 s;
    s.d = m.w;
    s.c = m.h;
    return {s, [p](int, int, int z, int q) { return at(*p, z, q, 0, 0); }};
  }
  Shape4 s;  // [w, h, c] -> [1, w, h, c]
  s.h = m.w;
  s.d = m.h;
  s.c = m.c;
  return {s, [p](int, int y, int z, int q) { return at(*p, y, z, 0, q); }};
}

int broadcast(int a, int b, bool& ok) {
  if (a != b && a != 1 && b != 1) ok = false;
  return std::max(a, b);
}

}  // namespace

class BinaryOpRef final : public Layer {
 public:
  void load_param(const ParamDict& pd) override {
    op_ = pd.get(0, 0);
    with_scalar_ = pd.get(1, 0);
    b_ = pd.get(2, 0.f);
    one_blob_only = with_scalar_ != 0;
    support_inplace = with_scalar_ != 0;
  }
  void forward_inplace(Mat& blob, const Option&) const override {
    check_ref_blob(*this, blob);
    for_each_scalar(blob, [this](float& v) { v = static_cast<float>(apply_op(op_, v, b_)); });
  }
  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    if (with_scalar_) return Layer::forward(bottoms, tops, opt);
    const Mat& a = bottoms.at(0);
    const Mat& b = bottoms.at(1);
    check_ref_blob(*this, a);
    check_ref_blob(*this, b);
    const int outdims = std::max(a.dims, b.dims);
    const View va = lift(a, b, outdims), vb = lift(b, a, outdims);
    bool ok = true;
    Shape4 o;
    o.w = broadcast(va.shape.w, vb.shape.w, ok);
    o.h = broadcast(va.shape.h, vb.shape.h, ok);
    o.d = broadcast(va.shape.d, vb.shape.d, ok);
    o.c = broadcast(va.shape.c, vb.shape.c, ok);
    if (!ok) fail(ref_label(*this), ": shapes do not broadcast");
    Mat out = make_ref_blob(outdims, o.w, o.h, o.d, o.c);
    for (int q = 0; q < o.c; q++)
      for (int z = 0; z < o.d; z++)
        for (int y = 0; y < o.h; y++)
          for (int x = 0; x < o.w; x++) {
            const double av = va.value(va.shape.w == 1 ? 0 : x, va.shape.h == 1 ? 0 : y, va.shape.d == 1 ? 0 : z,
                                       va.shape.c == 1 ? 0 : q);
            const double bv = vb.value(vb.shape.w == 1 ? 0 : x, vb.shape.h == 1 ? 0 : y, vb.shape.d == 1 ? 0 : z,
                                       vb.shape.c == 1 ? 0 : q);
            at(out, x, y, z, q) = static_cast<float>(apply_op(op_, av, bv));
          }
    tops.assign(1, out);
  }

 private:
  int op_ = 0;
  int with_scalar_ = 0;
  float b_ = 0.f;
};

std::unique_ptr<Layer> make_BinaryOp() { return std::make_unique<BinaryOpRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
