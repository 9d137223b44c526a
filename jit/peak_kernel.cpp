#include "jit/peak_kernel.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>

#include "jit/kernel_registry.h"
#include "runtime/error.h"

namespace jitconv {

namespace {

using LoopFn = void (*)(uint64_t iterations);

constexpr int kFmaUnroll = 4;
constexpr int kAddsPerIteration = 256;
constexpr int kRepeats = 5;
constexpr double kMinCalibrationSeconds = 0.002;

// Accumulators: enough independent chains to hide 4-cycle latency on 2 FMA ports
// (8 needed) with margin; the two last registers hold the multiplicands.
int fma_chains(Isa isa) { return isa == Isa::avx512 ? 24 : 14; }

// void fma_loop(uint64_t iterations): iterations x unroll x chains FMAs.
class FmaPeakGenerator final : public JitGenerator {
 public:
  explicit FmaPeakGenerator(Isa isa) : isa_(isa) {}

  void generate() override {
    const int chains = fma_chains(isa_);
    if (isa_ == Isa::avx512) {
      emit_loop<Xbyak::Zmm>(chains, Xbyak::Zmm(30), Xbyak::Zmm(31));
    } else {
      emit_loop<Xbyak::Ymm>(chains, Xbyak::Ymm(14), Xbyak::Ymm(15));
    }
  }

 private:
  template <typename Vec>
  void emit_loop(int chains, const Vec& a, const Vec& b) {
    // Zeros everywhere: 0 * 0 + 0 stays 0, so no denormal or overflow slows a lane.
    for (int i = 0; i < chains; i++) vxorps(Vec(i), Vec(i), Vec(i));
    vxorps(a, a, a);
    vxorps(b, b, b);
    Xbyak::Label loop, done;
    test(abi_param1, abi_param1);
    jz(done, T_NEAR);
    L(loop);
    for (int u = 0; u < kFmaUnroll; u++)
      for (int i = 0; i < chains; i++) vfmadd231ps(Vec(i), a, b);
    sub(abi_param1, 1);
    jnz(loop, T_NEAR);
    L(done);
    vzeroupper();
    ret();
  }

  Isa isa_;
};

// void clock_loop(uint64_t iterations): iterations x kAddsPerIteration dependent adds;
// the loop counter runs beside the chain, so one iteration takes kAddsPerIteration cycles.
class ClockGenerator final : public JitGenerator {
 public:
  void generate() override {
    Xbyak::Label loop, done;
    xor_(eax, eax);
    mov(edx, 1);
    test(abi_param1, abi_param1);
    jz(done, T_NEAR);
    L(loop);
    for (int i = 0; i < kAddsPerIteration; i++) add(rax, rdx);
    sub(abi_param1, 1);
    jnz(loop, T_NEAR);
    L(done);
    ret();
  }
};

LoopFn fma_kernel(Isa isa) {
  const std::string name = std::string("peak_fma_") + (isa == Isa::avx512 ? "avx512_zmm" : "avx2_ymm") + "_x" +
                           std::to_string(fma_chains(isa)) + "_u" + std::to_string(kFmaUnroll);
  return KernelRegistry::instance()
      .get(name, [isa] { return std::unique_ptr<JitGenerator>(new FmaPeakGenerator(isa)); })
      ->entry<LoopFn>();
}

LoopFn clock_kernel() {
  const std::string name = "peak_clock_add_chain_x" + std::to_string(kAddsPerIteration);
  return KernelRegistry::instance()
      .get(name, [] { return std::unique_ptr<JitGenerator>(new ClockGenerator); })
      ->entry<LoopFn>();
}

using Clock = std::chrono::steady_clock;

struct ParallelRun {
  double seconds = 0;
  int threads = 1;
};

// All threads start together after a barrier; the time ends when the last one finishes.
ParallelRun run_parallel(LoopFn fn, uint64_t iterations, int threads) {
  Clock::time_point start, end;
  ParallelRun result;
#pragma omp parallel num_threads(threads)
  {
#pragma omp barrier
#pragma omp master
    {
      result.threads = omp_get_num_threads();
      start = Clock::now();
    }
    fn(iterations);
#pragma omp barrier
#pragma omp master
    end = Clock::now();
  }
  result.seconds = std::chrono::duration<double>(end - start).count();
  return result;
}

// Iterations that take about `seconds`. Each thread runs its own copy of the loop, so one
// thread calibrates for all, away from the scheduling noise of a parallel region.
uint64_t calibrate(LoopFn fn, double seconds) {
  uint64_t iterations = 256;
  for (;;) {
    const Clock::time_point start = Clock::now();
    fn(iterations);
    const double t = std::chrono::duration<double>(Clock::now() - start).count();
    if (t >= kMinCalibrationSeconds || iterations >= (uint64_t(1) << 40))
      return std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(iterations) * seconds / t));
    iterations *= 4;
  }
}

// Loop iterations per second of one thread, from the fastest of kRepeats runs that share
// `seconds`: another process on the machine can only slow a run down.
double best_rate(LoopFn fn, int threads, double seconds, int* threads_run) {
  const uint64_t iterations = calibrate(fn, seconds / kRepeats);
  double best = 0;
  for (int r = 0; r < kRepeats; r++) {
    const ParallelRun run = run_parallel(fn, iterations, threads);
    best = std::max(best, static_cast<double>(iterations) / run.seconds);
    *threads_run = run.threads;
  }
  return best;
}

}  // namespace

double measure_core_ghz(int threads, double seconds) {
  if (threads < 1) fail("measure_core_ghz: threads must be positive, got ", threads);
  int threads_run = 0;
  return best_rate(clock_kernel(), threads, seconds, &threads_run) * kAddsPerIteration * 1e-9;
}

PeakResult measure_fma_peak(Isa isa, int threads, double seconds) {
  if (isa != Isa::avx512 && isa != Isa::avx2) fail("FMA peak: ISA must be avx512 or avx2, got ", isa_name(isa));
  if (!isa_supported(isa)) fail("FMA peak: this CPU does not support ", isa_name(isa));
  if (threads < 1) fail("FMA peak: threads must be positive, got ", threads);
  if (!(seconds > 0)) fail("FMA peak: seconds must be positive, got ", seconds);
  PeakResult result;
  result.isa = isa;
  result.vector_lanes = isa_lanes(isa);
  const double flops_per_iteration = kFmaUnroll * fma_chains(isa) * result.vector_lanes * 2.0;
  const double rate = best_rate(fma_kernel(isa), threads, seconds, &result.threads);
  result.gflops_per_thread = rate * flops_per_iteration * 1e-9;
  result.gflops = result.gflops_per_thread * result.threads;
  result.ghz = measure_core_ghz(result.threads, std::max(seconds / 4, 0.005));
  result.flops_per_cycle = result.gflops_per_thread / result.ghz;
  return result;
}

}  // namespace jitconv
