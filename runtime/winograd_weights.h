// Winograd F(m, 3) filter transform U = G g G^T, in double precision from the exact
// rational G of the points {0, +-1, +-2, +-1/2} and infinity (B^T and A^T, the matching
// input/output transforms, are in winograd_simd.inl).
#pragma once
#include <vector>

namespace jitconv {

// alpha x alpha transformed filter of one 3x3 kernel (row-major), for m in {2, 4, 6}.
void winograd_transform_filter(int m, const float* kernel3x3, double* out);

}  // namespace jitconv
