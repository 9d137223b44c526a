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
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "jit/kernel_registry.h"
#include "jit/winograd_gen.h"
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

void bm_gemm(benchmark::State& state, int ur_oc, int nr, int k) {
  const Isa isa = current_isa();
  if (isa == Isa::scalar) {
    state.SkipWithError("GEMM kernels need AVX2 or AVX-512");
    return;
  }
  const int vlen = isa_lanes(isa), pixels = 48, groups = 4;
  k = (k + vlen - 1) / vlen * vlen;  // whole packs of K (AVX-512: 24 -> 32)
  GemmConf base;
  base.isa = isa;
  base.vlen = vlen;
  base.ur_oc = ur_oc;
  base.nr = nr;
  base.k_pack = vlen;
  base.b_pixel_stride = vlen * 4L;
  base.out_pack = vlen;
  const GemmKernelCache cache(base, groups * ur_oc * vlen);
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

// Registered before main() runs (conv_bench.cpp's main initializes the library).
const bool registered = [] {
  for (int m : {2, 4, 6})
    for (bool input : {true, false})
      for (const auto& size : std::vector<std::pair<int, int>>{{4, 1}, {36, 12}}) {
        const std::string name = std::string("winograd/") + (input ? "input" : "output") + "/f" + std::to_string(m) +
                                 "/" + std::to_string(size.first) + "x" + std::to_string(size.second);
        benchmark::RegisterBenchmark(name.c_str(), bm_winograd_transform, m, input, size.first, size.second);
      }
  for (const auto& tile : std::vector<std::pair<int, int>>{{3, 4}, {2, 6}})
    for (int k : {24, 64, 256}) {
      const std::string name = "gemm/m" + std::to_string(tile.first) + "xn" + std::to_string(tile.second) + "/k" +
                               std::to_string(k);
      benchmark::RegisterBenchmark(name.c_str(), bm_gemm, tile.first, tile.second, k);
    }
  return true;
}();

}  // namespace
}  // namespace jitconv
