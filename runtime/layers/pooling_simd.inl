// Pooling loops with the lane count as a template parameter, so the per-lane loops
// vectorize (packed lanes as one vector per window; one lane as whole rows). Included per ISA.
#include <cfloat>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "runtime/layers/pooling_kernels.h"
#include "runtime/layers/simd_math.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

using layers::PoolAdaptiveJob;
using layers::PoolWindowJob;
namespace sm = simd_math;

// Count of [start, start + len) inside [lo, hi).
inline int overlap(int start, int len, int lo, int hi) {
  const int a = start > lo ? start : lo;
  const int b = start + len < hi ? start + len : hi;
  return b > a ? b - a : 0;
}

// kMax is a template parameter: a run-time choice inside the lane loops kept them scalar.
template <int L, bool kMax>
void window_channel(const PoolWindowJob& j) {
  constexpr bool is_max = kMax;
  // Output columns whose window lies inside the real input along x.
  int ox_lo = 0;
  while (ox_lo < j.outw && ox_lo * j.stride_w - j.pad_left < j.x_begin) ox_lo++;
  int ox_hi = ox_lo;
  while (ox_hi < j.outw && ox_hi * j.stride_w - j.pad_left + j.kernel_w <= j.x_end) ox_hi++;
  const int interior = ox_hi - ox_lo;
  // Row sums of the one-lane path (packed lanes keep their windows in registers).
  std::vector<float> acc(L < 4 && interior > 0 ? static_cast<size_t>(interior) * L : 0);

  for (int oy = 0; oy < j.outh; oy++) {
    const int wy = oy * j.stride_h - j.pad_top;  // window top in input rows
    const int y0 = wy > j.y_begin ? wy : j.y_begin;
    const int y1 = wy + j.kernel_h < j.y_end ? wy + j.kernel_h : j.y_end;
    const bool y_clipped = wy < j.y_begin || wy + j.kernel_h > j.y_end;
    const int rows_counted = overlap(oy * j.stride_h, j.kernel_h, j.lo_y, j.hi_y);
    float* out_row = j.dst + static_cast<size_t>(oy) * j.outw * L;

    auto finish = [&](int ox, const float* sum, float* out) {
      const float divisor = j.count_include_pad
                                ? static_cast<float>(j.kernel_w * j.kernel_h)
                                : static_cast<float>(rows_counted * overlap(ox * j.stride_w, j.kernel_w, j.lo_x, j.hi_x));
      for (int l = 0; l < L; l++) out[l] = sum[l] / divisor;
    };

    // Interior columns. Packed lanes: each output's window in one register, stored once
    // (summing whole rows through memory loaded and stored every output once per tap: 3x3
    // s2 max pooling of 24x112x112 at pack 8 took 0.27 ms).
    if constexpr (L >= 4) {
      if (interior > 0) {
        typedef float vec __attribute__((vector_size(L * 4)));
        const float init = is_max ? (y_clipped ? -FLT_MAX : -INFINITY) : 0.f;
        const long step = static_cast<long>(j.stride_w) * L;
        const float* first = j.src + static_cast<long>(ox_lo * j.stride_w - j.pad_left) * L;
        // Windows of `kOut` outputs at a time: one window's max is a chain of dependent ops.
        auto windows = [&](auto out_count, int c0) {
          constexpr int kOut = decltype(out_count)::value;
          vec a[kOut];
          for (int c = 0; c < kOut; c++) a[c] = vec{} + init;
          for (int y = y0; y < y1; y++) {
            const float* row = first + static_cast<long>(y) * j.w * L + c0 * step;
            for (int kx = 0; kx < j.kernel_w; kx++) {
              for (int c = 0; c < kOut; c++) {
                vec v;
                std::memcpy(&v, row + c * step + kx * L, sizeof v);
                if (is_max)
                  a[c] = a[c] < v ? v : a[c];  // sm::max_f per lane
                else
                  a[c] += v;
              }
            }
          }
          for (int c = 0; c < kOut; c++) {
            float* out = out_row + (ox_lo + c0 + c) * L;
            if (is_max) {
              std::memcpy(out, &a[c], sizeof(vec));
            } else {
              float sum[L];
              std::memcpy(sum, &a[c], sizeof(vec));
              finish(ox_lo + c0 + c, sum, out);
            }
          }
        };
        int c0 = 0;
        for (; c0 + 4 <= interior; c0 += 4) windows(std::integral_constant<int, 4>(), c0);
        for (; c0 < interior; c0++) windows(std::integral_constant<int, 1>(), c0);
      }
    } else if (interior > 0) {  // one lane: whole rows of [interior] at a time (vectorizes)
      const float init = is_max ? (y_clipped ? -FLT_MAX : -INFINITY) : 0.f;
      for (int i = 0; i < interior * L; i++) acc[i] = init;
      for (int y = y0; y < y1; y++) {
        for (int kx = 0; kx < j.kernel_w; kx++) {
          const float* s = j.src + (static_cast<size_t>(y) * j.w + ox_lo * j.stride_w - j.pad_left + kx) * L;
          float* a = acc.data();
          if (j.stride_w == 1) {
            if (is_max)
              for (int i = 0; i < interior * L; i++) a[i] = sm::max_f(a[i], s[i]);
            else
              for (int i = 0; i < interior * L; i++) a[i] += s[i];
          } else {
            const long step = static_cast<long>(j.stride_w) * L;
            for (int c = 0; c < interior; c++)
              for (int l = 0; l < L; l++) {
                const float v = s[c * step + l];
                a[c * L + l] = is_max ? sm::max_f(a[c * L + l], v) : a[c * L + l] + v;
              }
          }
        }
      }
      for (int c = 0; c < interior; c++) {
        if (is_max)
          for (int l = 0; l < L; l++) out_row[(ox_lo + c) * L + l] = acc[c * L + l];
        else
          finish(ox_lo + c, &acc[c * L], out_row + (ox_lo + c) * L);
      }
    }

    // Border columns: windows clipped along x.
    for (int ox = 0; ox < j.outw; ox++) {
      if (ox >= ox_lo && ox < ox_hi) continue;
      const int wx = ox * j.stride_w - j.pad_left;
      const int x0 = wx > j.x_begin ? wx : j.x_begin;
      const int x1 = wx + j.kernel_w < j.x_end ? wx + j.kernel_w : j.x_end;
      float a[L];
      for (int l = 0; l < L; l++) a[l] = is_max ? -FLT_MAX : 0.f;
      for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
          const float* s = j.src + (static_cast<size_t>(y) * j.w + x) * L;
          for (int l = 0; l < L; l++) a[l] = is_max ? sm::max_f(a[l], s[l]) : a[l] + s[l];
        }
      if (is_max)
        for (int l = 0; l < L; l++) out_row[ox * L + l] = a[l];
      else
        finish(ox, a, out_row + ox * L);
    }
  }
}

template <int L>
void adaptive_channel(const PoolAdaptiveJob& j) {
  for (int oy = 0; oy < j.outh; oy++) {
    const int y0 = j.h * oy / j.outh;
    const int y1 = (j.h * (oy + 1) + j.outh - 1) / j.outh;
    for (int ox = 0; ox < j.outw; ox++) {
      const int x0 = j.w * ox / j.outw;
      const int x1 = (j.w * (ox + 1) + j.outw - 1) / j.outw;
      float a[L];
      for (int l = 0; l < L; l++) a[l] = j.max ? -INFINITY : 0.f;
      for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
          const float* s = j.src + (static_cast<size_t>(y) * j.w + x) * L;
          for (int l = 0; l < L; l++) a[l] = j.max ? sm::max_f(a[l], s[l]) : a[l] + s[l];
        }
      float* out = j.dst + (static_cast<size_t>(oy) * j.outw + ox) * L;
      const float area = static_cast<float>((y1 - y0) * (x1 - x0));
      for (int l = 0; l < L; l++) out[l] = j.max ? a[l] : a[l] / area;
    }
  }
}

template <int L>
void global_channel(const float* src, long count, bool is_max, float* dst) {
  // 16 / L interleaved partial results per lane keep the loop free of a serial chain.
  constexpr int kParts = 16;
  float part[kParts];
  for (int j = 0; j < kParts; j++) part[j] = is_max ? -INFINITY : 0.f;
  const long n = count * L;
  long i = 0;
  if (is_max) {
    for (; i + kParts <= n; i += kParts)
      for (int j = 0; j < kParts; j++) part[j] = sm::max_f(part[j], src[i + j]);
  } else {
    for (; i + kParts <= n; i += kParts)
      for (int j = 0; j < kParts; j++) part[j] += src[i + j];
  }
  for (int j = 0; i + j < n; j++) part[j] = is_max ? sm::max_f(part[j], src[i + j]) : part[j] + src[i + j];
  for (int l = 0; l < L; l++) {
    float r = part[l];
    for (int j = l + L; j < kParts; j += L) r = is_max ? sm::max_f(r, part[j]) : r + part[j];
    dst[l] = is_max ? r : r / static_cast<float>(count);
  }
}

template <bool kMax>
void window_channel_lanes(const layers::PoolWindowJob& job) {
  switch (job.lanes) {
    case 1: return window_channel<1, kMax>(job);
    case 4: return window_channel<4, kMax>(job);
    case 8: return window_channel<8, kMax>(job);
    default: return window_channel<16, kMax>(job);
  }
}

}  // namespace

void pool_window_channel(const layers::PoolWindowJob& job) {
  if (job.max)
    window_channel_lanes<true>(job);
  else
    window_channel_lanes<false>(job);
}

void pool_adaptive_channel(const layers::PoolAdaptiveJob& job) {
  switch (job.lanes) {
    case 1: return adaptive_channel<1>(job);
    case 4: return adaptive_channel<4>(job);
    case 8: return adaptive_channel<8>(job);
    default: return adaptive_channel<16>(job);
  }
}

void pool_global_channel(const float* src, long count, int lanes, bool max, float* dst) {
  switch (lanes) {
    case 1: return global_channel<1>(src, count, max, dst);
    case 4: return global_channel<4>(src, count, max, dst);
    case 8: return global_channel<8>(src, count, max, dst);
    default: return global_channel<16>(src, count, max, dst);
  }
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
