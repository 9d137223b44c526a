// jitconv info: what this machine offers and what jitconv will use.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <xbyak/xbyak.h>

#include "runtime/cpu.h"
#include "tools/cli_args.h"
#ifdef JITCONV_WITH_ONEDNN
#include "reference/onednn_conv.h"
#endif

namespace jitconv {

namespace {

std::string format_bytes(size_t bytes) {
  char text[32];
  if (bytes == 0) return "unknown";
  if (bytes % (1024 * 1024) == 0)
    std::snprintf(text, sizeof(text), "%zu MiB", bytes / (1024 * 1024));
  else
    std::snprintf(text, sizeof(text), "%zu KiB", bytes / 1024);
  return text;
}

// Xbyak::VERSION is 0xABCD for A.BC(.D).
std::string xbyak_version() {
  char hex[8];
  std::snprintf(hex, sizeof(hex), "%x", static_cast<unsigned>(Xbyak::VERSION));
  const std::string digits = hex;
  std::string version = digits.substr(0, digits.size() - 3) + "." + digits.substr(digits.size() - 3, 2);
  if (digits.back() != '0') version += std::string(".") + digits.back();
  return version;
}

}  // namespace

int cmd_info(const std::vector<std::string>& argv) {
  CliArgs args("info", "", "Prints the CPU, its features and caches, the ISA jitconv uses and library versions.",
               {});
  if (!args.parse(argv)) {
    std::fputs(args.help_text().c_str(), stdout);
    return 0;
  }
  const CpuInfo& cpu = cpu_info();
  std::printf("cpu:        %s, %s\n", cpu.vendor.c_str(), cpu.brand.c_str());
  const std::pair<const char*, bool> features[] = {
      {"avx2", cpu.avx2},         {"fma", cpu.fma},           {"f16c", cpu.f16c},
      {"avx512f", cpu.avx512f},   {"avx512bw", cpu.avx512bw}, {"avx512dq", cpu.avx512dq},
      {"avx512vl", cpu.avx512vl}, {"avx512_vnni", cpu.avx512_vnni}, {"avx512_bf16", cpu.avx512_bf16}};
  std::string have, lack;
  for (const auto& f : features) (f.second ? have : lack) += std::string(" ") + f.first;
  std::printf("features:  %s\n", have.empty() ? " (none)" : have.c_str());
  if (!lack.empty()) std::printf("missing:   %s\n", lack.c_str());
  std::printf("isa:        %s (hardware %s)", isa_name(current_isa()), isa_name(cpu.hardware_isa));
  const char* env_cap = std::getenv("JITCONV_ISA");
  if (env_cap && *env_cap) std::printf(", capped by JITCONV_ISA=%s", env_cap);
  // zmm_half_rate changes the Winograd blocks and pointwise tiles (CpuInfo::zmm_half_rate).
  if (cpu.avx512f) std::printf("; zmm %s", cpu.zmm_half_rate ? "on 256-bit halves (ymm rate)" : "full width");
  // ymm_half_rate changes F(5,3)'s thread rule and the Winograd plans (CpuInfo::ymm_half_rate).
  if (cpu.ymm_half_rate) std::printf("; ymm on 128-bit halves");
  std::printf("\n");
  // fast_l3 changes the direct kernels' blocking (CpuInfo::fast_l3): say when it holds.
  std::printf("caches:     L1d %s, L2 %s per core, L3 %s (from %s%s)\n", format_bytes(cpu.l1d_bytes).c_str(),
              format_bytes(cpu.l2_bytes).c_str(), format_bytes(cpu.l3_bytes).c_str(), cpu.cache_source.c_str(),
              cpu.fast_l3 ? "; fast L3: streamed weights cost no extra cycles" : "");
  std::printf("cpus:       %d logical, %d physical cores\n", cpu.logical_cpus, cpu.physical_cores);
  std::printf("xbyak:      %s\n", xbyak_version().c_str());
#ifdef JITCONV_WITH_ONEDNN
  std::printf("onednn:     %s\n", onednn_version().c_str());
#else
  std::printf("onednn:     not built with oneDNN\n");
#endif
  return 0;
}

}  // namespace jitconv
