// Google Benchmark: jitconv and oneDNN side by side on the built-in headline shapes.
//
//   JITCONV_BENCH_THREADS=4 JITCONV_ISA=avx2 ./jitconv_bench --benchmark_filter=3x3
//
// Weights are transformed and the input converted before the timing loop, so only the
// convolution itself is timed. The oneDNN half exists when built with oneDNN.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>

#include "reference/default_shapes.h"
#include "reference/reference_runner.h"
#include "runtime/conv_runner.h"
#ifdef JITCONV_WITH_ONEDNN
#include "reference/onednn_conv.h"
#endif

namespace jitconv {
namespace {

int bench_threads() {
  const char* env = std::getenv("JITCONV_BENCH_THREADS");
  const int threads = env ? std::atoi(env) : 1;
  return threads >= 1 ? threads : 1;
}

void time_runner(benchmark::State& state, ConvRunner& runner, const ConvDesc& desc, const std::string& label) {
  runner.run();  // warm-up: first touch of the buffers
  for (auto _ : state) runner.run();
  state.counters["FLOPS"] = benchmark::Counter(desc.flops(), benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(label);
}

void bm_jitconv(benchmark::State& state, const ConvDesc& desc) {
  ConvProblem problem;
  problem.desc = desc;
  const ConvData data = make_random_conv_data(desc, 1);
  std::unique_ptr<ConvRunner> runner;
  try {
    runner = make_conv_runner(problem, "auto", current_isa(), bench_threads(), data.weights.data(), data.bias.data());
  } catch (const NotApplicable& e) {
    state.SkipWithError(e.what());
    return;
  }
  runner->set_input(data.src.data());
  time_runner(state, *runner, desc, runner->algo());
}

#ifdef JITCONV_WITH_ONEDNN
double seconds_per_run(ConvRunner& runner) {
  using Clock = std::chrono::steady_clock;
  runner.run();
  double best = 1e30;
  for (int i = 0; i < 3; i++) {
    const Clock::time_point start = Clock::now();
    runner.run();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

// The faster of oneDNN's direct_any and auto_blocked, picked by a short probe.
void bm_onednn(benchmark::State& state, const ConvDesc& desc) {
  ConvProblem problem;
  problem.desc = desc;
  const ConvData data = make_random_conv_data(desc, 1);
  std::unique_ptr<OnednnConv> best;
  double best_seconds = 0;
  std::string reasons;
  for (auto& runner : make_onednn_variants(problem, data.weights.data(), data.bias.data(), bench_threads(),
                                           current_isa(), &reasons)) {
    runner->set_input(data.src.data());
    const double seconds = seconds_per_run(*runner);
    if (!best || seconds < best_seconds) {
      best = std::move(runner);
      best_seconds = seconds;
    }
  }
  if (!best) {
    state.SkipWithError(reasons.c_str());
    return;
  }
  time_runner(state, *best, desc, best->impl_name() + "@" + best->algo());
}
#endif

}  // namespace
}  // namespace jitconv

int main(int argc, char** argv) {
  using namespace jitconv;
#ifdef JITCONV_WITH_ONEDNN
  onednn_cap_isa(current_isa());
#endif
  for (const ConvDesc& desc : default_shapes()) {
    benchmark::RegisterBenchmark(("jitconv/" + desc.name).c_str(), bm_jitconv, desc)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
#ifdef JITCONV_WITH_ONEDNN
    benchmark::RegisterBenchmark(("onednn/" + desc.name).c_str(), bm_onednn, desc)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
#endif
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
