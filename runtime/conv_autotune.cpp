#include "runtime/conv_autotune.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>

#include "runtime/allocator.h"
#include "runtime/error.h"

namespace jitconv {

namespace {

struct Cache {
  std::mutex mutex;
  bool file_loaded = false;
  std::map<std::string, std::string> decisions;
};

Cache& cache() {
  static Cache c;
  return c;
}

const char* cache_file() {
  const char* path = std::getenv("JITCONV_TUNE_CACHE");
  return path && *path ? path : nullptr;
}

void load_file_locked(Cache& c) {
  if (c.file_loaded) return;
  c.file_loaded = true;
  const char* path = cache_file();
  if (!path) return;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t space = line.rfind(' ');
    if (line.empty() || line[0] == '#' || space == std::string::npos) continue;
    c.decisions[line.substr(0, space)] = line.substr(space + 1);
  }
}

void append_file(const std::string& key, const std::string& algo) {
  const char* path = cache_file();
  if (!path) return;
  std::ofstream out(path, std::ios::app);
  if (!out) {
    std::fprintf(stderr, "jitconv: JITCONV_TUNE_CACHE: cannot write %s\n", path);
    return;
  }
  out << key << ' ' << algo << '\n';
}

}  // namespace

std::string autotune_key(const ConvParams& p, int ih, int iw, Isa isa, int threads, int in_pack, int out_pack) {
  std::ostringstream os;
  os << "ic" << p.ic << "_oc" << p.oc << "_k" << p.kh << "x" << p.kw << "_s" << p.sh << "x" << p.sw << "_d" << p.dh
     << "x" << p.dw << "_p" << p.pad_top << "," << p.pad_left << "," << p.pad_bottom << "," << p.pad_right << "_in"
     << ih << "x" << iw << "_" << isa_name(isa) << "_t" << threads << "_e" << in_pack << "to" << out_pack;
  if (p.act.type != ActivationType::none) os << "_" << p.act.kernel_tag();
  return os.str();
}

void autotune_reset_cache() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.decisions.clear();
  c.file_loaded = false;
}

AutotuneResult autotune_conv_path(const ConvParams& p, int ih, int iw, Isa isa, int in_pack, int out_pack,
                                  const std::vector<std::string>& candidates, const Option& opt,
                                  const std::function<std::unique_ptr<ConvImpl>(const std::string&)>& make) {
  if (candidates.empty()) fail("autotune: no applicable path for ", p.to_string());
  const std::string key = autotune_key(p, ih, iw, isa, opt.num_threads, in_pack, out_pack);
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    load_file_locked(c);
    auto it = c.decisions.find(key);
    if (it != c.decisions.end())
      for (const std::string& cand : candidates)
        if (cand == it->second) return AutotuneResult{cand, true, {}};
  }
  // Time each candidate on a seeded random input of the real shape: one warm-up run
  // (kernel generation, first-touch of buffers), then the best of a few.
  Mat input(iw, ih, p.ic / in_pack, 4u * in_pack, in_pack);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  float* x = input;
  for (size_t i = 0; i < input.total() * in_pack; i++) x[i] = dist(rng);
  // Scratch from a pool, as a Net's forwards get it: otherwise each timed run of a path
  // with a large workspace pays fresh pages.
  PoolAllocator pool;
  Option timing_opt = opt;
  if (!timing_opt.workspace_allocator) timing_opt.workspace_allocator = &pool;
  // Every candidate built and warmed up first (kernel generation, first touch of buffers),
  // then timed in interleaved rounds, each run after another path's as in a network, and
  // judged by its median: the fastest of a few runs back to back favours the paths with the
  // most data to stream, whose best run (the caches warm from the run before) hides what a
  // run among other layers costs (F(6,3) with F(4,3) borders at 128@28: best runs 3.43x
  // oneDNN against F(4,3)'s 3.33x, medians 2.53x against 2.82x).
  struct Candidate {
    std::string algo;
    std::unique_ptr<ConvImpl> impl;
    Mat out;  // kept between runs: no timed run allocates its output
    std::vector<double> ms;
  };
  std::vector<Candidate> built;
  for (const std::string& algo : candidates) {
    std::unique_ptr<ConvImpl> impl;
    try {
      impl = make(algo);
    } catch (const Error&) {
      continue;
    }
    if (impl->in_elempack() != in_pack) continue;
    Candidate cand{algo, std::move(impl), Mat(), {}};
    cand.impl->forward(input, cand.out, timing_opt);
    built.push_back(std::move(cand));
  }
  constexpr int kRounds = 5;
  for (int round = 0; round < kRounds; round++)
    for (Candidate& cand : built) {
      const auto t0 = std::chrono::steady_clock::now();
      cand.impl->forward(input, cand.out, timing_opt);
      cand.ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  AutotuneResult result;
  double best = 1e300;
  for (Candidate& cand : built) {
    std::sort(cand.ms.begin(), cand.ms.end());
    const double median = cand.ms[cand.ms.size() / 2];
    result.timings_ms.emplace_back(cand.algo, median);
    if (median < best) {
      best = median;
      result.algo = cand.algo;
    }
  }
  if (result.algo.empty()) fail("autotune: every candidate failed for ", p.to_string());
  std::lock_guard<std::mutex> lock(c.mutex);
  if (c.decisions.emplace(key, result.algo).second) append_file(key, result.algo);
  return result;
}

}  // namespace jitconv
