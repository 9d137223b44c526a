// jitconv bench: jitconv against oneDNN on the same problems, threads and process.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "jit/peak_kernel.h"
#include "reference/default_shapes.h"
#include "tools/cli_args.h"
#include "tools/conv_cases.h"

namespace jitconv {

namespace {

constexpr int kMinRounds = 5;
constexpr int kMaxRounds = 1000;
// Runs per sample are batched up to this length so tiny problems are not timer noise.
constexpr double kMinSampleSeconds = 2e-4;
constexpr double kPeakSeconds = 0.3;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Timing {
  double median;  // seconds per run(): the headline figure
  double best;    // the fastest sample: what the code does in the host's quiet moments
};

// Seconds per run() of each runner. Rounds alternate between the runners, so a slow phase
// of a shared machine hits all of them alike. On this kind of host the median and the best
// sample can differ by 30% (another tenant on the core's other hyperthread): the CSV gives
// both, as benchdnn gives min and avg.
std::vector<Timing> time_interleaved(const std::vector<ConvRunner*>& runners, double min_seconds) {
  const size_t n = runners.size();
  std::vector<int> batch(n, 1);
  for (size_t i = 0; i < n; i++) {
    runners[i]->run();  // warm-up: first-touch of buffers, lazy initialisation
    const Clock::time_point start = Clock::now();
    runners[i]->run();
    const double once = seconds_since(start);
    batch[i] = static_cast<int>(std::min(1000.0, std::ceil(kMinSampleSeconds / std::max(once, 1e-9))));
  }
  std::vector<std::vector<double>> samples(n);
  const Clock::time_point begin = Clock::now();
  for (int round = 0; round < kMaxRounds; round++) {
    for (size_t i = 0; i < n; i++) {
      const Clock::time_point start = Clock::now();
      for (int b = 0; b < batch[i]; b++) runners[i]->run();
      samples[i].push_back(seconds_since(start) / batch[i]);
    }
    if (round + 1 >= kMinRounds && seconds_since(begin) >= min_seconds) break;
  }
  std::vector<Timing> timings;
  for (const auto& s : samples) timings.push_back(Timing{median(s), *std::min_element(s.begin(), s.end())});
  return timings;
}

struct Row {
  std::string name, desc, algo, isa, impl;
  int threads = 1;
  double jitconv_ms = NAN, onednn_ms = NAN, gflops = NAN, peak_pct = NAN;
  double jitconv_best_ms = NAN, onednn_best_ms = NAN;  // fastest samples (oneDNN: of any variant)
  double speedup() const { return onednn_ms / jitconv_ms; }
  double best_speedup() const { return onednn_best_ms / jitconv_best_ms; }
};

Row bench_one(const ConvCase& c, const std::string& algo, Isa isa, int threads, double min_seconds,
              double peak_gflops, std::string* note) {
  Row row;
  row.name = case_name(c);
  row.desc = shape_string(c.desc);
  row.algo = algo;
  row.isa = isa_name(isa);
  row.threads = threads;
  ConvProblem problem;
  problem.desc = c.desc;
  const ConvData data = make_random_conv_data(c.desc, 1);
  std::vector<ConvRunner*> timed;
  std::unique_ptr<ConvRunner> jit;
  try {
    jit = make_runner(problem, algo, isa, threads, data);
    row.algo = jit->algo();
    timed.push_back(jit.get());
  } catch (const NotApplicable& e) {
    *note = std::string("jitconv ") + algo + ": " + e.what();
  }
  std::string why_no_onednn;
  const std::vector<std::unique_ptr<ConvRunner>> onednn =
      make_onednn_runners(problem, isa, threads, data, &why_no_onednn);
  if (onednn.empty()) *note += (note->empty() ? "" : "; ") + why_no_onednn;
  for (const auto& r : onednn) timed.push_back(r.get());
  if (timed.empty()) return row;
  const std::vector<Timing> seconds = time_interleaved(timed, min_seconds);
  size_t next = 0;
  if (jit) {
    row.jitconv_best_ms = seconds[next].best * 1e3;
    row.jitconv_ms = seconds[next++].median * 1e3;
    row.gflops = c.desc.flops() / (row.jitconv_ms * 1e-3) * 1e-9;
    row.peak_pct = 100.0 * row.gflops / peak_gflops;
  }
  for (const auto& r : onednn) {
    row.onednn_best_ms = std::fmin(row.onednn_best_ms, seconds[next].best * 1e3);  // fmin skips the initial NaN
    const double ms = seconds[next++].median * 1e3;
    if (!(ms >= row.onednn_ms)) {  // also replaces the initial NaN
      row.onednn_ms = ms;
      row.impl = r->detail() + "@" + r->algo().substr(std::string("onednn_").size());
    }
  }
  return row;
}

std::string number(double value, const char* format) {
  if (std::isnan(value)) return std::string();
  char text[32];
  std::snprintf(text, sizeof(text), format, value);
  return text;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char ch : s) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

const char* const kColumns[] = {"name",           "desc",           "algo",         "isa",
                                "threads",        "jitconv_ms",     "onednn_ms",    "speedup",
                                "jitconv_gflops", "peak_pct",       "jitconv_best_ms", "onednn_best_ms",
                                "best_speedup",   "onednn_impl"};

std::string join(const std::vector<std::string>& cells) {
  std::string line;
  for (size_t i = 0; i < cells.size(); i++) line += (i ? "," : "") + csv_field(cells[i]);
  return line;
}

std::string csv_header() { return join(std::vector<std::string>(std::begin(kColumns), std::end(kColumns))); }

std::vector<std::string> cells(const Row& r) {
  return {r.name,
          r.desc,
          r.algo,
          r.isa,
          std::to_string(r.threads),
          number(r.jitconv_ms, "%.4g"),
          number(r.onednn_ms, "%.4g"),
          number(r.speedup(), "%.3f"),
          number(r.gflops, "%.2f"),
          number(r.peak_pct, "%.1f"),
          number(r.jitconv_best_ms, "%.4g"),
          number(r.onednn_best_ms, "%.4g"),
          number(r.best_speedup(), "%.3f"),
          r.impl};
}

void print_table(const std::vector<Row>& rows) {
  std::vector<std::vector<std::string>> table = {std::vector<std::string>(std::begin(kColumns), std::end(kColumns))};
  for (const Row& r : rows) table.push_back(cells(r));
  std::vector<size_t> width(table[0].size(), 0);
  for (const auto& line : table)
    for (size_t i = 0; i < line.size(); i++) width[i] = std::max(width[i], line[i].size());
  for (const auto& line : table) {
    std::string text;
    for (size_t i = 0; i < line.size(); i++) {
      const bool numeric = i >= 4 && i + 1 < line.size();  // right-align the figures
      const std::string pad(width[i] - line[i].size(), ' ');
      text += (i ? "  " : "") + (numeric ? pad + line[i] : line[i] + (i + 1 < line.size() ? pad : ""));
    }
    std::printf("%s\n", text.c_str());
  }
}

}  // namespace

int cmd_bench(const std::vector<std::string>& argv) {
  CliArgs args("bench", "[--conv DESC | --shapes FILE] [options]",
               "Times jitconv and oneDNN on the same problems, threads and process: the median of interleaved\n"
               "runs after warm-up, weights already transformed for both, and the fastest run (best_*). The\n"
               "oneDNN figure is the faster of its direct_any and auto_blocked variants. Without\n"
               "--conv/--shapes: the built-in headline set.",
               {{"conv", "DESC", "a problem in benchdnn notation (repeatable)"},
                {"shapes", "FILE", "a file of problems, one per line (repeatable)"},
                {"algo", "ALGO", std::string("reference, ") + conv_algo_names() + " (default auto)"},
                {"isa", "ISA", "avx512, avx2 or scalar (default: the ISA in use); oneDNN is capped the same way"},
                {"threads", "N", "threads for both (default: physical cores)"},
                {"min-time", "S", "seconds of timed rounds per problem (default 1)"},
                {"csv", "", "print CSV: " + csv_header()}});
  if (!args.parse(argv)) {
    std::fputs(args.help_text().c_str(), stdout);
    return 0;
  }
  const std::vector<ConvCase> cases = collect_cases(args, default_shapes());
  const std::string algo = algo_option(args, "auto");
  const Isa isa = isa_option(args);
  const int threads = threads_option(args);
  const double min_seconds = args.get_double("min-time", 1.0, 0.0);
  const bool csv = args.has("csv");
  const double peak_gflops = isa == Isa::scalar ? NAN : measure_fma_peak(isa, threads, kPeakSeconds).gflops;

  if (csv) std::printf("%s\n", csv_header().c_str());
  std::vector<Row> rows;
  double log_sum = 0, log_best_sum = 0;
  int compared = 0;
  Progress progress(cases.size());
  for (size_t i = 0; i < cases.size(); i++) {
    const ConvCase& c = cases[i];
    if (!c.skip.empty()) {
      std::fprintf(stderr, "bench: skipping %s: %s\n", c.origin.c_str(), c.skip.c_str());
      continue;
    }
    progress.show(i, case_name(c));
    std::string note;
    const Row row = bench_one(c, algo, isa, threads, min_seconds, peak_gflops, &note);
    progress.clear();
    if (!note.empty()) std::fprintf(stderr, "bench: %s: %s\n", row.name.c_str(), note.c_str());
    if (std::isfinite(row.speedup())) {
      log_sum += std::log(row.speedup());
      log_best_sum += std::log(row.best_speedup());
      compared++;
    }
    if (csv) {
      std::printf("%s\n", join(cells(row)).c_str());
      std::fflush(stdout);
    }
    rows.push_back(row);
  }
  if (!csv) print_table(rows);
  std::fflush(stdout);  // the summary on stderr follows the rows, also when both go to one file
  if (compared)
    std::fprintf(stderr, "geomean speedup: %.3f (%d shapes); of the best runs: %.3f\n", std::exp(log_sum / compared),
                 compared, std::exp(log_best_sum / compared));
  else
    std::fprintf(stderr, "geomean speedup: n/a (0 shapes)\n");
  return 0;
}

}  // namespace jitconv
