// What the CPU can do, and which instruction set jitconv may use.
//
// The ISA in use is the best the hardware has, capped by JITCONV_ISA=avx512|avx2|scalar
// (read once, like ONEDNN_MAX_CPU_ISA) and by set_max_isa(). Everything that chooses
// code paths asks current_isa().
#pragma once
#include <cstddef>
#include <string>

namespace jitconv {

// Ordered: a higher value implies everything below it.
enum class Isa {
  scalar = 0,  // baseline x86-64, no generated kernels
  avx2 = 1,    // AVX2 + FMA (+ F16C)
  avx512 = 2,  // AVX-512 F/BW/DQ/VL (+ FMA)
};

struct CpuInfo {
  std::string vendor;
  std::string brand;
  bool sse41 = false;
  bool avx = false;
  bool avx2 = false;
  bool fma = false;
  bool f16c = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512dq = false;
  bool avx512vl = false;
  bool avx512_vnni = false;
  bool avx512_bf16 = false;
  bool avx_vnni = false;
  size_t l1d_bytes = 0;  // per core
  size_t l2_bytes = 0;   // per core
  size_t l3_bytes = 0;   // shared
  // Whether L3 feeds a core's streaming weights beside its FMAs. AMD Zen's L3 (a victim
  // cache per core complex, ~46 cycles away) does: direct kernels whose weights outgrow
  // half of Zen 3's 512 KB L2 ran 10-30% faster in the blocks that assume nothing extra
  // for them. The Xeons' mesh L3 returned evicted lines at about memory speed, where
  // such weights cost extra cycles (see conv_direct_conf.cpp).
  bool fast_l3 = false;
  // AVX-512 runs on 256-bit datapaths (AMD Zen 4, family 19h): a zmm FMA issues as two
  // halves, so zmm code peaks at the ymm rate (`jitconv peak`: 32 FLOP/cycle both) and the
  // GEMM kernels consume bytes at half the rate of full-width machines (Zen 5, Intel's
  // two-FMA-unit Xeons: 64 FLOP/cycle). Block sizes and tile shapes measured on Zen 4 key
  // on it.
  bool zmm_half_rate = false;
  // AVX2 runs on 128-bit datapaths (AMD Zen 1 / Zen+, family 17h models below 30h): a ymm
  // FMA issues as two halves, 16 FLOP/cycle (`jitconv peak`), half of Zen 2-4's, while
  // caches and memory move bytes as fast as theirs. Multiplies saved weigh twice as much
  // against bytes moved: F(5,3)'s thread rule (f53_pays) and the two-thread Winograd plan
  // (ConvWinograd::plan) measured on Zen 1 key on it.
  bool ymm_half_rate = false;
  std::string cache_source;  // "cpuid" or "sysfs"
  int logical_cpus = 1;
  int physical_cores = 1;
  Isa hardware_isa = Isa::scalar;
};

const CpuInfo& cpu_info();

// Whether `bytes` of data outgrow half of this core's L2 (what the kernels' cache
// decisions, such as input prefetch and task order, key on).
inline bool outgrows_half_l2(double bytes) { return bytes > static_cast<double>(cpu_info().l2_bytes) / 2; }

// Whether kernels for `isa` run zmm FMAs at full width: AVX-512 on a core without
// CpuInfo::zmm_half_rate (Zen 5, two-FMA Xeons). The rules measured on Zen 4 key on it.
inline bool full_width_zmm(Isa isa) { return isa == Isa::avx512 && !cpu_info().zmm_half_rate; }

// Whether kernels for `isa` run zmm FMAs on 256-bit halves: AVX-512 with
// CpuInfo::zmm_half_rate (Zen 4). The rules measured only there key on it.
inline bool half_rate_zmm(Isa isa) { return isa == Isa::avx512 && cpu_info().zmm_half_rate; }

// Whether kernels for `isa` run ymm FMAs on 128-bit halves (CpuInfo::ymm_half_rate, Zen 1).
inline bool half_rate_ymm(Isa isa) { return isa == Isa::avx2 && cpu_info().ymm_half_rate; }

// The ISA kernels are generated for now.
Isa current_isa();
// Cap the ISA (API equivalent of JITCONV_ISA). A cap above the hardware is clamped to it.
// Kernels already generated for a higher ISA stay valid; new pipelines use the cap.
void set_max_isa(Isa cap);
// Remove the API cap (the JITCONV_ISA cap still applies).
void reset_max_isa();

const char* isa_name(Isa isa);
// "avx512" / "avx2" / "scalar" (also "avx512_core", "avx2_fma"); throws jitconv::Error otherwise.
Isa parse_isa(const std::string& name);
bool isa_supported(Isa isa);
// Vector width in fp32 lanes: 16, 8 or 1 for scalar.
int isa_lanes(Isa isa);
// The elempack a blob of `channels` channels gets under `isa` with packing on (ncnn's rule).
int preferred_elempack(Isa isa, int channels);

}  // namespace jitconv
