// Softmax loops written over arrays of independent positions, so the max / exp / sum /
// scale passes vectorize; a contiguous row (inner == 1) uses 16 partial results instead.
#include <cmath>
#include <vector>

#include "runtime/layers/simd_math.h"
#include "runtime/layers/softmax_kernels.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

namespace sm = simd_math;

void softmax_row(float* x, long n) {
  float part[16];
  for (int j = 0; j < 16; j++) part[j] = -INFINITY;
  long i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; j++) part[j] = sm::max_f(part[j], x[i + j]);
  for (int j = 0; i + j < n; j++) part[j] = sm::max_f(part[j], x[i + j]);
  float m = part[0];
  for (int j = 1; j < 16; j++) m = sm::max_f(m, part[j]);

  for (int j = 0; j < 16; j++) part[j] = 0.f;
  for (i = 0; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; j++) {
      const float e = sm::exp_f(x[i + j] - m);
      x[i + j] = e;
      part[j] += e;
    }
  for (int j = 0; i + j < n; j++) {
    const float e = sm::exp_f(x[i + j] - m);
    x[i + j] = e;
    part[j] += e;
  }
  float s = 0.f;
  for (int j = 0; j < 16; j++) s += part[j];
  const float inv = 1.f / s;
  for (i = 0; i < n; i++) x[i] *= inv;
}

}  // namespace

void softmax_block(float* x, long len, long inner) {
  if (inner == 1) return softmax_row(x, len);
  std::vector<float> m(inner, -INFINITY), s(inner, 0.f);
  for (long j = 0; j < len; j++) {
    const float* row = x + j * inner;
    for (long k = 0; k < inner; k++) m[k] = sm::max_f(m[k], row[k]);
  }
  for (long j = 0; j < len; j++) {
    float* row = x + j * inner;
    for (long k = 0; k < inner; k++) {
      row[k] = sm::exp_f(row[k] - m[k]);
      s[k] += row[k];
    }
  }
  for (long k = 0; k < inner; k++) s[k] = 1.f / s[k];
  for (long j = 0; j < len; j++) {
    float* row = x + j * inner;
    for (long k = 0; k < inner; k++) row[k] *= s[k];
  }
}

void softmax_groups(float* x, long groups, long group_stride, long count, int lanes) {
  const long n = count * lanes;
  std::vector<float> m(n, -INFINITY), s(n, 0.f);
  for (long g = 0; g < groups; g++) {
    const float* p = x + g * group_stride;
    for (long k = 0; k < n; k++) m[k] = sm::max_f(m[k], p[k]);
  }
  // Fold the lanes of each position: every lane of position i gets the same maximum.
  if (lanes > 1)
    for (long i = 0; i < count; i++) {
      float v = m[i * lanes];
      for (int l = 1; l < lanes; l++) v = sm::max_f(v, m[i * lanes + l]);
      for (int l = 0; l < lanes; l++) m[i * lanes + l] = v;
    }
  for (long g = 0; g < groups; g++) {
    float* p = x + g * group_stride;
    for (long k = 0; k < n; k++) {
      p[k] = sm::exp_f(p[k] - m[k]);
      s[k] += p[k];
    }
  }
  if (lanes > 1)
    for (long i = 0; i < count; i++) {
      float v = 0.f;
      for (int l = 0; l < lanes; l++) v += s[i * lanes + l];
      for (int l = 0; l < lanes; l++) s[i * lanes + l] = v;
    }
  for (long k = 0; k < n; k++) s[k] = 1.f / s[k];
  for (long g = 0; g < groups; g++) {
    float* p = x + g * group_stride;
    for (long k = 0; k < n; k++) p[k] *= s[k];
  }
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
