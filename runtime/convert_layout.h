// convert_layout: what the Net does to a blob before handing it to a layer, so the layer
// sees the elempack and storage type it declared it can take (ncnn's convert_layout).
//
//   packing  a layer with support_packing gets the elempack runtime/cpu.h prefers for the
//            blob's outer axis (c for 3-D/4-D, h for 2-D, w for 1-D) under the Net's
//            ISA: 16 (AVX-512), 8 (AVX2) or 4 when that divides the axis, else 1; any
//            other layer, or opt.use_packing_layout off, gets elempack 1.
//   storage  to the Storage asked for: fp32 to fp16/bf16 or back. The Net asks for the
//            16-bit type only when a layer takes it and all of its inputs already are
//            16-bit (runtime/extractor.cpp), so it never casts an fp32 blob down. Int8
//            blobs are left as they are.
#pragma once
#include "runtime/cpu.h"
#include "runtime/layer.h"
#include "runtime/mat.h"
#include "runtime/option.h"

namespace jitconv {

enum class Storage { fp32, fp16, bf16 };

const char* storage_name(Storage storage);

// The 16-bit storage the options ask for and the CPU can convert (fp16 needs F16C; bf16
// wins when both are asked for, as in ncnn's x86 build), or fp32.
Storage requested_storage(const Option& opt);
// The storage a layer may take: requested_storage() when the layer declares support for
// it, else fp32.
Storage layer_storage(const Layer& layer, const Option& opt);

// Scalars along the packed (outer) axis: c*elempack, h*elempack or w*elempack.
int outer_scalars(const Mat& m);
// The elempack `layer` gets for `blob` (see above).
int layer_elempack(const Layer& layer, const Mat& blob, const Option& opt, Isa isa);

// Converts src into elempack / storage; dst may be src (then it is replaced) and shares
// src's data when nothing changes. Uses opt.blob_allocator and opt.num_threads.
void convert_layout(const Mat& src, Mat& dst, int elempack, Storage storage, const Option& opt);

// Back to what a user gets: fp32, elempack 1.
void convert_to_plain(const Mat& src, Mat& dst, const Option& opt);

}  // namespace jitconv
