// Generated Winograd transforms (F(2,3), F(4,3), F(6,3)) for one channel pack (a vector
// of vlen channels) over a run of tiles. The input kernel turns alpha x alpha input
// windows into the GEMM's B panels; the output kernel turns the GEMM's per-position
// results back into m x m output tiles with bias, a fused residual and the activation.
//
//   input:  src  window rows at src_row_stride, pixels every pixel_step vectors, tiles every
//                src_tile_step bytes (an edge kernel reads only the window's inside:
//                WinogradEdge below)
//           dst  position p of tile k at dst + p * dst_panel_stride + k * dst_tile_step
//   output: src  position p of tile k at src + p * src_panel_stride + k * src_tile_step
//           dst  m x m pixels of vlen lanes, rows at dst_row_stride, pixels every pixel_step
//                vectors, tiles every dst_tile_step
#pragma once
#include <cstddef>
#include <string>

#include "runtime/activation.h"
#include "runtime/cpu.h"

namespace jitconv {

// Edge tiles. Input: how many rows (top, bottom) and columns (left, right) of every
// alpha x alpha window lie in the padding; the kernel reads none of them, they are
// args.pad_value. Output: how many of the m x m tile's last rows (bottom) and columns
// (right) lie past the tensor; the kernel stores (and reads the residual of) none of them.
// Edge tiles go straight from / to the tensor, with no copied patch or scratch tile.
struct WinogradEdge {
  int top = 0, bottom = 0, left = 0, right = 0;
  bool any() const { return top || bottom || left || right; }
  bool outside(int row, int col, int extent) const {
    return row < top || row >= extent - bottom || col < left || col >= extent - right;
  }
};

// Dilations the Winograd path takes (each of dh x dw sub-images gets its own tile plan; real
// layers stay far below: DeepLab's widest rate is 36).
constexpr int kWinogradMaxDilation = 64;

// Per-core L2 from which the Winograd rules measured on Zen 4 (1 MiB) apply: the blocked
// plan's smaller blocks (ConvWinograd::plan) and F(5,3) in the cold path table.
constexpr size_t kWinogradLargeL2Bytes = size_t(1) << 20;

struct WinogradTransformConf {
  Isa isa = Isa::avx512;
  int vlen = 16;
  int m = 4;           // output tile: 2, 4, 5 or 6
  bool input = true;   // input transform (else output)
  bool bias = false;   // output only
  bool residual = false;  // output only: add the residual at dst + residual_offset before the activation
  Activation act;      // output only
  bool stack_pass = false;  // force the two-pass form through a stack buffer (tests compare the forms)
  WinogradEdge edge;
  // Vectors from one pixel of a window row (tile row) to the next in the tensor: the
  // dilation's column step on a dilated layer (one sub-image of every dilation-th pixel,
  // read and written in place), else 1; at most kWinogradMaxDilation.
  int pixel_step = 1;

  // Whether a group of columns of a tile stays in registers between the two passes (the
  // register form, winograd_reg_gen.cpp) instead of going through a stack buffer: every
  // variant both ways on AVX-512; on AVX2 where the 16 vectors hold a group (F(2,3) and
  // F(4,3) both ways; the output only while the activation's scratch registers fit).
  bool in_registers() const;
  std::string name() const;
};

struct WinogradTransformArgs {
  const float* src;
  float* dst;
  const float* bias;  // vlen values (output transform with bias)
  long count;         // tiles
  long src_stride;    // input: row stride; output: panel stride (bytes)
  long dst_stride;    // input: panel stride; output: row stride (bytes)
  long src_tile_step;
  long dst_tile_step;
  long residual_offset;  // output with residual: bytes from a dst pixel to its residual
  float pad_value;       // input with an edge: the value of the window's pixels in the padding
};

using WinogradTransformFn = void (*)(const WinogradTransformArgs*);

}  // namespace jitconv
