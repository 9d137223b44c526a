#include "loader/model_bin.h"

#include "runtime/error.h"

namespace jitconv {

Mat ModelBin::load(int w, int h, int type) const { return load(w * h, type).reshape(w, h); }
Mat ModelBin::load(int w, int h, int c, int type) const { return load(w * h * c, type).reshape(w, h, c); }
Mat ModelBin::load(int w, int h, int d, int c, int type) const {
  return load(w * h * d * c, type).reshape(w, h, d, c);
}

Mat ModelBinFromMatArray::load(int w, int type) const {
  if (next_ >= weights_.size()) fail("ModelBinFromMatArray: asked for weight #", next_, " of ", weights_.size());
  Mat m = weights_[next_++];
  const size_t have = static_cast<size_t>(m.w) * m.h * m.d * m.c;
  if (have != static_cast<size_t>(w))
    fail("ModelBinFromMatArray: weight #", next_ - 1, " holds ", have, " values, ", w, " requested");
  return m.dims == 1 ? m : m.reshape(w);
}

}  // namespace jitconv
