// Google Benchmark: generated kernels alone, outside any layer, for tuning them.
//
//   ./jitconv_bench --benchmark_filter='^winograd/'    (JITCONV_ISA=avx2 for the AVX2 code)
//
// winograd/{input,output}/fM/TILESxPACKS: one F(M,3) transform kernel (no edge; the output
// with bias) over TILES tiles of each of PACKS channel packs, laid out as ConvWinograd lays
// them out. 4x1 keeps everything in L1 (the kernel's own speed); 36x12 streams V / M of
// 36 tiles x 96 channels through L2 as a 35x35 layer's block does. items_per_second counts
// tiles of one pack (vlen channels).
// gemm/mURxNR/kK: the GEMM microkernel on 4 chunk groups of ur_oc x vlen channels, 48
// pixels, K deep (rounded up to whole vectors), all in L1: its FLOPS against `jitconv peak` is the kernel's efficiency.
// gemm_winograd/...: the GEMM as a Winograd block calls it, one register block a call, U in
// L2 or streaming (bm_gemm_winograd).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "jit/gemm_conf.h"
#include "jit/kernel_registry.h"
#include "jit/winograd_gen.h"
#include "runtime/activation.h"
#include "runtime/cpu.h"
#include "runtime/gemm_kernel_cache.h"

namespace jitconv {
namespace {

void bm_winograd_transform(benchmark::State& state, int m, bool input, int tiles, int packs) {
  const Isa isa = current_isa();
  if (isa == Isa::scalar) {
    state.SkipWithError("Winograd transform kernels need AVX2 or AVX-512");
    return;
  }
  WinogradTransformConf conf;
  conf.isa = isa;
  conf.vlen = isa_lanes(isa);
  conf.m = m;
  conf.input = input;
  conf.bias = !input;
  const JitKernelPtr kernel = KernelRegistry::instance().get(
      conf.name(), [conf] { return std::make_unique<WinogradTransformGenerator>(conf); });
  const auto fn = kernel->entry<WinogradTransformFn>();
  const int alpha = m + 2, vlen = conf.vlen;
  const long width = static_cast<long>(tiles) * m + 2;  // the tensor: one row of tiles, alpha rows
  const long plane = alpha * width * vlen;
  const long panel = static_cast<long>(packs) * tiles * vlen + vlen;  // skewed as ConvWinograd::v_panel
  std::vector<float> tensor(plane * packs, 0.5f), panels(alpha * alpha * panel, 0.25f), bias(vlen, 0.125f);
  const long vbytes = vlen * 4L;
  WinogradTransformArgs args{};
  args.bias = bias.data();
  args.count = tiles;
  for (auto _ : state) {
    for (int p = 0; p < packs; p++) {
      float* image = tensor.data() + p * plane;
      float* v = panels.data() + static_cast<long>(p) * tiles * vlen;
      if (input) {
        args.src = image;
        args.src_stride = width * vbytes;
        args.src_tile_step = m * vbytes;
        args.dst = v;
        args.dst_stride = panel * 4;
        args.dst_tile_step = vbytes;
      } else {
        args.src = v;
        args.src_stride = panel * 4;
        args.src_tile_step = vbytes;
        args.dst = image;
        args.dst_stride = width * vbytes;
        args.dst_tile_step = m * vbytes;
      }
      fn(&args);
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * tiles * packs);
  state.SetLabel(kernel->name());
}

// False (and the benchmark skipped) where the ISA has no GEMM kernels or too few vector
// registers for the tile (AVX2's 16: the 4 x 6 and 2 x 9 tiles are AVX-512 only).
bool gemm_tile_fits(benchmark::State& state, Isa isa, int ur_oc, int nr) {
  if (isa == Isa::scalar) {
    state.SkipWithError("GEMM kernels need AVX2 or AVX-512");
    return false;
  }
  if (nr > gemm_max_nr(isa, ur_oc, true, Activation())) {
    state.SkipWithError("tile needs more vector registers than this ISA has");
    return false;
  }
  return true;
}

// The kernels' form in these benchmarks: B packed by whole vectors of K, C in the ISA's elempack.
GemmConf bench_gemm_conf(Isa isa, int ur_oc, int nr) {
  GemmConf conf;
  conf.isa = isa;
  conf.vlen = isa_lanes(isa);
  conf.ur_oc = ur_oc;
  conf.nr = nr;
  conf.k_pack = conf.vlen;
  conf.b_pixel_stride = conf.vlen * 4L;
  conf.out_pack = conf.vlen;
  return conf;
}

void bm_gemm(benchmark::State& state, int ur_oc, int nr, int k) {
  const Isa isa = current_isa();
  if (!gemm_tile_fits(state, isa, ur_oc, nr)) return;
  const int vlen = isa_lanes(isa), pixels = 48, groups = 4;
  k = (k + vlen - 1) / vlen * vlen;  // whole packs of K (AVX-512: 24 -> 32)
  const GemmKernelCache cache(bench_gemm_conf(isa, ur_oc, nr), groups * ur_oc * vlen);
  const GemmKernelCache::Kernel kernel = cache.get(0, pixels % nr);
  const long a_floats = static_cast<long>(k) * ur_oc * vlen;
  std::vector<float> a(a_floats * groups, 0.01f), b(static_cast<long>(k) * pixels, 0.02f),
      c(static_cast<long>(pixels) * ur_oc * vlen * groups);
  GemmArgs args{};
  args.k_groups = k / vlen;
  args.n_blocks = pixels / nr;
  args.b_k_stride = static_cast<long>(pixels) * vlen * 4;
  args.c_plane_stride = static_cast<long>(pixels) * vlen * 4;
  args.flags = kGemmFinal;
  args.b = b.data();
  for (auto _ : state) {
    for (int g = 0; g < groups; g++) {
      args.a = a.data() + g * a_floats;
      args.c = c.data() + static_cast<long>(g) * pixels * ur_oc * vlen;
      kernel.fn(&args);
    }
    benchmark::ClobberMemory();
  }
  const double flops = 2.0 * k * pixels * ur_oc * vlen * groups;
  state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(kernel.conf->name());
}

// gemm_winograd/mURxNR/kK/positions:P/pfa:L: the batched multiply of a Winograd block as
// ConvWinograd::gemm_block runs it: for each of P positions and 4 chunk groups one call of
// NR tiles (one register block), A the position's panel of the group (K x ur_oc x vlen),
// B the position's V (K x NR tiles), C its M. P sets where U lives (1: 4 panels in L1/L2,
// 36 at K 128 / ur_oc 2: 2.36 MB, past a 1 MiB L2); L lines of the next panel prefetched
// into L2 per k group, as the layer's U stream. Against gemm/ (many blocks a call, all in
// L1) it separates the per-call cost from the cost of streaming U.
void bm_gemm_winograd(benchmark::State& state, int ur_oc, int nr, int k, int positions, int pfa_lines) {
  const Isa isa = current_isa();
  if (!gemm_tile_fits(state, isa, ur_oc, nr)) return;
  const int vlen = isa_lanes(isa), groups = 4;
  k = (k + vlen - 1) / vlen * vlen;
  const GemmKernelCache cache(bench_gemm_conf(isa, ur_oc, nr), groups * ur_oc * vlen);
  const GemmKernelCache::Kernel kernel = cache.get(0, 0, nr, pfa_lines);
  const long a_floats = static_cast<long>(k) * ur_oc * vlen, panels = static_cast<long>(positions) * groups;
  const long b_floats = static_cast<long>(k) * nr, c_floats = static_cast<long>(groups) * ur_oc * vlen * nr;
  std::vector<float> a(a_floats * panels, 0.01f), b(b_floats * positions, 0.02f), c(c_floats * positions);
  GemmArgs args{};
  args.k_groups = k / vlen;
  args.n_blocks = 1;
  args.b_k_stride = static_cast<long>(nr) * vlen * 4;
  args.c_plane_stride = static_cast<long>(nr) * vlen * 4;
  args.flags = kGemmFinal;
  for (auto _ : state) {
    for (int p = 0; p < positions; p++)
      for (int g = 0; g < groups; g++) {
        const long panel = static_cast<long>(p) * groups + g;
        args.a = a.data() + panel * a_floats;
        args.a_prefetch = a.data() + (panel + 1) % panels * a_floats;
        args.b = b.data() + p * b_floats;
        args.c = c.data() + p * c_floats + static_cast<long>(g) * ur_oc * vlen * nr;
        kernel.fn(&args);
      }
    benchmark::ClobberMemory();
  }
  const double flops = 2.0 * k * nr * ur_oc * vlen * groups * positions;
  state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(kernel.conf->name());
}

// Registered before main() runs (conv_bench.cpp's main initializes the library).
const bool registered = [] {
  for (int m : {2, 4, 6})
    for (bool input : {true, false})
      for (const auto& size : std::vector<std::pair<int, int>>{{4, 1}, {36, 12}}) {
        const std::string name = std::string("winograd/") + (input ? "input" : "output") + "/f" + std::to_string(m) +
                                 "/" + std::to_string(size.first) + "x" + std::to_string(size.second);
        benchmark::RegisterBenchmark(name.c_str(), bm_winograd_transform, m, input, size.first, size.second);
      }
  for (const auto& tile : std::vector<std::pair<int, int>>{{3, 4}, {2, 6}, {4, 6}})
    for (int k : {24, 64, 256}) {
      const std::string name = "gemm/m" + std::to_string(tile.first) + "xn" + std::to_string(tile.second) + "/k" +
                               std::to_string(k);
      benchmark::RegisterBenchmark(name.c_str(), bm_gemm, tile.first, tile.second, k);
    }
  // F(4,3) 128@28 in blocks of 9 or 13 tiles (2 x 9 / 2 x 13, K 128) and F(6,3) 64@56 (4 x 6, K 64).
  for (const auto& shape : std::vector<std::vector<int>>{{2, 9, 128}, {2, 13, 128}, {4, 6, 64}})
    for (int positions : {1, 36})
      for (int pfa : {0, 16}) {
        const std::string name = "gemm_winograd/m" + std::to_string(shape[0]) + "xn" + std::to_string(shape[1]) + "/k" +
                                 std::to_string(shape[2]) + "/positions:" + std::to_string(positions) +
                                 "/pfa:" + std::to_string(pfa);
        benchmark::RegisterBenchmark(name.c_str(), bm_gemm_winograd, shape[0], shape[1], shape[2], positions, pfa);
      }
  return true;
}();

}  // namespace
}  // namespace jitconv
