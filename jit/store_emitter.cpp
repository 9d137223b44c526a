#include "jit/store_emitter.h"

#include "runtime/error.h"

namespace jitconv {

using namespace Xbyak;

PackedStoreEmitter::PackedStoreEmitter(CodeGenerator& gen, Isa isa, int out_pack)
    : gen_(gen), isa_(isa), vlen_(isa_lanes(isa)), out_pack_(out_pack) {
  if (out_pack != 1 && out_pack != 4 && out_pack != 8 && out_pack != 16) fail("bad output elempack ", out_pack);
  if (out_pack > vlen_) fail("output elempack ", out_pack, " is wider than the ", isa_name(isa), " vector");
}

void PackedStoreEmitter::store_chunk(const std::vector<int>& accs, const Reg64& plane, const Reg64& plane_stride,
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

}  // namespace jitconv
