// Winograd input and output transforms for F(2,3), F(4,3), F(6,3), vectorized across the
// channel pack (one vector = the same pixel of vlen channels). Compiled once per ISA
// (cmake/simd.cmake). The 1-D transforms are B^T and A^T of the points
// {0, 1, -1 [, 2, -2 [, 1/2, -1/2]]} and infinity, factored into shared sums and
// differences (derivation and G in runtime/winograd_weights.cpp).
#include <algorithm>
#include <cstring>

#include "runtime/layers/simd_math.h"
#include "runtime/winograd_kernels.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

#if defined(__AVX512F__)
constexpr int kLanes = 16;
#elif defined(__AVX2__)
constexpr int kLanes = 8;
#else
constexpr int kLanes = 4;
#endif
typedef float vec __attribute__((vector_size(kLanes * 4), aligned(4)));

inline vec load(const float* p) {
  vec v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void store(float* p, const vec& v) { std::memcpy(p, &v, sizeof(v)); }
inline vec splat(float x) { return vec{} + x; }

// r = B^T d over `alpha` points with stride `s` (in vecs) for input and output.
template <int M>
inline void input_1d(const vec* d, int ds, vec* r, int rs);

template <>
inline void input_1d<2>(const vec* d, int ds, vec* r, int rs) {
  const vec d0 = d[0], d1 = d[ds], d2 = d[2 * ds], d3 = d[3 * ds];
  r[0] = d2 - d0;
  r[rs] = d1 + d2;
  r[2 * rs] = d2 - d1;
  r[3 * rs] = d3 - d1;
}

template <>
inline void input_1d<4>(const vec* d, int ds, vec* r, int rs) {
  const vec d0 = d[0], d1 = d[ds], d2 = d[2 * ds], d3 = d[3 * ds], d4 = d[4 * ds], d5 = d[5 * ds];
  const vec a = d4 - 4.f * d2, b = d3 - 4.f * d1;  // rows 1, 2
  const vec c = d4 - d2, e = 2.f * (d3 - d1);        // rows 3, 4
  r[0] = 4.f * d0 - 5.f * d2 + d4;
  r[rs] = a + b;
  r[2 * rs] = a - b;
  r[3 * rs] = c + e;
  r[4 * rs] = c - e;
  r[5 * rs] = 4.f * d1 - 5.f * d3 + d5;
}

template <>
inline void input_1d<6>(const vec* d, int ds, vec* r, int rs) {
  const vec d0 = d[0], d1 = d[ds], d2 = d[2 * ds], d3 = d[3 * ds], d4 = d[4 * ds], d5 = d[5 * ds],
            d6 = d[6 * ds], d7 = d[7 * ds];
  const vec a12 = d2 + d6 - 4.25f * d4, b12 = d1 + d5 - 4.25f * d3;
  const vec a34 = 0.25f * d2 - 1.25f * d4 + d6, b34 = 0.5f * d1 - 2.5f * d3 + 2.f * d5;
  const vec a56 = 4.f * d2 - 5.f * d4 + d6, b56 = 2.f * d1 - 2.5f * d3 + 0.5f * d5;
  r[0] = (d6 - d0) + 5.25f * (d2 - d4);
  r[rs] = a12 + b12;
  r[2 * rs] = a12 - b12;
  r[3 * rs] = a34 + b34;
  r[4 * rs] = a34 - b34;
  r[5 * rs] = a56 + b56;
  r[6 * rs] = a56 - b56;
  r[7 * rs] = (d7 - d1) + 5.25f * (d3 - d5);
}

// y = A^T t: M outputs from alpha = M + 2 inputs.
template <int M>
inline void output_1d(const vec* t, int ts, vec* y, int ys);

template <>
inline void output_1d<2>(const vec* t, int ts, vec* y, int ys) {
  y[0] = t[0] + t[ts] + t[2 * ts];
  y[ys] = t[ts] - t[2 * ts] + t[3 * ts];
}

template <>
inline void output_1d<4>(const vec* t, int ts, vec* y, int ys) {
  const vec s12 = t[ts] + t[2 * ts], d12 = t[ts] - t[2 * ts];
  const vec s34 = t[3 * ts] + t[4 * ts], d34 = t[3 * ts] - t[4 * ts];
  y[0] = t[0] + s12 + s34;
  y[ys] = d12 + 2.f * d34;
  y[2 * ys] = s12 + 4.f * s34;
  y[3 * ys] = d12 + 8.f * d34 + t[5 * ts];
}

template <>
inline void output_1d<6>(const vec* t, int ts, vec* y, int ys) {
  const vec s12 = t[ts] + t[2 * ts], d12 = t[ts] - t[2 * ts];
  const vec s34 = t[3 * ts] + t[4 * ts], d34 = t[3 * ts] - t[4 * ts];
  const vec s56 = t[5 * ts] + t[6 * ts], d56 = t[5 * ts] - t[6 * ts];
  y[0] = t[0] + s12 + s34 + s56;
  y[ys] = d12 + 2.f * d34 + 0.5f * d56;
  y[2 * ys] = s12 + 4.f * s34 + 0.25f * s56;
  y[3 * ys] = d12 + 8.f * d34 + 0.125f * d56;
  y[4 * ys] = s12 + 16.f * s34 + 0.0625f * s56;
  y[5 * ys] = d12 + 32.f * d34 + 0.03125f * d56 + t[7 * ts];
}

// One tile of one channel pack: columns straight from `src` (row stride `row` floats),
// rows straight into the V panels (position stride `panel` floats).
template <int M>
inline void input_tile(const float* src, long row, float* dst, long panel) {
  constexpr int A = M + 2;
  vec col[A], tmp[A * A];
  for (int j = 0; j < A; j++) {
    for (int i = 0; i < A; i++) col[i] = load(src + i * row + j * kLanes);
    input_1d<M>(col, 1, tmp + j, A);
  }
  for (int i = 0; i < A; i++) {
    vec r[A];
    input_1d<M>(tmp + i * A, 1, r, 1);
    for (int j = 0; j < A; j++) store(dst + (i * A + j) * panel, r[j]);
  }
}

template <int M>
void input_transform(const WinogradInputJob& job) {
  constexpr int A = M + 2;
  const long panel = static_cast<long>(job.channel_packs) * job.tile_count * kLanes;  // floats per position
  const long row = static_cast<long>(job.iw) * kLanes;
  float patch[A * A * kLanes];  // edge tiles: the tile with its padding filled in
  for (int c = job.pack_begin; c < job.pack_end; c++) {
    const float* src = job.src + c * job.src_cstep;
    int ty = static_cast<int>(job.tile_begin / job.tiles_w), tx = static_cast<int>(job.tile_begin % job.tiles_w);
    for (int t = 0; t < job.tile_count; t++) {
      const int y0 = ty * M - job.pad_top, x0 = tx * M - job.pad_left;
      float* dst = job.dst + (static_cast<long>(c) * job.tile_count + t) * kLanes;
      if (y0 >= 0 && x0 >= 0 && y0 + A <= job.ih && x0 + A <= job.iw) {
        input_tile<M>(src + (static_cast<long>(y0) * job.iw + x0) * kLanes, row, dst, panel);
      } else {
        for (int i = 0; i < A; i++)
          for (int j = 0; j < A; j++) {
            const int y = y0 + i, x = x0 + j;
            float* p = patch + (i * A + j) * kLanes;
            if (y >= 0 && y < job.ih && x >= 0 && x < job.iw)
              std::memcpy(p, src + (static_cast<long>(y) * job.iw + x) * kLanes, sizeof(vec));
            else
              for (int l = 0; l < kLanes; l++) p[l] = job.pad_value;
          }
        input_tile<M>(patch, A * kLanes, dst, panel);
      }
      if (++tx == job.tiles_w) {
        tx = 0;
        ty++;
      }
    }
  }
}

// Activations that stay in vector registers; the exp-based ones run as a float loop.
inline bool vector_activation(const Activation& act, vec* y, int n) {
  switch (act.type) {
    case ActivationType::none: return true;
    case ActivationType::relu:
      for (int i = 0; i < n; i++) y[i] = y[i] > 0.f ? y[i] : 0.f;
      return true;
    case ActivationType::leaky_relu:
      for (int i = 0; i < n; i++) y[i] = y[i] > 0.f ? y[i] : y[i] * act.alpha;
      return true;
    case ActivationType::clip:
      for (int i = 0; i < n; i++) {
        y[i] = y[i] < act.alpha ? splat(act.alpha) : y[i];
        y[i] = y[i] > act.beta ? splat(act.beta) : y[i];
      }
      return true;
    case ActivationType::hardswish:
      for (int i = 0; i < n; i++) {
        vec g = y[i] * act.alpha + act.beta;
        g = g < 0.f ? 0.f : g;
        g = g > 1.f ? 1.f : g;
        y[i] *= g;
      }
      return true;
    default: return false;
  }
}

// Bias, activation and the store of one m x m tile of one chunk into the output layout.
template <int M>
void finish_tile(const WinogradOutputJob& job, int chunk, int oy0, int ox0, vec* y) {
  const int rows = std::min(M, job.oh - oy0), cols = std::min(M, job.ow - ox0);
  if (job.bias) {
    const vec b = load(job.bias + chunk * kLanes);
    for (int i = 0; i < M * M; i++) y[i] += b;
  }
  if (!vector_activation(job.act, y, M * M)) {
    float* f = reinterpret_cast<float*>(y);
    if (job.act.type == ActivationType::sigmoid) {
      for (int i = 0; i < M * M * kLanes; i++) f[i] = 1.f / (1.f + simd_math::exp_f(-f[i]));
    } else {  // mish
      for (int i = 0; i < M * M * kLanes; i++) {
        const float u = simd_math::exp_f(simd_math::min_f(f[i], 20.f));
        const float n = u * (u + 2.f);
        f[i] = f[i] * (n / (n + 2.f));
      }
    }
  }
  const int c0 = chunk * kLanes;
  const int valid = std::min(kLanes, job.oc - c0);
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) {
      const long pixel = static_cast<long>(oy0 + i) * job.ow + ox0 + j;
      if (job.out_pack == kLanes) {
        store(job.dst + (c0 / kLanes) * job.dst_plane_stride + pixel * kLanes, y[i * M + j]);
      } else {
        const float* lanes = reinterpret_cast<const float*>(&y[i * M + j]);
        for (int l = 0; l < valid; l += job.out_pack) {
          const int o = c0 + l;
          std::memcpy(job.dst + (o / job.out_pack) * job.dst_plane_stride + pixel * job.out_pack, lanes + l,
                      sizeof(float) * job.out_pack);
        }
      }
    }
}

template <int M>
void output_transform(const WinogradOutputJob& job) {
  constexpr int A = M + 2;
  const long panel = static_cast<long>(job.chunks) * job.tile_count * kLanes;
  for (int c = job.chunk_begin; c < job.chunk_end; c++) {
    int ty = static_cast<int>(job.tile_begin / job.tiles_w), tx = static_cast<int>(job.tile_begin % job.tiles_w);
    for (int t = 0; t < job.tile_count; t++) {
      const float* src = job.src + (static_cast<long>(c) * job.tile_count + t) * kLanes;
      vec tmp[M * A];
      for (int j = 0; j < A; j++) {  // columns: A positions -> M rows
        vec col[A];
        for (int i = 0; i < A; i++) col[i] = load(src + (i * A + j) * panel);
        output_1d<M>(col, 1, tmp + j, A);
      }
      vec y[M * M];
      for (int i = 0; i < M; i++) output_1d<M>(tmp + i * A, 1, y + i * M, 1);
      finish_tile<M>(job, c, ty * M, tx * M, y);
      if (++tx == job.tiles_w) {
        tx = 0;
        ty++;
      }
    }
  }
}

}  // namespace

int winograd_lanes() { return kLanes; }

void winograd_input_transform(const WinogradInputJob& job) {
  switch (job.m) {
    case 2: input_transform<2>(job); break;
    case 4: input_transform<4>(job); break;
    case 6: input_transform<6>(job); break;
  }
}

void winograd_output_transform(const WinogradOutputJob& job) {
  switch (job.m) {
    case 2: output_transform<2>(job); break;
    case 4: output_transform<4>(job); break;
    case 6: output_transform<6>(job); break;
  }
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
