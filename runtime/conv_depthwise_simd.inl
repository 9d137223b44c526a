// The portable depthwise convolution, one output row at a time, accumulating in the
// output row itself (it stays in L1). Included per ISA by cmake/simd.cmake, so the
// plain loops below vectorize with that ISA's width:
//   lanes 1   along the output row; 3- and 5-tap rows with stride 1 or 2 are fused
//             (one pass over the row per kernel row, the taps in registers),
//             other shapes take one pass per tap;
//   lanes > 1 along the [x][lanes] row, one pass per tap.
#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/conv_depthwise_kernels.h"
#include "runtime/layers/simd_math.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

namespace sm = simd_math;

// acc + a * b, one rounding where the ISA has FMA (the scalar build has none: a libm
// fma call per element would be far slower than the extra rounding).
inline float madd(float a, float b, float acc) {
#ifdef __FMA__
  return std::fma(a, b, acc);
#else
  return acc + a * b;
#endif
}

inline int ceil_div(int a, int b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
inline int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Output columns [begin, end) whose tap at input offset `offset` (= kx * dw - pad_left)
// reads inside [0, iw).
inline void tap_columns(int offset, int sw, int iw, int ow, int& begin, int& end) {
  begin = ceil_div(-offset, sw);
  end = floor_div(iw - 1 - offset, sw) + 1;
  if (begin < 0) begin = 0;
  if (end > ow) end = ow;
}

template <typename F>
void map_row(float* x, long n, F f) {
  for (long i = 0; i < n; i++) x[i] = f(x[i]);
}

void activate_row(const Activation& act, float* x, long n) {
  const float a = act.alpha, b = act.beta;
  switch (act.type) {
    case ActivationType::none: return;
    case ActivationType::relu: map_row(x, n, [](float v) { return sm::max_f(v, 0.f); }); return;
    case ActivationType::leaky_relu: map_row(x, n, [a](float v) { return v > 0.f ? v : v * a; }); return;
    case ActivationType::clip: map_row(x, n, [a, b](float v) { return sm::min_f(sm::max_f(v, a), b); }); return;
    case ActivationType::sigmoid: map_row(x, n, [](float v) { return sm::sigmoid_f(v); }); return;
    case ActivationType::mish: map_row(x, n, [](float v) { return sm::mish_f(v); }); return;
    case ActivationType::hardswish:
      map_row(x, n, [a, b](float v) { return v * sm::min_f(sm::max_f(v * a + b, 0.f), 1.f); });
      return;
  }
}

// One tap: out[x*L + l] += w[l] * in[(x*sw + offset)*L + l] for x in [begin, end).
template <int L>
void tap_pass(float* __restrict out, const float* __restrict in, const float* __restrict w, int sw, int offset,
              int begin, int end) {
  for (int x = begin; x < end; x++) {
    const float* s = in + (static_cast<long>(x) * sw + offset) * L;
    for (int l = 0; l < L; l++) out[x * L + l] = madd(w[l], s[l], out[x * L + l]);
  }
}

// Lanes 1, a row of KW taps with stride S fused:
// out[x] += sum_kx w[kx] * in[x*S + kx*dw - pad_left].
template <int KW, int S>
void fused_pass(float* __restrict out, const float* __restrict in, const float* __restrict w, int dw, int pad_left,
                int begin, int end) {
  float taps[KW];
  for (int kx = 0; kx < KW; kx++) taps[kx] = w[kx];
  for (int x = begin; x < end; x++) {
    float s = out[x];
    for (int kx = 0; kx < KW; kx++) s = madd(taps[kx], in[x * S + kx * dw - pad_left], s);
    out[x] = s;
  }
}

using FusedPass = void (*)(float*, const float*, const float*, int, int, int, int);

FusedPass fused_pass_for(int kw, int sw) {
  if (kw == 3 && sw == 1) return fused_pass<3, 1>;
  if (kw == 3 && sw == 2) return fused_pass<3, 2>;
  if (kw == 5 && sw == 1) return fused_pass<5, 1>;
  if (kw == 5 && sw == 2) return fused_pass<5, 2>;
  return nullptr;
}

// Where each tap of a kernel row lands in the output row; the same for every row, so
// worked out once per job (the divisions cost more than a short row's arithmetic).
struct RowPlan {
  std::vector<int> tap_begin, tap_end;  // output columns whose tap kx reads inside the input
  int inner_begin = 0, inner_end = 0;   // columns the fused pass covers (every tap inside)
  FusedPass fused = nullptr;
};

RowPlan plan_row(const DepthwiseJob& j, FusedPass fused) {
  RowPlan plan;
  plan.tap_begin.resize(j.kw);
  plan.tap_end.resize(j.kw);
  for (int kx = 0; kx < j.kw; kx++)
    tap_columns(kx * j.dw - j.pad_left, j.sw, j.iw, j.ow, plan.tap_begin[kx], plan.tap_end[kx]);
  plan.inner_begin = plan.tap_begin[0];
  plan.inner_end = plan.tap_end[j.kw - 1];
  plan.fused = fused;
  if (!fused || plan.inner_end <= plan.inner_begin) plan.inner_begin = plan.inner_end = 0;
  return plan;
}

template <int L>
void depthwise_row(const DepthwiseJob& j, const RowPlan& plan, int pack, int oy) {
  const float* src = j.src + pack * j.src_cstep;
  const float* weights = j.weights + static_cast<long>(pack) * j.kh * j.kw * L;
  float* out = j.dst + pack * j.dst_cstep + static_cast<long>(oy) * j.ow * L;
  for (int x = 0; x < j.ow; x++)
    for (int l = 0; l < L; l++) out[x * L + l] = j.bias ? j.bias[pack * L + l] : 0.f;

  const bool fused = plan.inner_end > plan.inner_begin;
  const int iy0 = oy * j.sh - j.pad_top;
  for (int ky = 0; ky < j.kh; ky++) {
    const int iy = iy0 + ky * j.dh;
    if (iy < 0 || iy >= j.ih) continue;
    const float* in_row = src + static_cast<long>(iy) * j.iw * L;
    const float* w_row = weights + static_cast<long>(ky) * j.kw * L;
    if (fused) plan.fused(out, in_row, w_row, j.dw, j.pad_left, plan.inner_begin, plan.inner_end);
    for (int kx = 0; kx < j.kw; kx++) {
      const int offset = kx * j.dw - j.pad_left;
      const int begin = plan.tap_begin[kx], end = plan.tap_end[kx];
      const float* w = w_row + kx * L;
      if (fused) {  // only the columns the fused pass left out
        tap_pass<L>(out, in_row, w, j.sw, offset, begin, std::min(end, plan.inner_begin));
        tap_pass<L>(out, in_row, w, j.sw, offset, std::max(begin, plan.inner_end), end);
      } else {
        tap_pass<L>(out, in_row, w, j.sw, offset, begin, end);
      }
    }
  }
  activate_row(j.act, out, static_cast<long>(j.ow) * L);
}

template <int L>
void run_rows(const DepthwiseJob& j, FusedPass fused) {
  const RowPlan plan = plan_row(j, fused);
  const int chunks = (j.oh + j.rows_per_task - 1) / j.rows_per_task;
  const long tasks = static_cast<long>(j.packs) * chunks;
#pragma omp parallel for num_threads(j.num_threads) schedule(static)
  for (long t = 0; t < tasks; t++) {
    const int pack = static_cast<int>(t / chunks);
    const int row0 = static_cast<int>(t % chunks) * j.rows_per_task;
    const int row1 = std::min(j.oh, row0 + j.rows_per_task);
    for (int oy = row0; oy < row1; oy++) depthwise_row<L>(j, plan, pack, oy);
  }
}

}  // namespace

void conv_depthwise_simd(const DepthwiseJob& job) {
  switch (job.lanes) {
    case 1: run_rows<1>(job, fused_pass_for(job.kw, job.sw)); break;
    case 4: run_rows<4>(job, nullptr); break;
    case 8: run_rows<8>(job, nullptr); break;
    default: run_rows<16>(job, nullptr); break;
  }
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
