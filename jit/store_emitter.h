// Stores vlen-lane output-channel accumulators into an elempack-packed output, for every
// kernel family. One accumulator holds vlen consecutive output channels of one pixel:
//
//   out_pack == vlen : one vector store per pixel           dst = [plane][pixel][vlen]
//   out_pack <  vlen : vlen / out_pack planes per chunk     dst = [plane][pixel][out_pack]
//                      (8 or 4 lanes as ymm/xmm stores, 1 lane with vextractps or,
//                      given scratch registers, four pixels per store after a transpose)
#pragma once
#include <vector>
#include <xbyak/xbyak.h>

#include "runtime/cpu.h"

namespace jitconv {

class PackedStoreEmitter {
 public:
  PackedStoreEmitter(Xbyak::CodeGenerator& gen, Isa isa, int out_pack);

  // Stores accumulators `accs` (pixel j in accs[j]) of one chunk. `plane` points at the
  // chunk's first output plane, pixel `first_pixel`; it is advanced past the chunk's
  // planes (by plane_stride per plane). Only `valid_lanes` lanes (a multiple of out_pack)
  // are written. `temps` are scratch vector registers (at least one). For out_pack 1 with
  // four or more, each four pixels are transposed in registers (two shuffle stages) and a
  // plane's four pixels go out in one 16-byte store, instead of a store and about one
  // shuffle per lane and pixel; the accumulators are then overwritten.
  void store_chunk(const std::vector<int>& accs, const Xbyak::Reg64& plane, const Xbyak::Reg64& plane_stride,
                   int valid_lanes, const std::vector<int>& temps, long first_pixel = 0);

 private:
  void store_chunk_lanes(const std::vector<int>& accs, const Xbyak::Reg64& plane, const Xbyak::Reg64& plane_stride,
                         int valid_lanes, int tmp, long first_pixel);
  void store_chunk_planes(const std::vector<int>& accs, const Xbyak::Reg64& plane, const Xbyak::Reg64& plane_stride,
                          int valid_lanes, const std::vector<int>& temps, long first_pixel);

  Xbyak::CodeGenerator& gen_;
  Isa isa_;
  int vlen_;
  int out_pack_;
};

}  // namespace jitconv
