#include "runtime/winograd_weights.h"

#include "runtime/error.h"

namespace jitconv {

namespace {

// G = [p_j^k / f_j], f_j = prod_{l != j} (p_j - p_l), plus the row (0, 0, 1) for the point
// at infinity. Derived by Cook-Toom interpolation and checked exactly in rationals.
const double kG2[4][3] = {{-1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
const double kG4[6][3] = {{1.0 / 4, 0, 0},
                          {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                          {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                          {1.0 / 24, 1.0 / 12, 1.0 / 6},
                          {1.0 / 24, -1.0 / 12, 1.0 / 6},
                          {0, 0, 1}};
// F(5,3): the points 0, 1, -1, 2, -2, 1/2 (B^T in jit/winograd_gen.cpp). Of the 7-point sets
// tried in a float32 simulation (2-D tiles summed over 32 channels, error relative to the
// output norm), this one came out lowest: 1.98e-6 against 2.05-2.30e-6 for {0, +-1,
// +-1/2, 2}, {0, +-1, +-1/2, +-2} (no infinity) and {+-1, +-2, +-1/2}; F(4,3) 1.56e-6,
// F(6,3) 2.84e-6.
const double kG5[7][3] = {{-1.0 / 2, 0, 0},
                          {-1.0 / 3, -1.0 / 3, -1.0 / 3},
                          {1.0 / 9, -1.0 / 9, 1.0 / 9},
                          {1.0 / 36, 1.0 / 18, 1.0 / 9},
                          {-1.0 / 60, 1.0 / 30, -1.0 / 15},
                          {32.0 / 45, 16.0 / 45, 8.0 / 45},
                          {0, 0, 1}};
const double kG6[8][3] = {{-1, 0, 0},
                          {-2.0 / 9, -2.0 / 9, -2.0 / 9},
                          {-2.0 / 9, 2.0 / 9, -2.0 / 9},
                          {1.0 / 90, 1.0 / 45, 2.0 / 45},
                          {1.0 / 90, -1.0 / 45, 2.0 / 45},
                          {32.0 / 45, 16.0 / 45, 8.0 / 45},
                          {32.0 / 45, -16.0 / 45, 8.0 / 45},
                          {0, 0, 1}};

}  // namespace

void winograd_transform_filter(int m, const float* g, double* out) {
  const double* G;
  switch (m) {
    case 2: G = &kG2[0][0]; break;
    case 4: G = &kG4[0][0]; break;
    case 5: G = &kG5[0][0]; break;
    case 6: G = &kG6[0][0]; break;
    default: fail("Winograd F(", m, ",3) is not supported (2, 4, 5 or 6)");
  }
  const int alpha = m + 2;
  double tmp[8][3];  // G g
  for (int i = 0; i < alpha; i++)
    for (int k = 0; k < 3; k++) {
      double s = 0;
      for (int j = 0; j < 3; j++) s += G[i * 3 + j] * g[j * 3 + k];
      tmp[i][k] = s;
    }
  for (int i = 0; i < alpha; i++)
    for (int j = 0; j < alpha; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++) s += tmp[i][k] * G[j * 3 + k];
      out[i * alpha + j] = s;
    }
}

}  // namespace jitconv
