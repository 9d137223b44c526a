#include "runtime/cpu.h"

#include <cpuid.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <xbyak/xbyak_util.h>

#include "runtime/error.h"

namespace jitconv {

namespace {

struct CacheSizes {
  size_t l1d = 0, l2 = 0, l3 = 0;
};

// Deterministic cache parameters: Intel leaf 4, AMD leaf 0x8000001D (same encoding).
CacheSizes caches_from_cpuid(bool amd) {
  CacheSizes sizes;
  const unsigned leaf = amd ? 0x8000001Du : 4u;
  unsigned max_leaf = __get_cpuid_max(amd ? 0x80000000u : 0u, nullptr);
  if (max_leaf < leaf) return sizes;
  for (unsigned sub = 0; sub < 16; sub++) {
    unsigned eax, ebx, ecx, edx;
    __cpuid_count(leaf, sub, eax, ebx, ecx, edx);
    const unsigned type = eax & 0x1f;  // 0 none, 1 data, 2 instruction, 3 unified
    if (type == 0) break;
    if (type == 2) continue;
    const unsigned level = (eax >> 5) & 7;
    const size_t ways = ((ebx >> 22) & 0x3ff) + 1;
    const size_t partitions = ((ebx >> 12) & 0x3ff) + 1;
    const size_t line = (ebx & 0xfff) + 1;
    const size_t sets = static_cast<size_t>(ecx) + 1;
    const size_t bytes = ways * partitions * line * sets;
    if (level == 1) sizes.l1d = bytes;
    if (level == 2) sizes.l2 = bytes;
    if (level == 3) sizes.l3 = bytes;
  }
  return sizes;
}

size_t parse_sysfs_size(const std::string& text) {
  size_t value = 0;
  char unit = 0;
  std::istringstream in(text);
  in >> value >> unit;
  if (unit == 'K') value *= 1024;
  if (unit == 'M') value *= 1024 * 1024;
  return value;
}

CacheSizes caches_from_sysfs() {
  CacheSizes sizes;
  for (int index = 0; index < 8; index++) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level"), type_file(dir + "type"), size_file(dir + "size");
    if (!level_file || !type_file || !size_file) break;
    int level = 0;
    std::string type, size;
    level_file >> level;
    type_file >> type;
    size_file >> size;
    if (type == "Instruction") continue;
    const size_t bytes = parse_sysfs_size(size);
    if (level == 1) sizes.l1d = bytes;
    if (level == 2) sizes.l2 = bytes;
    if (level == 3) sizes.l3 = bytes;
  }
  return sizes;
}

int count_physical_cores(int logical) {
  std::set<std::string> siblings;
  for (int cpu = 0; cpu < logical; cpu++) {
    std::ifstream f("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/thread_siblings_list");
    std::string list;
    if (!(f >> list)) return logical;
    siblings.insert(list);
  }
  return siblings.empty() ? logical : static_cast<int>(siblings.size());
}

std::string brand_string() {
  unsigned regs[12] = {};
  // int in clang's cpuid.h, unsigned in GCC's.
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000u, nullptr)) < 0x80000004u) return "unknown";
  for (unsigned i = 0; i < 3; i++) __cpuid(0x80000002u + i, regs[i * 4], regs[i * 4 + 1], regs[i * 4 + 2], regs[i * 4 + 3]);
  std::string brand(reinterpret_cast<const char*>(regs), sizeof(regs));
  brand = brand.c_str();
  const size_t first = brand.find_first_not_of(' ');
  return first == std::string::npos ? "" : brand.substr(first);
}

CpuInfo detect() {
  using Cpu = Xbyak::util::Cpu;
  const Cpu cpu;
  CpuInfo info;
  unsigned eax, ebx, ecx, edx;
  __cpuid(0, eax, ebx, ecx, edx);
  char vendor[13] = {};
  memcpy(vendor, &ebx, 4);
  memcpy(vendor + 4, &edx, 4);
  memcpy(vendor + 8, &ecx, 4);
  info.vendor = vendor;
  info.brand = brand_string();
  info.sse41 = cpu.has(Cpu::tSSE41);
  info.avx = cpu.has(Cpu::tAVX);
  info.avx2 = cpu.has(Cpu::tAVX2);
  info.fma = cpu.has(Cpu::tFMA);
  info.f16c = cpu.has(Cpu::tF16C);
  info.avx512f = cpu.has(Cpu::tAVX512F);
  info.avx512bw = cpu.has(Cpu::tAVX512BW);
  info.avx512dq = cpu.has(Cpu::tAVX512DQ);
  info.avx512vl = cpu.has(Cpu::tAVX512VL);
  info.avx512_vnni = cpu.has(Cpu::tAVX512_VNNI);
  info.avx512_bf16 = cpu.has(Cpu::tAVX512_BF16);
  info.avx_vnni = cpu.has(Cpu::tAVX_VNNI);

  const bool amd_zen_family = info.vendor == "AuthenticAMD" || info.vendor == "HygonGenuine";
  CacheSizes sizes = caches_from_cpuid(amd_zen_family);
  info.cache_source = "cpuid";
  if (sizes.l1d == 0 || sizes.l2 == 0) {
    sizes = caches_from_sysfs();
    info.cache_source = "sysfs";
  }
  if (sizes.l1d == 0) sizes.l1d = 32 * 1024;  // conservative defaults when neither source answers
  if (sizes.l2 == 0) sizes.l2 = 512 * 1024;
  info.l1d_bytes = sizes.l1d;
  info.l2_bytes = sizes.l2;
  info.l3_bytes = sizes.l3;
  info.fast_l3 = amd_zen_family;
  info.zmm_half_rate = info.vendor == "AuthenticAMD" && cpu.displayFamily == 0x19 && info.avx512f;
  // Zen 2 (family 17h from model 30h) widened the FMA units to 256 bits. Hygon's Dhyana is
  // a Zen 1 (family 18h).
  info.ymm_half_rate = (info.vendor == "AuthenticAMD" && cpu.displayFamily == 0x17 && cpu.displayModel < 0x30) ||
                       (info.vendor == "HygonGenuine" && cpu.displayFamily == 0x18);

  info.logical_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  if (info.logical_cpus < 1) info.logical_cpus = 1;
  info.physical_cores = count_physical_cores(info.logical_cpus);

  if (info.avx512f && info.avx512bw && info.avx512dq && info.avx512vl && info.fma && info.avx2)
    info.hardware_isa = Isa::avx512;
  else if (info.avx2 && info.fma)
    info.hardware_isa = Isa::avx2;
  else
    info.hardware_isa = Isa::scalar;
  return info;
}

Isa env_cap() {
  const char* env = std::getenv("JITCONV_ISA");
  if (!env || !*env) return Isa::avx512;
  try {
    return parse_isa(env);
  } catch (const Error& e) {
    fail("JITCONV_ISA: ", e.what());
  }
}

std::atomic<int> g_api_cap{static_cast<int>(Isa::avx512)};

}  // namespace

const CpuInfo& cpu_info() {
  static const CpuInfo info = detect();
  return info;
}

Isa current_isa() {
  static const Isa cap_from_env = env_cap();
  int isa = static_cast<int>(cpu_info().hardware_isa);
  isa = std::min(isa, static_cast<int>(cap_from_env));
  isa = std::min(isa, g_api_cap.load());
  return static_cast<Isa>(isa);
}

void set_max_isa(Isa cap) { g_api_cap.store(static_cast<int>(cap)); }
void reset_max_isa() { g_api_cap.store(static_cast<int>(Isa::avx512)); }

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::avx512: return "avx512";
    case Isa::avx2: return "avx2";
    case Isa::scalar: return "scalar";
  }
  return "unknown";
}

Isa parse_isa(const std::string& name) {
  if (name == "avx512" || name == "avx512_core" || name == "AVX512" || name == "AVX512_CORE") return Isa::avx512;
  if (name == "avx2" || name == "avx2_fma" || name == "AVX2") return Isa::avx2;
  if (name == "scalar" || name == "none" || name == "SCALAR") return Isa::scalar;
  fail("unknown ISA '", name, "' (expected avx512, avx2 or scalar)");
}

bool isa_supported(Isa isa) { return static_cast<int>(isa) <= static_cast<int>(cpu_info().hardware_isa); }

int isa_lanes(Isa isa) {
  switch (isa) {
    case Isa::avx512: return 16;
    case Isa::avx2: return 8;
    case Isa::scalar: return 1;
  }
  return 1;
}

int preferred_elempack(Isa isa, int channels) {
  if (isa == Isa::avx512 && channels % 16 == 0) return 16;
  if (isa != Isa::scalar && channels % 8 == 0) return 8;
  if (channels % 4 == 0) return 4;
  return 1;
}

}  // namespace jitconv
