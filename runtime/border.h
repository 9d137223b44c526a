// Padding and cropping of the spatial plane (w, h; d for 4-D) of every channel.
#pragma once
#include "runtime/mat.h"
#include "runtime/option.h"

namespace jitconv {

// dst = src surrounded by the given margins filled with `value` (every lane of a packed
// element gets it). Asymmetric margins allowed; negative margins are rejected.
// Works for 2-D (w, h), 3-D (per channel) and 4-D (per channel and depth slice) Mats.
// Margins count scalar rows and columns: a 2-D Mat packs its rows, and one whose top or
// bottom margin is not a whole number of packed rows comes back with elempack 1 (as in
// ncnn's Padding); packed 3-D / 4-D Mats pack channels and keep their elempack.
// `value` is stored in the lane type: fp32 for 4-byte lanes, for 2-byte lanes the 16-bit
// type requested_storage(opt) selects (bf16 only when fp16 is off or the CPU lacks F16C;
// otherwise fp16), and saturated int8 for 1-byte lanes.
void copy_make_border(const Mat& src, Mat& dst, int top, int bottom, int left, int right, float value,
                      const Option& opt);
void copy_make_border_3d(const Mat& src, Mat& dst, int top, int bottom, int left, int right, int front, int behind,
                         float value, const Option& opt);
// dst = src with the margins removed.
void copy_cut_border(const Mat& src, Mat& dst, int top, int bottom, int left, int right, const Option& opt);
void copy_cut_border_3d(const Mat& src, Mat& dst, int top, int bottom, int left, int right, int front, int behind,
                        const Option& opt);

}  // namespace jitconv
