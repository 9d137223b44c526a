#include "runtime/convert_layout.h"

#include "runtime/error.h"
#include "runtime/packing.h"

namespace jitconv {

const char* storage_name(Storage storage) {
  switch (storage) {
    case Storage::fp16: return "fp16";
    case Storage::bf16: return "bf16";
    default: return "fp32";
  }
}

Storage requested_storage(const Option& opt) {
  // bf16 first: ncnn's x86 build reads every 16-bit blob as bf16 once use_bf16_storage is on
  // (its fp16 blob branch exists only on ARM82 / RISC-V), and fp16 storage is on by default,
  // so a custom layer's bf16 blob was decoded as fp16 (1, 2.5, -3, 100 read back as 1.875,
  // 2.06, -2.13, 3.39).
  if (opt.use_bf16_storage) return Storage::bf16;
  if (opt.use_fp16_storage && cpu_info().f16c) return Storage::fp16;
  return Storage::fp32;
}

Storage layer_storage(const Layer& layer, const Option& opt) {
  const Storage wanted = requested_storage(opt);
  if (wanted == Storage::fp16 && layer.support_fp16_storage) return wanted;
  if (wanted == Storage::bf16 && layer.support_bf16_storage) return wanted;
  return Storage::fp32;
}

int outer_scalars(const Mat& m) {
  switch (m.dims) {
    case 1: return m.w * m.elempack;
    case 2: return m.h * m.elempack;
    default: return m.c * m.elempack;
  }
}

int layer_elempack(const Layer& layer, const Mat& blob, const Option& opt, Isa isa) {
  if (!opt.use_packing_layout || !layer.support_packing || blob.dims == 0) return 1;
  return preferred_elempack(isa, outer_scalars(blob));
}

namespace {

// A 16-bit blob holds whatever 16-bit type the options select: one Net never mixes them.
void widen(const Mat& src, Mat& dst, const Option& opt) {
  switch (requested_storage(opt)) {
    case Storage::fp16: cast_float16_to_float32(src, dst, opt); return;
    case Storage::bf16: cast_bfloat16_to_float32(src, dst, opt); return;
    default: fail("a 16-bit blob reached fp32 conversion while neither fp16 nor bf16 storage is enabled");
  }
}

}  // namespace

void convert_layout(const Mat& src, Mat& dst, int elempack, Storage storage, const Option& opt) {
  if (src.dims == 0) {
    dst = src;
    return;
  }
  const int bits = src.elembits();
  Mat m = src;
  // Narrow before repacking and widen after it: the repack then moves the smaller lanes.
  if (bits == 32 && storage == Storage::fp16) cast_float32_to_float16(m, m, opt);
  if (bits == 32 && storage == Storage::bf16) cast_float32_to_bfloat16(m, m, opt);
  convert_packing(m, m, elempack, opt);
  if (bits == 16 && storage == Storage::fp32) widen(m, m, opt);
  dst = std::move(m);
}

void convert_to_plain(const Mat& src, Mat& dst, const Option& opt) {
  if (src.dims != 0 && src.elembits() != 32 && src.elembits() != 16)
    fail("cannot return a ", src.elembits(), "-bit blob as fp32");
  convert_layout(src, dst, 1, Storage::fp32, opt);
}

}  // namespace jitconv
