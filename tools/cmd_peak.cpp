// jitconv peak: FMA throughput of generated code, per ISA, for 1 and N threads.
#include <cstdio>
#include <string>
#include <vector>

#include "jit/peak_kernel.h"
#include "runtime/cpu.h"
#include "tools/cli_args.h"

namespace jitconv {

int cmd_peak(const std::vector<std::string>& argv) {
  const int cores = cpu_info().physical_cores;
  CliArgs args("peak", "[--threads N] [--seconds S]",
               "Measures the fp32 FMA peak with a generated loop of independent FMAs (zmm with AVX-512, ymm\n"
               "with AVX2) on 1 and N threads, and the core clock with a chain of dependent adds.",
               {{"threads", "N", "threads for the parallel row (default: all " + std::to_string(cores) + " cores)"},
                {"seconds", "S", "time per measurement (default 0.5)"}});
  if (!args.parse(argv)) {
    std::fputs(args.help_text().c_str(), stdout);
    return 0;
  }
  const int threads = args.get_int("threads", cores, 1);
  const double seconds = args.get_double("seconds", 0.5, 0.001);
  std::vector<Isa> isas;
  for (Isa isa : {Isa::avx512, Isa::avx2})
    if (static_cast<int>(isa) <= static_cast<int>(current_isa())) isas.push_back(isa);
  if (isas.empty()) fail("peak needs AVX2 or AVX-512; the ISA in use is ", isa_name(current_isa()));
  std::vector<int> thread_counts = {1};
  if (threads != 1) thread_counts.push_back(threads);

  std::printf("%-7s %-6s %7s %10s %13s %6s %10s\n", "isa", "vector", "threads", "GFLOP/s", "GFLOP/s/core", "GHz",
              "FLOP/cycle");
  for (Isa isa : isas) {
    for (int n : thread_counts) {
      const PeakResult r = measure_fma_peak(isa, n, seconds);
      std::printf("%-7s %-6s %7d %10.1f %13.1f %6.2f %10.1f\n", isa_name(isa), isa == Isa::avx512 ? "zmm" : "ymm",
                  r.threads, r.gflops, r.gflops_per_thread, r.ghz, r.flops_per_cycle);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace jitconv
