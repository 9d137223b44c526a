#include "runtime/conv_winograd.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "jit/winograd_gen.h"
#include "runtime/cpu.h"
#include "runtime/error.h"
#include "runtime/packing.h"
#include "runtime/task_ranges.h"
#include "runtime/winograd_weights.h"

namespace jitconv {

ConvWinograd::ConvWinograd(const ConvParams& params, const float* weights, const float* bias, Isa isa, int in_pack,
                           int out_pack, int m, int border_m)
    : ConvWinograd(params, weights, bias, isa, in_pack, out_pack, m, border_m > 0 ? Region::interior : Region::whole, m,
                   border_m) {
  if (border_m <= 0) return;
  if (params.dh != 1 || params.dw != 1)
    fail("Winograd F(", m, ",3) with F(", border_m, ",3) borders needs an undilated layer, got ", params.to_string());
  if (border_m == m || border_m >= 6) fail("Winograd: F(", border_m, ",3) borders need a smaller tile than F(", m, ",3)");
  border_.reset(new ConvWinograd(params, weights, bias, isa, in_pack, out_pack, border_m, Region::border, m, border_m));
}

ConvWinograd::~ConvWinograd() = default;

ConvWinograd::ConvWinograd(const ConvParams& params, const float* weights, const float* bias, Isa isa, int in_pack,
                           int out_pack, int m, Region region, int split_m, int split_border_m)
    : params_(params),
      region_(region),
      split_m_(split_m),
      split_border_m_(split_border_m),
      isa_(isa),
      vlen_(isa_lanes(isa)),
      in_pack_(in_pack),
      out_pack_(out_pack),
      m_(m),
      alpha_(m + 2),
      dh_(params.dh),
      dw_(params.dw) {
  if (isa == Isa::scalar) fail("Winograd convolution needs AVX2 or AVX-512");
  if (params.kh != 3 || params.kw != 3 || params.sh != 1 || params.sw != 1)
    fail("Winograd F(", m, ",3) needs a 3x3 stride-1 kernel, got ", params.to_string());
  if (params.dh < 1 || params.dw < 1 || params.dh > kWinogradMaxDilation || params.dw > kWinogradMaxDilation)
    fail("Winograd F(", m, ",3) takes dilations 1..", kWinogradMaxDilation, ", got ", params.to_string());
  if (m != 2 && m != 4 && m != 5 && m != 6) fail("Winograd F(", m, ",3) is not supported (2, 4, 5 or 6)");
  if (params.oc % out_pack != 0 || out_pack > vlen_) fail("Winograd: bad output elempack ", out_pack);
  ic_packs_ = (params.ic + vlen_ - 1) / vlen_;
  chunks_ = (params.oc + vlen_ - 1) / vlen_;

  // The activation runs in the output transform, so the GEMM kernels carry none.
  const GemmBlocking blocking = choose_gemm_blocking_for_k(isa, chunks_, static_cast<long>(ic_packs_) * vlen_,
                                                           static_cast<long>(cpu_info().l1d_bytes), Activation());
  GemmConf base;
  base.isa = isa;
  base.vlen = vlen_;
  base.ur_oc = blocking.ur_oc;
  base.nr = blocking.nr;
  base.k_pack = vlen_;
  base.b_pixel_stride = vlen_ * 4L;
  base.out_pack = vlen_;
  base.explicit_bcast = blocking.explicit_bcast;
  kernels_ = std::make_unique<GemmKernelCache>(base, chunks_ * vlen_);
  nr_max_ = base.nr;

  const int positions = alpha_ * alpha_;
  const int groups = kernels_->groups();
  const long k = static_cast<long>(ic_packs_) * vlen_;
  group_floats_ = k * kernels_->group_size() * vlen_;
  // dst = position - group - [k][chunk in group][vlen]
  weights_.create(static_cast<int>(group_floats_ * groups * positions));
  weights_.fill(0.f);
  std::vector<double> u(positions);
  for (int o = 0; o < params.oc; o++) {
    const int chunk = o / vlen_, lane = o % vlen_;
    const int g = chunk / kernels_->group_size(), c = chunk % kernels_->group_size();
    const int here = kernels_->chunks_in(g);
    for (int i = 0; i < params.ic; i++) {
      winograd_transform_filter(m, weights + (static_cast<long>(o) * params.ic + i) * 9, u.data());
      for (int p = 0; p < positions; p++) {
        float* dst = static_cast<float*>(weights_.data) + (static_cast<long>(p) * groups + g) * group_floats_;
        dst[(static_cast<long>(i) * here + c) * vlen_ + lane] = static_cast<float>(u[p]);
      }
    }
  }
  if (params.bias) {
    bias_.create(chunks_ * vlen_);
    bias_.fill(0.f);
    memcpy(bias_.data, bias, params.oc * sizeof(float));
  }
  WinogradTransformConf in_conf;
  in_conf.isa = isa;
  in_conf.vlen = vlen_;
  in_conf.m = m;
  in_conf.input = true;
  in_conf.pixel_step = dw_;
  WinogradTransformConf out_conf = in_conf;
  out_conf.input = false;
  out_conf.pixel_step = out_pack == vlen_ ? dw_ : 1;  // a narrower elempack goes through a scratch tile
  out_conf.bias = params.bias;
  out_conf.residual = params.residual;
  out_conf.act = params.act;
  input_conf_ = in_conf;
  output_conf_ = out_conf;
  for (const WinogradTransformConf& conf : {in_conf, out_conf}) {
    JitKernelPtr k = KernelRegistry::instance().get(
        conf.name(), [conf] { return std::make_unique<WinogradTransformGenerator>(conf); });
    (conf.input ? input_kernel_ : output_kernel_) = k;
  }
}

std::string ConvWinograd::name() const {
  const std::string own = "winograd" + std::to_string(m_) + "3";
  return border_ ? own + "_" + std::to_string(border_->m_) + "3" : own;
}

size_t ConvWinograd::weight_bytes() const {
  return weights_.bytes() + bias_.bytes() + (border_ ? border_->weight_bytes() : 0);
}

namespace {
// Transform positions x tiles of F(m, 3) on [0, rows) x [0, columns) and F(border_m, 3) on
// the rows below it (all columns) and the columns right of it (its rows).
long split_positions(int oh, int ow, int m, int border_m, int rows, int columns) {
  auto tiles = [](int extent, int step) { return static_cast<long>((extent + step - 1) / step); };
  const long a = (m + 2) * (m + 2), b = (border_m + 2) * (border_m + 2);
  if (rows == 0 || columns == 0) return b * tiles(oh, border_m) * tiles(ow, border_m);
  return a * (rows / m) * (columns / m) + b * (tiles(oh - rows, border_m) * tiles(ow, border_m) +
                                               tiles(rows, border_m) * tiles(ow - columns, border_m));
}
}  // namespace

void ConvWinograd::border_split(int oh, int ow, int m, int border_m, int& rows, int& columns) {
  rows = columns = 0;
  long best = split_positions(oh, ow, m, border_m, 0, 0);
  for (int r = m; r <= oh; r += m)
    for (int c = m; c <= ow; c += m) {
      const long cost = split_positions(oh, ow, m, border_m, r, c);
      if (cost < best || (cost == best && r * c > rows * columns)) {
        best = cost;
        rows = r;
        columns = c;
      }
    }
}

long ConvWinograd::border_split_positions(int oh, int ow, int m, int border_m) {
  int rows, columns;
  border_split(oh, ow, m, border_m, rows, columns);
  return split_positions(oh, ow, m, border_m, rows, columns);
}

bool ConvWinograd::u_streams() const { return outgrows_half_l2(static_cast<double>(weights_.bytes())); }

// A U within half of L2 stays there while the layer runs alone, but anything run between
// two forwards (the other layers of a network; the oneDNN runs `jitconv bench` interleaves)
// sends it back to L3, and the first block's GEMM then waits on it. On a full-width AVX-512
// core, which multiplies a panel twice as fast as a half-width one, fetching the next panel
// pays even then: Intel Xeon (2 MiB L2), F(4,3) 64@56 (U 590 KB), x oneDNN, four interleaved
// rounds with and without, one thread 2.93-2.96 -> 3.00-3.07, two threads (three rounds)
// 2.79-2.98 -> 2.98-3.06; back to back (U hot, `jitconv_bench jitconv/resnet:3x3_64`) 0.372-
// 0.376 against 0.375-0.386 ms.
int ConvWinograd::u_prefetch_lines(int tile_count, int nr) const {
  if (!u_streams() && !full_width_zmm(isa_)) return 0;
  const long panel_lines = (group_floats_ * 4 + 63) / 64;
  const long steps = static_cast<long>((tile_count + nr - 1) / nr) * ic_packs_;  // k groups of a call
  return static_cast<int>((panel_lines + steps - 1) / steps);
}

// Floats per transform position of the V / M buffers for `count` tiles. One extra vector
// skews consecutive positions off 4 KB multiples: the transforms write/read all positions
// of a tile at once, and with unskewed strides those 36-64 lines fall into a few L1 sets
// (measured: the F(6,3) input transform went from 1394 to 470 cycles per tile).
long ConvWinograd::v_panel(int count) const { return static_cast<long>(ic_packs_) * count * vlen_ + vlen_; }
long ConvWinograd::m_panel(int count) const { return static_cast<long>(chunks_) * count * vlen_ + vlen_; }
long ConvWinograd::slot_panel(int count) const { return std::max(v_panel(count), m_panel(count)); }

ConvWinograd::BlockBuffers ConvWinograd::overlapped_buffers(float* base, int count) const {
  const long slot = slot_panel(count);
  return BlockBuffers{base + slot, slot, base, slot};
}

ConvWinograd::BlockBuffers ConvWinograd::side_by_side_buffers(float* v, float* m, int count) const {
  return BlockBuffers{v, v_panel(count), m, m_panel(count)};
}

ConvWinograd::Plan ConvWinograd::plan(long tiles, int threads) const {
  const double l2 = static_cast<double>(cpu_info().l2_bytes);
  const double positions = static_cast<double>(alpha_) * alpha_;
  const double u_bytes = static_cast<double>(weights_.bytes());
  const double v_tile = positions * ic_packs_ * vlen_ * 4, m_tile = positions * chunks_ * vlen_ * 4;
  const double block_tile = std::max(v_tile, m_tile);  // V and M of one tile, overlapped (blocked plan)
  const double phased_tile = v_tile + m_tile;         // side by side (phased plan)
  const bool u_streams = this->u_streams();
  // Bytes a thread moves beyond L2 (L3 streams at about half of L2's rate here). Every
  // block multiplies by all of U: once U outgrows half of L2, each block re-streams it.
  // V and M past 3/4 of L2 are written out and read back.
  auto spill = [&](double vm) { return vm > 0.75 * l2 ? 2 * vm : 0.0; };
  // Blocked: each thread takes an equal share of the tiles, in equal blocks. With U in L2,
  // blocks whose V and M fill about a sixth of L2 (one thread, x oneDNN, F(4,3) 64@56,
  // blocks of 6 / 12 / 18 / 25 / 36 / 50 / 100 tiles: 2.55 / 2.52 / 2.63 / 2.56 / 2.37 /
  // 2.47 / 2.38; 96@35 best at 18-36); with U streaming, as few blocks as keep V and M in
  // L2 (128@28: 6 / 12 / 18 / 25+ tiles 1.48 / 2.23 / 2.85 / 2.79-2.86), but not below
  // kStreamingBlockTiles: each block reads U at 4 / block bytes per FMA, and smaller blocks
  // outrun what L3 delivers beside the GEMM. With Zen 3's 512 KB L2 the fitting blocks
  // were 6-10 tiles (one thread, x oneDNN, blocks of 4 / 8 / 16 tiles: 256@14 1.56 / 2.29
  // / 2.49, 512@7 F(2,3) 1.15 / 1.59 / 1.70; 128@28 in 5 blocks of ~10 / 4 of ~12 / 2 of
  // ~25: 2.82 / 2.92 / 2.76); a 2 MB L2 never needed blocks that small. Overlapping M with
  // V (overlapped_buffers) halved a tile's bytes and so the blocks at 64@56 (blocks of 40
  // tiles instead of 20) and 128@28 (17 instead of 13); with the same rule on the
  // overlapped bytes, 2 / 3 / 4 / 7 blocks of 64@56 and 2 / 4 / 7 of 128@28 measured no
  // better (README, Zen 3).
  // A core whose ymm FMAs run on 128-bit halves (Zen 1: CpuInfo::ymm_half_rate) multiplies
  // slowly enough that L3 refills a U within half of it beside the GEMM: there each block's
  // pass over U costs nothing, and blocks keep V and M out of the other core's way. Zen 1
  // (512 KB L2, 8 MB L3), two threads, x oneDNN, `jitconv bench` with the plan forced,
  // three rounds each: 96@35 F(6,3) (U 2.36 MB) phased 2.57-3.32, blocks of 6 / 9 / 18
  // tiles 3.66-3.72 / 3.69-3.76 / 2.43-3.54, by channels 2.52-2.79 (one thread 3.6);
  // 128@28 F(4,3) (2.36 MB) phased 2.34-3.29 / blocks of 9 / 13 / 25 2.58-3.34 / 2.78-3.21 /
  // 2.65-3.42 (the host drifting between rounds: round by round blocked won 2 of 3 by
  // 5-15%). Past half of L3 (256@14 F(5,3) 12.8 MB, 512@7 F(2,3) 16.8 MB) phased stays
  // ahead or even: 2.02-2.67 / 1.78-2.29 in blocks of 5, 1.59-1.74 / 0.96-1.72 in blocks of 8 / 4.
  // The kStreamingBlockTiles floor does not apply there either (96@35's 18 tiles a thread run
  // as 2 blocks of 9); one thread keeps its blocks (96@35 12 / 9 / 6 / 4 tiles 3.24-3.51 /
  // 3.30-3.58 / 3.16-3.48 / 3.02-3.09, 128@28 17 / 10 / 7 3.21-3.57 / 3.14-3.19 / 2.91-3.09,
  // 64@56 40 / 20 / 9 3.07-3.21 / 3.14-3.19 / 2.92-3.15).
  const bool u_refills_free = half_rate_ymm(isa_) && u_bytes <= 0.5 * static_cast<double>(cpu_info().l3_bytes);
  const bool u_restreams = u_streams && !u_refills_free;  // each block pays for its pass over U
  const long share = (tiles + threads - 1) / threads;
  const double vm_share = block_tile * share;
  long blocks = static_cast<long>(std::ceil(vm_share / (u_streams ? 0.75 * l2 : l2 / 6)));
  if (u_restreams) blocks = std::min(blocks, share / kStreamingBlockTiles);  // 0 for small shares: clamped below
  blocks = std::max(1L, std::min(blocks, (share + nr_max_ - 1) / nr_max_));
  const long block = (share + blocks - 1) / blocks;
  const double blocked_bytes = (u_restreams ? u_bytes : 0.0) * blocks + spill(block_tile * block) * blocks;
  // The blocks a blocked plan runs. With 1 MiB of L2 or more (Zen 4), blocks whose V and M
  // fill a sixth of L2 beat the fewest blocks even while U streams (its L3 refills it beside
  // the GEMM), down to kLargeL2BlockTiles tiles while U is within 4 L2 (64@56 U 590 KB,
  // 128@28 and 96@35 2.36 MB). Zen 4, x oneDNN, each run after oneDNN as `jitconv bench`
  // times it, the block sizes alternating in one process (300 runs, medians; the first
  // figure is the rule above's block), one thread: 64@56 66 / 40 / 33 / 28 / 20 tiles 2.93
  // / 3.14 / 3.18 / 3.14 / 3.20, in a slower minute 66 / 18 2.71 / 2.89; 128@28 25 / 17 /
  // 13 / 10 3.22 / 3.38 / 3.36 / 3.31, then 25 / 13 / 10 / 8 2.99 / 3.18 / 3.17 / 3.21;
  // 96@35 18 / 12 / 9 / 6 3.23 / 3.48 / 3.57 / 3.56; two threads: 64@56 49 / 28 / 20 2.79
  // / 2.99 / 3.02, 49 / 17 2.66 / 2.92; 128@28 25 / 13 / 9 / 7 2.48 / 2.71 / 2.99 / 3.04;
  // 96@35 18 / 9 / 6 3.10 / 3.26 / 3.63. A larger U keeps
  // kStreamingBlockTiles: 512@7 F(2,3) (16.8 MB) in blocks of 8 instead of one of 16, 1.64
  // against 1.72. Smaller L2s (Zen 3) keep the rule above (blocks of 4-9 tiles on two threads
  // lost there: README). The plan's choice between blocked and phased stays with the bytes
  // model above.
  // A full-width AVX-512 core (Zen 5, 64 FLOP/cycle) multiplies a block twice as fast, so U
  // streams at twice the rate for the same block: there the fewest tiles are
  // kFullRateBlockTiles (24 tiles: U at 4 / 24 bytes an FMA, about 20 GB/s at the peak). Zen 5
  // (1 MiB L2), F(4,3), x oneDNN, block sizes alternating in one process (300 runs each,
  // after oneDNN), one thread: 128@28 9 (Zen 4's rule) / 12 / 17 / 20 / 25 / 33 / 40 / 49
  // tiles 2.51 / 2.72 / 2.89 / 2.93 / 2.99 / 2.99 / 2.99 / 2.83; 64@56 18 / 12 / 17 / 20 /
  // 25 / 33 / 49 / 66 3.01 / 2.92 / 3.00 / 3.03 / 3.02 / 2.95 / 2.97 / 2.77; 96@35 12 / 16 /
  // 24 / 32 / 49 / 81 2.83-2.92 / 2.87 / 2.87 / 2.91 / 2.82 / 2.65; two threads: 128@28 9 /
  // 12 / 17 / 25 2.34 / 2.45 / 2.61 / 2.70; 96@35 11 / 17 / 25 / 33 / 41 2.54 / 2.60 /
  // 2.68 / 2.70 / 2.53; 64@56 17 / 25 / 49 3.01-3.06 / 2.98 / 2.87. The floor was 24 tiles
  // until F(6,3)'s 36 tiles at 96@35 (V and M 885 KB, one block) measured on an Intel Xeon
  // (2 MiB L2, one thread, x oneDNN, three rounds, `jitconv bench` with the block forced):
  // one block of 36 tiles 2.82-2.87, two of 18 3.00-3.11 (and 3.06-3.09 in a second set),
  // three of 12 2.63-2.68; F(4,3) 128@28 in one / two / three / five blocks 2.92-2.95 /
  // 3.02-3.10 / 2.92-2.96 / 2.34-2.42 (two either way), 96@35 (81 tiles) blocks of 18 to 41
  // within 2.84-2.96; 16 tiles stay one block (two of 8: 256@14 F(4,3) 2.13-2.17 -> 1.42-1.48,
  // 128@24 F(6,3) 2.73-2.90 -> 1.99-2.10).
  long run_blocks = blocks;
  if (l2 >= static_cast<double>(kWinogradLargeL2Bytes) && u_streams) {
    const long min_tiles = full_width_zmm(isa_) ? kFullRateBlockTiles
                           : u_bytes <= 4 * l2 ? kLargeL2BlockTiles : kStreamingBlockTiles;
    const long sixth = static_cast<long>(std::ceil(vm_share / (l2 / 6)));
    run_blocks = std::max(blocks, std::min(sixth, share / min_tiles));
  }
  const long run_block = (share + run_blocks - 1) / run_blocks;
  // Phased: one block of all tiles, each step split across threads (a thread streams its
  // share of U once; barriers between the steps). Pays when U dominates: 256@14 F(4,3),
  // 512@7 F(2,3) on two threads.
  const double phased_bytes = ((u_streams ? u_bytes : 0.0) + spill(phased_tile * tiles)) / threads;
  if (threads == 1 || tiles < threads || phased_bytes >= blocked_bytes)
    return Plan{Split::blocked, static_cast<int>(run_block)};
  // The phased plan's V (written by channel packs) and M (by positions) cross cores, with a
  // barrier after each step: it slows down when this VM's two vCPUs sit far apart.
  // Splitting by output-channel groups instead, every thread transforms the whole input
  // itself (threads - 1 extra input transforms) and nothing crosses: worth it where the
  // input transform is cheap next to the GEMM. Its time is about 26 / oc of the GEMM's at
  // the peak for F(2,3) and F(4,3), more for F(6,3)'s 8x8 tiles (one thread: 512@7 F(2,3)
  // 0.039 against 0.77 ms, 256@14 F(4,3) 0.045 against 0.43 ms, 96@35 F(6,3) 0.09 against
  // 0.24 ms). Two threads, x oneDNN, interleaved rounds, 512@7: 1.25-1.28 phased -> 1.50 by
  // channels over 16 rounds in a slow-crossing spell, 1.490 -> 1.486 over 80 rounds with
  // the vCPUs close (24-104 ns a crossing); 256@14 2.06 -> 2.08 in the slow spell (its
  // extra input transform, 10% of a thread's GEMM, eats the gain: it stays phased).
  const double input_cost = (m_ == 6 ? 36.0 : 26.0) / (chunks_ * vlen_);
  const double own_vm = (v_tile + m_tile / threads) * tiles;  // a thread's whole V, its share of M
  if (threads <= kernels_->groups() && (threads - 1) * input_cost <= 0.06 && own_vm <= 0.75 * l2)
    return Plan{Split::by_channels, static_cast<int>(tiles)};
  return Plan{Split::phased, static_cast<int>(tiles)};
}

int ConvWinograd::register_block(int tile_count) const {
  // Equal register blocks: a short trailing one pays a full pass over K for a few tiles
  // and, with few accumulators, waits on the FMA latency (F(4,3) 256@14, 16 tiles of
  // 14 + 2 instead of 8 + 8: 2.20 -> 1.95x oneDNN).
  const int blocks = (tile_count + nr_max_ - 1) / nr_max_;
  return std::max(1, (tile_count + blocks - 1) / blocks);
}

std::vector<ConvWinograd::TileBlock> ConvWinograd::team_blocks(long tiles, int teams, int team, int max_block) {
  const long begin = tiles * team / teams, end = tiles * (team + 1) / teams;
  const long blocks = (end - begin + max_block - 1) / max_block;
  std::vector<TileBlock> list;
  for (long b = 0; b < blocks; b++) {
    const long first = begin + (end - begin) * b / blocks;
    list.push_back(TileBlock{first, static_cast<int>(begin + (end - begin) * (b + 1) / blocks - first)});
  }
  return list;
}

std::vector<int> ConvWinograd::block_sizes(long tiles, int threads, const Plan& plan) {
  if (plan.split != Split::blocked) return {static_cast<int>(tiles)};
  std::vector<int> sizes;
  const int teams = static_cast<int>(std::min<long>(threads, tiles));
  for (int t = 0; t < teams; t++)
    for (const TileBlock& b : team_blocks(tiles, teams, t, plan.block))
      if (std::find(sizes.begin(), sizes.end(), b.count) == sizes.end()) sizes.push_back(b.count);
  return sizes;
}

ConvWinograd::BlockKernels ConvWinograd::block_kernels(int tile_count) const {
  BlockKernels k;
  k.tile_count = tile_count;
  k.nr = register_block(tile_count);
  k.x_lines = x_prefetch_lines(k.nr);
  const int pf_lines = u_prefetch_lines(tile_count, k.nr);
  for (int g = 0; g < kernels_->groups(); g++)
    k.groups.push_back(kernels_->get(g, tile_count % k.nr, k.nr, pf_lines, k.x_lines));
  return k;
}

int ConvWinograd::x_prefetch_lines(int nr) const {
  // A tile brings about (m + 2) x m input pixels of every channel (its rows' share of a
  // block's band) and writes m x m output pixels (and reads as many of a residual); a
  // block's calls (alpha^2 x groups of them) pass over K once per register block of nr
  // tiles, ic_packs k groups each.
  const long vbytes = vlen_ * 4L;
  const long tile_bytes = ic_packs_ * vbytes * (m_ + 2) * m_ + chunks_ * vbytes * m_ * m_ * (params_.residual ? 2 : 1);
  const double per_k_group = static_cast<double>(tile_bytes) / 64 * nr /
                             (static_cast<double>(alpha_) * alpha_ * kernels_->groups() * ic_packs_);
  return static_cast<int>(std::min(8.0, std::max(1.0, std::ceil(per_k_group))));
}

long ConvWinograd::PrefetchStream::total_lines() const {
  long lines = 0;
  for (const Band& b : bands) lines += b.lines;
  return lines;
}

void ConvWinograd::PrefetchStream::next_slice(long capacity, const void** first, long* lines) {
  while (band < bands.size() && line >= bands[band].lines) {
    band++;
    line = 0;
  }
  if (band == bands.size()) {
    *first = nullptr;
    *lines = 0;
    return;
  }
  *first = bands[band].begin + line * 64;
  *lines = std::min({per_call, capacity, bands[band].lines - line});
  line += *lines;
}

void ConvWinograd::add_rows(PrefetchStream& stream, const Mat& mat, int row_begin, int row_end, int plane_begin,
                            int plane_end) {
  if (row_end <= row_begin || mat.data == nullptr) return;
  const long row_bytes = static_cast<long>(mat.w) * mat.elemsize;
  for (int c = plane_begin; c < (plane_end < 0 ? mat.c : std::min(plane_end, mat.c)); c++) {
    const char* plane = static_cast<const char*>(mat.data) + static_cast<long>(mat.cstep) * mat.elemsize * c;
    // The lines holding the band's bytes (a line may straddle two planes' bands).
    const uintptr_t begin = reinterpret_cast<uintptr_t>(plane + row_begin * row_bytes) & ~uintptr_t(63);
    const uintptr_t end = reinterpret_cast<uintptr_t>(plane + row_end * row_bytes);
    stream.bands.push_back(
        PrefetchStream::Band{reinterpret_cast<const char*>(begin), static_cast<long>((end - begin + 63) / 64)});
  }
}

ConvWinograd::PrefetchStream ConvWinograd::gemm_stream(const Mat& bottom, int in_begin, int in_end, const Mat& top,
                                                     const Mat* residual, int out_begin, int out_end, int chunk_begin,
                                                     int chunk_end, long calls) const {
  PrefetchStream stream;
  add_rows(stream, bottom, in_begin, in_end);
  // Output planes of out_pack channels: chunk c holds planes [c vlen / out_pack, (c + 1) vlen / out_pack).
  const int plane_begin = chunk_begin * vlen_ / out_pack_, plane_end = chunk_end * vlen_ / out_pack_;
  add_rows(stream, top, out_begin, out_end, plane_begin, plane_end);
  if (residual) add_rows(stream, *residual, out_begin, out_end, plane_begin, plane_end);
  // Slices end at band ends: a quarter more per call than an even share, so the stream is
  // spent before the GEMM is.
  const long shares = std::max(1L, calls);
  stream.per_call = (stream.total_lines() * 5 / 4 + shares - 1) / shares;
  return stream;
}

void ConvWinograd::gemm_block(const BlockBuffers& buf, const BlockKernels& kernels, int p_begin, int p_end,
                              int group_begin, int group_end, PrefetchStream& stream) const {
  const int tile_count = kernels.tile_count, nr = kernels.nr;
  const int groups = kernels_->groups();
  const long panels = static_cast<long>(alpha_) * alpha_ * groups;
  GemmArgs args{};
  args.k_groups = ic_packs_;
  args.n_blocks = tile_count / nr;
  args.b_k_stride = static_cast<long>(tile_count) * vlen_ * 4;
  args.c_plane_stride = static_cast<long>(tile_count) * vlen_ * 4;
  args.flags = kGemmFinal;
  // Lines a call can fetch: x_lines per k group of each register block.
  const long x_capacity =
      static_cast<long>(kernels.x_lines) * ic_packs_ * (args.n_blocks + (tile_count % nr ? 1 : 0));
  for (int p = p_begin; p < p_end; p++)
    for (int g = group_begin; g < group_end; g++) {
      const long panel = static_cast<long>(p) * groups + g;
      args.a = static_cast<const float*>(weights_.data) + panel * group_floats_;
      // Prefetch the panel used next: the next of this call's range, or after the last one
      // the panel after it (the phased plan's threads take runs of consecutive panels).
      long next = panel + 1;
      if (g + 1 == group_end && p + 1 < p_end) next = static_cast<long>(p + 1) * groups + group_begin;
      args.a_prefetch = static_cast<const float*>(weights_.data) + next % panels * group_floats_;
      args.b = buf.v + p * buf.v_stride;
      args.c = buf.m + p * buf.m_stride + static_cast<long>(g) * kernels_->group_size() * tile_count * vlen_;
      stream.next_slice(x_capacity, &args.x_prefetch, &args.x_prefetch_lines);
      kernels.groups[g].fn(&args);
    }
}

std::string ConvWinograd::plan_name(const Plan& plan) {
  switch (plan.split) {
    case Split::blocked: return "blocked, blocks of up to " + std::to_string(plan.block) + " tiles";
    case Split::phased: return "phased";
    case Split::by_channels: return "split by output channels";
  }
  return "?";
}

void ConvWinograd::prepare(int ih, int iw) {
  prepared_h_ = ih;
  prepared_w_ = iw;
  const long tiles = tile_plan(ih, iw)->tiles;  // generates the edge transforms
  for (int threads : {1, default_num_threads()}) {
    const Plan p = plan(tiles, threads);
    for (int count : block_sizes(tiles, threads, p)) block_kernels(count);
  }
  if (border_) border_->prepare(ih, iw);
}

void ConvWinograd::forward(const Mat& bottom, Mat& top, const Option& opt) const {
  if (params_.residual) fail("Winograd convolution built for a residual input: call forward_residual");
  run(bottom, nullptr, top, opt);
}

void ConvWinograd::forward_residual(const Mat& bottom, const Mat& residual, Mat& top, const Option& opt) const {
  if (!params_.residual) ConvImpl::forward_residual(bottom, residual, top, opt);
  run(bottom, &residual, top, opt);
}

void ConvWinograd::run(const Mat& bottom_in, const Mat* residual, Mat& top, const Option& opt) const {
  if (bottom_in.dims != 3 || bottom_in.c * bottom_in.elempack != params_.ic)
    fail("Winograd convolution expects a 3-D input with ", params_.ic, " channels");
  int oh, ow;
  params_.output_size(bottom_in.h, bottom_in.w, oh, ow);
  top.create(ow, oh, params_.oc / out_pack_, static_cast<size_t>(out_pack_) * 4, out_pack_, opt.blob_allocator);
  if (residual) residual_byte_offset(*residual, top);  // checks the shape before any thread starts

  // The transforms read whole vectors: repack to vlen lanes, zero-padding the channels.
  Mat bottom = bottom_in;
  if (bottom_in.elempack != vlen_) {
    Option ws = opt;
    ws.blob_allocator = opt.workspace_allocator;
    if (params_.ic % vlen_ == 0) {
      convert_packing(bottom_in, bottom, vlen_, ws);
    } else {
      Mat plain;
      convert_packing(bottom_in, plain, 1, ws);
      Mat padded(plain.w, plain.h, ic_packs_ * vlen_, 4u, 1, opt.workspace_allocator);
      for (int c = 0; c < padded.c; c++) {
        Mat dst = padded.channel(c);
        if (c < params_.ic)
          memcpy(dst.data, plain.channel(c).data, sizeof(float) * plain.w * plain.h);
        else
          dst.fill(0.f);
      }
      convert_packing(padded, bottom, vlen_, ws);
    }
  }

  run_region(bottom, residual, top, opt);
  if (border_) border_->run_region(bottom, residual, top, opt);
}

void ConvWinograd::run_region(const Mat& bottom, const Mat* residual, Mat& top, const Option& opt) const {
  const std::shared_ptr<const TilePlan> grid_held = tile_plan(bottom.h, bottom.w);
  const TilePlan& grid = *grid_held;
  const long tiles = grid.tiles;
  if (tiles == 0) return;  // a border split's empty side
  const int positions = alpha_ * alpha_;
  const int threads = std::max(1, opt.num_threads);
  const Plan plan_here = plan(tiles, threads);
  const int block = plan_here.block;

  if (plan_here.split == Split::blocked) {
    // Each thread takes an equal share of the tiles (to one tile) and runs it in equal
    // blocks of at most `block` tiles. A fixed split, not task_ranges.h: blocks are a fifth
    // of a thread's share or more, and taking over another thread's last block was slower
    // (two threads, x oneDNN, four rounds: 64@56 2.83 -> 2.76, 128@28 2.91 -> 2.81, 96@35
    // 2.98 -> 2.89).
    const long team_floats = (positions + 1) * slot_panel(block);
    const int teams = static_cast<int>(std::min<long>(threads, tiles));
    Mat work(static_cast<int>(team_floats * teams), 4u, 1, opt.workspace_allocator);
#pragma omp parallel for num_threads(teams) schedule(static)
    for (int t = 0; t < teams; t++) {
      float* base = static_cast<float*>(work.data) + team_floats * t;
      const std::vector<TileBlock> blocks = team_blocks(tiles, teams, t, block);
      // The kernels of the team's block sizes (equal blocks: one or two sizes), looked up
      // once: each lookup locks the kernel cache.
      std::vector<BlockKernels> sized;
      auto kernels_for = [&](int count) -> const BlockKernels& {
        for (const BlockKernels& k : sized)
          if (k.tile_count == count) return k;
        sized.push_back(block_kernels(count));
        return sized.back();
      };
      for (size_t i = 0; i < blocks.size(); i++) {
        const TileBlock& b = blocks[i];
        const BlockBuffers buf = overlapped_buffers(base, b.count);
        input_block(bottom, grid, b.first, b.count, 0, ic_packs_, buf);
        // While the GEMM computes, fetch the rows the next block's input transform reads
        // and this block's output transform writes.
        int in_begin = 0, in_end = 0, out_begin, out_end;
        if (i + 1 < blocks.size()) tile_rows(grid, true, blocks[i + 1].first, blocks[i + 1].count, in_begin, in_end);
        tile_rows(grid, false, b.first, b.count, out_begin, out_end);
        PrefetchStream stream = gemm_stream(bottom, in_begin, in_end, top, residual, out_begin, out_end, 0, chunks_,
                                            static_cast<long>(positions) * kernels_->groups());
        gemm_block(buf, kernels_for(b.count), 0, positions, 0, kernels_->groups(), stream);
        output_block(buf, grid, b.first, b.count, 0, chunks_, residual, top);
      }
    }
    return;
  }
  const int count = static_cast<int>(tiles);
  if (plan_here.split == Split::by_channels) {
    // Each thread: the whole V in its own buffer, its groups' part of M, its chunks out.
    const int groups = kernels_->groups();
    const int teams = std::min(threads, groups);
    const long v_floats = positions * v_panel(count);
    Mat work(static_cast<int>(v_floats * teams + positions * m_panel(count)), 4u, 1, opt.workspace_allocator);
    float* mbuf = static_cast<float*>(work.data) + v_floats * teams;
#pragma omp parallel for num_threads(teams) schedule(static)
    for (int t = 0; t < teams; t++) {
      const BlockBuffers buf = side_by_side_buffers(static_cast<float*>(work.data) + v_floats * t, mbuf, count);
      const int group_begin = groups * t / teams, group_end = groups * (t + 1) / teams;
      const int chunk_begin = group_begin * kernels_->group_size();
      const int chunk_end = std::min(chunks_, group_end * kernels_->group_size());
      input_block(bottom, grid, 0, count, 0, ic_packs_, buf);
      // While the GEMM computes, fetch the output rows of this thread's chunks.
      PrefetchStream stream = gemm_stream(bottom, 0, 0, top, residual, 0, top.h, chunk_begin, chunk_end,
                                          static_cast<long>(positions) * (group_end - group_begin));
      gemm_block(buf, block_kernels(count), 0, positions, group_begin, group_end, stream);
      output_block(buf, grid, 0, count, chunk_begin, chunk_end, residual, top);
    }
    return;
  }
  // One block of all tiles, each step split across threads; positions outermost in the
  // GEMM so each part of U is read once. Each step gives every thread a contiguous run of
  // its tasks, and a thread that finishes early takes tasks from the back of another's
  // (task_ranges.h): the barrier after a step then waits less on a slow vCPU (two threads,
  // x oneDNN, eight interleaved rounds each of two runs against static splits: 128@28
  // 2.67 -> 2.92 and 2.74 -> 2.79, 96@35 2.50 -> 2.58 and 2.50 -> 2.55, 256@14 2.55 ->
  // 2.64 and 2.57 -> 2.60; unchanged layers on other plans moved +0.01 to +0.02).
  Mat v(static_cast<int>(positions * v_panel(count)), 4u, 1, opt.workspace_allocator);
  Mat mbuf(static_cast<int>(positions * m_panel(count)), 4u, 1, opt.workspace_allocator);
  const BlockBuffers buf = side_by_side_buffers(static_cast<float*>(v.data), static_cast<float*>(mbuf.data), count);
  run_tasks(ic_packs_, threads, [&](long c, int) {
    input_block(bottom, grid, 0, count, static_cast<int>(c), static_cast<int>(c) + 1, buf);
  });
  const int groups = kernels_->groups();
  const BlockKernels kernels = block_kernels(count);  // the cache lookups lock: once per forward
  // While the GEMM computes, each thread fetches the output rows of the chunks its run of
  // output tasks starts with (TaskRanges' equal runs; taken-over tasks excepted).
  const long gemm_tasks = static_cast<long>(positions) * groups;
  std::vector<PrefetchStream> streams;
  for (int t = 0; t < threads; t++)
    streams.push_back(gemm_stream(bottom, 0, 0, top, residual, 0, top.h, chunks_ * t / threads,
                                  chunks_ * (t + 1) / threads, (gemm_tasks + threads - 1) / threads));
  run_tasks(gemm_tasks, threads, [&](long task, int thread) {
    const int p = static_cast<int>(task / groups), g = static_cast<int>(task % groups);
    gemm_block(buf, kernels, p, p + 1, g, g + 1, streams[thread]);
  });
  run_tasks(chunks_, threads, [&](long c, int) {
    output_block(buf, grid, 0, count, static_cast<int>(c), static_cast<int>(c) + 1, residual, top);
  });
}

std::string ConvWinograd::describe() const {
  std::ostringstream os;
  os << name() << " F(" << m_ << ",3) " << isa_name(isa_) << " elempack " << in_pack_ << "->" << out_pack_
     << " gemm tile " << kernels_->group_size() << "x" << kernels_->get(0, 0).conf->nr;
  if (dh_ > 1 || dw_ > 1) os << " dilation " << dh_ << "x" << dw_ << ": " << dh_ * dw_ << " sub-images in place";
  if (border_ && prepared_h_ > 0) {
    int oh, ow, rows, columns;
    params_.output_size(prepared_h_, prepared_w_, oh, ow);
    border_split(oh, ow, m_, border_->m_, rows, columns);
    os << ", output " << rows << "x" << columns << " of " << oh << "x" << ow << " (the rest on F(" << border_->m_
       << ",3))";
  }
  if (prepared_h_ > 0) {
    const long tiles = tile_plan(prepared_h_, prepared_w_)->tiles;
    os << "\n  plan for " << prepared_h_ << "x" << prepared_w_ << " (" << tiles << " tiles):";
    os << " 1 thread " << plan_name(plan(tiles, 1));
    const int most = default_num_threads();
    if (most > 1) os << "; " << most << " threads " << plan_name(plan(tiles, most));
  }
  for (const std::string& n : kernels_->names()) os << "\n  kernel " << n;
  os << "\n  kernel " << input_kernel_->name();
  {
    std::lock_guard<std::mutex> lock(edge_mutex_);
    for (const auto& edge : edge_kernels_) os << "\n  kernel " << edge.second->name();
  }
  os << "\n  kernel " << output_kernel_->name();
  if (border_) os << "\n  borders: " << border_->describe();
  return os.str();
}

}  // namespace jitconv
