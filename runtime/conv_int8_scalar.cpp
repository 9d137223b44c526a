#include "runtime/conv_int8_scalar.h"

#include <cstring>

#include "runtime/conv_int8_quantize.h"

namespace jitconv {

namespace {

// The dot of one 32-bit group of B with one lane's group of A.
int32_t group_dot(Int8Dot dot, const uint8_t* b, const uint8_t* a) {
  int32_t sum = 0;
  if (dot == Int8Dot::vnni) {
    for (int e = 0; e < 4; e++) sum += static_cast<int32_t>(b[e]) * static_cast<int8_t>(a[e]);
  } else {
    int16_t bv[2], av[2];
    memcpy(bv, b, 4);
    memcpy(av, a, 4);
    for (int e = 0; e < 2; e++) sum += static_cast<int32_t>(bv[e]) * av[e];
  }
  return sum;
}

}  // namespace

void gemm_int8_scalar(const GemmInt8Conf& c, const GemmInt8Args& args) {
  const long pixels = args.n_blocks * c.nr + c.n_tail;
  const long group_bytes = static_cast<long>(c.ur_oc) * c.vlen * 4;
  const uint8_t* a = static_cast<const uint8_t*>(args.a);
  const uint8_t* b = static_cast<const uint8_t*>(args.b);
  for (long n = 0; n < pixels; n++)
    for (int oc = 0; oc < c.ur_oc; oc++) {
      const int lanes = oc == c.ur_oc - 1 ? c.last_chunk_lanes : c.vlen;
      for (int lane = 0; lane < lanes; lane++) {
        const int m = oc * c.vlen + lane;
        // Unsigned wrap-around, as the vector adds: exact whenever the true sum fits int32.
        uint32_t sum = static_cast<uint32_t>(args.acc_init[m]);
        for (long s = 0; s < args.segments; s++) {
          const uint8_t* bs = b + args.b_offsets[s] + n * c.b_pixel_stride;
          const uint8_t* as = a + s * args.k_groups * group_bytes + static_cast<long>(m) * 4;
          for (long kg = 0; kg < args.k_groups; kg++)
            sum += static_cast<uint32_t>(group_dot(c.dot, bs + kg * 4, as + kg * group_bytes));
        }
        float v = static_cast<float>(static_cast<int32_t>(sum)) * args.scale[m];
        if (c.bias) v = v + args.bias[m];
        v = c.act.apply(v);
        if (c.requantize) v = static_cast<float>(float_to_int8(v * args.requant[0])) * args.requant[1];
        const int plane = m / c.out_pack;
        float* out = reinterpret_cast<float*>(reinterpret_cast<char*>(args.c) + plane * args.c_plane_stride);
        out[n * c.out_pack + m % c.out_pack] = v;
      }
    }
}

}  // namespace jitconv
