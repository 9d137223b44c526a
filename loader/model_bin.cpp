#include "loader/model_bin.h"

#include <climits>
#include <initializer_list>

#include "runtime/error.h"

namespace jitconv {

namespace {

// w*h*d*c as an int, or an Error when a shape from a (possibly hostile) .param file
// does not fit.
int checked_count(int w, int h, int d, int c) {
  if (w < 0 || h < 0 || d < 0 || c < 0) fail("ModelBin: negative weight shape ", w, "x", h, "x", d, "x", c);
  long long count = 1;
  for (int extent : {w, h, d, c}) {
    count *= extent;  // both factors are at most INT_MAX, so this cannot overflow
    if (count > INT_MAX)
      fail("ModelBin: weight shape ", w, "x", h, "x", d, "x", c, " holds more than ", INT_MAX, " values");
  }
  return static_cast<int>(count);
}

}  // namespace

Mat ModelBin::load(int w, int h, int type) const {
  Mat m = load(checked_count(w, h, 1, 1), type);
  return m.empty() ? m : m.reshape(w, h);
}

Mat ModelBin::load(int w, int h, int c, int type) const {
  Mat m = load(checked_count(w, h, 1, c), type);
  return m.empty() ? m : m.reshape(w, h, c);
}

Mat ModelBin::load(int w, int h, int d, int c, int type) const {
  Mat m = load(checked_count(w, h, d, c), type);
  return m.empty() ? m : m.reshape(w, h, d, c);
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
