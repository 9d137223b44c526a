// Small helpers shared by the test suites.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "runtime/cpu.h"
#include "runtime/mat.h"

namespace jitconv {
namespace test {

inline std::vector<float> random_vector(size_t n, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Fills every scalar of an fp32 Mat (any elempack), leaving channel padding alone.
inline void fill_random(Mat& m, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  const int channels = m.dims >= 3 ? m.c : 1;
  const size_t plane = (m.dims >= 3 ? static_cast<size_t>(m.w) * m.h * m.d : static_cast<size_t>(m.w) * m.h) * m.elempack;
  for (int q = 0; q < channels; q++) {
    float* p = static_cast<float*>(m.data) + m.cstep * q * m.elempack;
    for (size_t i = 0; i < plane; i++) p[i] = dist(rng);
  }
}

struct ErrorStats {
  double max_abs = 0;
  double max_ref = 0;  // largest |reference| value
  double max_rel() const { return max_ref > 0 ? max_abs / max_ref : max_abs; }
  size_t worst_index = 0;
  bool has_nan = false;  // a NaN where the reference has none (or the reverse)
};

inline ErrorStats compare(const float* got, const float* ref, size_t n) {
  ErrorStats s;
  for (size_t i = 0; i < n; i++) {
    if (std::isnan(got[i]) != std::isnan(ref[i])) s.has_nan = true;
    if (std::isnan(ref[i])) continue;
    s.max_ref = std::max(s.max_ref, static_cast<double>(std::fabs(ref[i])));
    const double e = std::fabs(static_cast<double>(got[i]) - ref[i]);
    if (e > s.max_abs || std::isnan(e)) {
      s.max_abs = std::isnan(e) ? INFINITY : e;
      s.worst_index = i;
    }
  }
  return s;
}

// The ISAs this machine can run, highest first (AVX2 code is exercised on AVX-512
// machines by capping the ISA).
inline std::vector<Isa> available_isas() {
  std::vector<Isa> isas;
  for (Isa isa : {Isa::avx512, Isa::avx2, Isa::scalar})
    if (isa_supported(isa)) isas.push_back(isa);
  return isas;
}

// The JIT ISAs this machine has (AVX-512 and AVX2 where present).
inline std::vector<Isa> jit_isas() {
  std::vector<Isa> isas;
  for (Isa isa : available_isas())
    if (isa != Isa::scalar) isas.push_back(isa);
  return isas;
}

// Caps the ISA for the lifetime of the guard.
class IsaGuard {
 public:
  explicit IsaGuard(Isa isa) { set_max_isa(isa); }
  ~IsaGuard() { reset_max_isa(); }
  IsaGuard(const IsaGuard&) = delete;
  IsaGuard& operator=(const IsaGuard&) = delete;
};

}  // namespace test
}  // namespace jitconv
