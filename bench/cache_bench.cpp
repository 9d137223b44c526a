// Google Benchmark: how long this host keeps a core's data in cache while the core does not
// touch it. On the shared VMs measured here (README, "2026-12-02 (Zen 4 again)") data left
// alone for a few milliseconds is back in memory even though nothing of ours ran, which is
// what every layer that `jitconv bench` times after oneDNN meets:
//
//   ./jitconv_bench --benchmark_filter='^host/'
//
// host/reread/KB:K/gap_us:G: a K KiB buffer is read (warm), the core spins G microseconds on
// registers only, then one timed pass reads every line of the buffer again (one word a line,
// in order).
// host/reread_after_sweep/KB:K: the same with a 16 MiB read sweep in place of the spin (our
// own traffic evicts L2; L3 keeps the buffer). bytes_per_second is the timed re-read's rate:
// about L2 speed when the lines stayed, L3 after the sweep, memory (the 64 MiB row's rate) when
// the host took them.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace jitconv {
namespace {

using Clock = std::chrono::steady_clock;

// One 8-byte word of every 64-byte line, in order; the sum keeps the loads alive.
uint64_t read_lines(const std::vector<uint64_t>& buffer) {
  uint64_t sum = 0;
  for (size_t i = 0; i < buffer.size(); i += 8) sum += buffer[i];
  return sum;
}

void spin_registers(double seconds) {
  const Clock::time_point start = Clock::now();
  uint64_t x = 1;
  while (std::chrono::duration<double>(Clock::now() - start).count() < seconds)
    for (int i = 0; i < 256; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
  benchmark::DoNotOptimize(x);
}

// args: KB, then gap_us unless `sweep`.
void bm_reread(benchmark::State& state, bool sweep) {
  const size_t bytes = static_cast<size_t>(state.range(0)) << 10;
  std::vector<uint64_t> buffer(bytes / 8, 1);
  std::vector<uint64_t> evict(sweep ? (size_t(16) << 20) / 8 : 0, 2);
  for (auto _ : state) {
    benchmark::DoNotOptimize(read_lines(buffer));
    if (sweep)
      benchmark::DoNotOptimize(read_lines(evict));
    else
      spin_registers(static_cast<double>(state.range(1)) * 1e-6);
    const Clock::time_point start = Clock::now();
    benchmark::DoNotOptimize(read_lines(buffer));
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - start).count());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
}

// The sizes run: a Winograd block's V / M, a 56x56x64 feature map, all of a layer's data.
const bool registered = [] {
  benchmark::internal::Benchmark* reread = benchmark::RegisterBenchmark("host/reread", bm_reread, false);
  benchmark::internal::Benchmark* swept = benchmark::RegisterBenchmark("host/reread_after_sweep", bm_reread, true);
  for (int kb : {256, 768, 2048}) {
    for (int gap_us : {0, 250, 1000, 4000}) reread->Args({kb, gap_us});
    swept->Arg(kb);
  }
  reread->Args({64 << 10, 0});  // 64 MiB: past any cache, memory's rate for this loop
  reread->ArgNames({"KB", "gap_us"});
  swept->ArgNames({"KB"});
  for (benchmark::internal::Benchmark* b : {reread, swept}) b->UseManualTime()->Iterations(200);
  return true;
}();

}  // namespace
}  // namespace jitconv

