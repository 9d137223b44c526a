// The machine's FMA peak, measured with generated code: the yardstick `jitconv peak`
// prints and `jitconv bench` divides by (peak_pct).
//
// The FMA kernel runs many independent vfmadd231ps chains (more than latency x FMA
// ports), so throughput, not latency, bounds it. The clock comes from a long chain of
// dependent 1-cycle `add`s: cycles = adds, so GHz = adds / time, measured on the same
// threads right after the FMA loop (AVX-512 code may lower the clock; the add loop sees
// the frequency the core settles to, which is close enough for a FLOP/cycle figure).
#pragma once
#include "runtime/cpu.h"

namespace jitconv {

struct PeakResult {
  Isa isa = Isa::avx512;
  int threads = 1;               // threads that actually ran
  int vector_lanes = 16;         // fp32 lanes per FMA: 16 (zmm) or 8 (ymm)
  double gflops = 0;             // all threads together
  double gflops_per_thread = 0;
  double ghz = 0;                // core clock, average over the threads
  double flops_per_cycle = 0;    // per thread
};

// isa: avx512 (zmm) or avx2 (ymm); anything else, or an ISA this CPU lacks, throws
// jitconv::Error. `seconds` is the time spent in the FMA loop; the clock loop adds a
// quarter of it.
PeakResult measure_fma_peak(Isa isa, int threads, double seconds);

// Core clock in GHz from the dependent-add chain run on `threads` threads at once.
double measure_core_ghz(int threads, double seconds);

}  // namespace jitconv
