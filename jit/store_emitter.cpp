#include "jit/store_emitter.h"

#include <algorithm>
#include <array>

#include "runtime/error.h"

namespace jitconv {

using namespace Xbyak;

PackedStoreEmitter::PackedStoreEmitter(CodeGenerator& gen, Isa isa, int out_pack)
    : gen_(gen), isa_(isa), vlen_(isa_lanes(isa)), out_pack_(out_pack) {
  if (out_pack != 1 && out_pack != 4 && out_pack != 8 && out_pack != 16) fail("bad output elempack ", out_pack);
  if (out_pack > vlen_) fail("output elempack ", out_pack, " is wider than the ", isa_name(isa), " vector");
}

void PackedStoreEmitter::store_chunk(const std::vector<int>& accs, const Reg64& plane, const Reg64& plane_stride,
                                     int valid_lanes, const std::vector<int>& temps, long first_pixel) {
  if (temps.empty()) fail("store_chunk: needs a scratch register");
  if (out_pack_ == 1 && temps.size() >= 4)
    store_chunk_planes(accs, plane, plane_stride, valid_lanes, temps, first_pixel);
  else
    store_chunk_lanes(accs, plane, plane_stride, valid_lanes, temps[0], first_pixel);
}

void PackedStoreEmitter::store_chunk_lanes(const std::vector<int>& accs, const Reg64& plane, const Reg64& plane_stride,
                                           int valid_lanes, int tmp, long first_pixel) {
  CodeGenerator& g = gen_;
  const bool zmm = isa_ == Isa::avx512;
  const long pixel_bytes = static_cast<long>(out_pack_) * 4;
  const long base = first_pixel * pixel_bytes;
  if (out_pack_ == vlen_) {
    for (size_t j = 0; j < accs.size(); j++) {
      const Xmm acc = zmm ? Xmm(Zmm(accs[j])) : Xmm(Ymm(accs[j]));
      g.vmovups(g.ptr[plane + base + static_cast<long>(j) * pixel_bytes], acc);
    }
    g.add(plane, plane_stride);
    return;
  }
  const int planes = valid_lanes / out_pack_;
  for (int s = 0; s < planes; s++) {
    const int lane0 = s * out_pack_;
    for (size_t j = 0; j < accs.size(); j++) {
      const Address dst = g.ptr[plane + base + static_cast<long>(j) * pixel_bytes];
      const int acc = accs[j];
      if (out_pack_ == 8) {  // only on AVX-512: halves of a zmm
        if (lane0 == 0) {
          g.vmovups(dst, Ymm(acc));
        } else {
          g.vextractf32x8(Ymm(tmp), Zmm(acc), 1);
          g.vmovups(dst, Ymm(tmp));
        }
      } else {
        // Bring the 128-bit quarter holding lane0 into an xmm.
        const int quarter = lane0 / 4;
        Xmm src = Xmm(acc);
        if (quarter != 0) {
          if (zmm)
            g.vextractf32x4(Xmm(tmp), Zmm(acc), quarter);
          else
            g.vextractf128(Xmm(tmp), Ymm(acc), quarter);
          src = Xmm(tmp);
        }
        if (out_pack_ == 4) {
          g.vmovups(dst, src);
        } else if (lane0 % 4 == 0) {
          g.vmovss(dst, src);
        } else {
          g.vextractps(dst, src, lane0 % 4);
        }
      }
    }
    g.add(plane, plane_stride);
  }
}

void PackedStoreEmitter::store_chunk_planes(const std::vector<int>& accs, const Reg64& plane, const Reg64& plane_stride,
                                            int valid_lanes, const std::vector<int>& temps, long first_pixel) {
  CodeGenerator& g = gen_;
  const bool zmm = isa_ == Isa::avx512;
  auto vec = [zmm](int r) { return zmm ? Xmm(Zmm(r)) : Xmm(Ymm(r)); };
  const int pixels = static_cast<int>(accs.size());
  const int groups = (pixels + 3) / 4;
  // Per 128-bit block b and group q, after the transpose lane 4b + k of pixels 4q..4q+3
  // sits in block b of planes_of[q][k]. Groups before the last write into their own
  // (then dead) accumulators; the last one into its first accumulator and three scratch
  // registers, so the fourth scratch stays free for the block extracts.
  std::vector<std::array<int, 4>> planes_of(groups);
  const int t0 = temps[0], t1 = temps[1], t2 = temps[2], t3 = temps[3];
  for (int q = 0; q < groups; q++) {
    const int real = std::min(4, pixels - 4 * q);
    int x[4];
    for (int i = 0; i < 4; i++) x[i] = accs[4 * q + std::min(i, real - 1)];  // repeats fill a short group
    // [a b c d] [e f g h] -> unpacklo [a e b f], unpackhi [c g d h] (per 128-bit block).
    g.vunpcklps(vec(t0), vec(x[0]), vec(x[1]));
    g.vunpckhps(vec(t1), vec(x[0]), vec(x[1]));
    g.vunpcklps(vec(t2), vec(x[2]), vec(x[3]));
    g.vunpckhps(vec(t3), vec(x[2]), vec(x[3]));
    const bool last = q == groups - 1;
    const std::array<int, 4> out =
        last ? std::array<int, 4>{x[0], t0, t2, t1} : std::array<int, 4>{x[0], x[1], x[2], x[3]};
    g.vshufps(vec(out[0]), vec(t0), vec(t2), 0x44);  // lane 0 of each block, pixels 0..3
    g.vshufps(vec(out[1]), vec(t0), vec(t2), 0xEE);  // lane 1
    g.vshufps(vec(out[2]), vec(t1), vec(t3), 0x44);  // lane 2 (t2 is spent: out[2] may be t2)
    g.vshufps(vec(out[3]), vec(t1), vec(t3), 0xEE);  // lane 3
    planes_of[q] = out;
  }
  const long base = first_pixel * 4;
  for (int lane = 0; lane < valid_lanes; lane++) {
    const int k = lane % 4, block = lane / 4;
    for (int q = 0; q < groups; q++) {
      Xmm src = Xmm(planes_of[q][k]);
      if (block != 0) {
        if (zmm)
          g.vextractf32x4(Xmm(t3), Zmm(planes_of[q][k]), block);
        else
          g.vextractf128(Xmm(t3), Ymm(planes_of[q][k]), block);
        src = Xmm(t3);
      }
      const long at = base + 16L * q;
      switch (std::min(4, pixels - 4 * q)) {
        case 4: g.vmovups(g.ptr[plane + at], src); break;
        case 3:
          g.vmovlps(g.ptr[plane + at], src);
          g.vextractps(g.ptr[plane + at + 8], src, 2);
          break;
        case 2: g.vmovlps(g.ptr[plane + at], src); break;
        default: g.vmovss(g.ptr[plane + at], src);
      }
    }
    g.add(plane, plane_stride);
  }
}

}  // namespace jitconv
