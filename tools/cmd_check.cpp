// jitconv check: one implementation against the scalar reference (and oneDNN), on
// seeded random data, one line per problem.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tools/cli_args.h"
#include "tools/conv_cases.h"

namespace jitconv {

namespace {

// Largest error allowed, relative to the scale of the sums (Errors::max_rel), by the path
// actually taken (`detail` names it, and for a dilated split its inner path): fp32 paths 1e-5;
// Winograd about 4x the worst error measured on the test grid (README, "Winograd
// accuracy"), with room for the longer reductions of real layers.
double path_tolerance(const std::string& detail) {
  if (detail.find("winograd63") != std::string::npos || detail.find("winograd53") != std::string::npos) return 1.5e-4;
  if (detail.find("winograd43") != std::string::npos) return 1e-4;
  if (detail.find("winograd23") != std::string::npos) return 1e-5;
  return 1e-5;
}

struct Errors {
  double max_abs = 0;
  double max_rel = 0;  // max_abs / scale (see compare)
  bool nan_mismatch = false;
};

// The largest |value|, NaNs left out.
double largest_magnitude(const std::vector<float>& values) {
  double largest = 0;
  for (float v : values)
    if (!std::isnan(v)) largest = std::max(largest, std::fabs(static_cast<double>(v)));
  return largest;
}

// The scale errors are relative to is the larger of the largest |expected| and
// `sums_scale`, the largest |output| of the reference convolution without its activation.
// The rounding error of a convolution grows with its sums, not with what the activation
// leaves of them: a narrow clip caps every output at 0.01 while the sums it clips, and
// their error, stay as large as without it (a steep leaky slope is the other way round).
Errors compare(const std::vector<float>& got, const std::vector<float>& expected, double sums_scale) {
  Errors e;
  const double scale = std::max(largest_magnitude(expected), sums_scale);
  for (size_t i = 0; i < got.size(); i++) {
    if (std::isnan(got[i]) != std::isnan(expected[i])) e.nan_mismatch = true;
    if (std::isnan(expected[i])) continue;
    const double diff = std::fabs(static_cast<double>(got[i]) - expected[i]);
    e.max_abs = std::isnan(diff) ? INFINITY : std::max(e.max_abs, diff);
  }
  e.max_rel = scale > 0 ? e.max_abs / scale : e.max_abs;
  return e;
}

std::vector<float> output_of(ConvRunner& runner, const ConvDesc& d) {
  std::vector<float> out(static_cast<size_t>(d.mb) * d.oc * d.oh * d.ow);
  runner.run();
  runner.get_output(out.data());
  return out;
}

struct Outcome {
  std::string algo;
  Errors worst;
  std::string status;  // PASS, FAIL or SKIP
  std::string note;
};

// Compares `got` with `expected`, keeping the worst errors and naming what failed.
void judge(Outcome& o, const std::vector<float>& got, const std::vector<float>& expected, double sums_scale,
           const std::string& against, double tolerance) {
  const Errors e = compare(got, expected, sums_scale);
  o.worst.max_abs = std::max(o.worst.max_abs, e.max_abs);
  o.worst.max_rel = std::max(o.worst.max_rel, e.max_rel);
  if (e.nan_mismatch || !(e.max_rel <= tolerance)) {
    o.status = "FAIL";
    char text[64];
    std::snprintf(text, sizeof(text), ": max rel %.3g > %.3g%s", e.max_rel, tolerance,
                  e.nan_mismatch ? " (NaN mismatch)" : "");
    o.note += (o.note.empty() ? "vs " : "; vs ") + against + text;
  }
}

// tolerance < 0: by the path taken (path_tolerance).
Outcome check_one(const ConvProblem& problem, const std::string& algo, Isa isa, int threads, double tolerance,
                  uint32_t seed) {
  Outcome o;
  o.algo = algo;
  const ConvDesc& d = problem.desc;
  const ConvData data = make_random_conv_data(d, seed);
  std::unique_ptr<ConvRunner> tested;
  try {
    tested = make_runner(problem, algo, isa, threads, data);
  } catch (const NotApplicable& e) {
    o.status = "SKIP";
    o.note = e.what();
    return o;
  }
  o.algo = tested->algo();
  if (tolerance < 0) tolerance = path_tolerance(tested->algo() + " " + tested->detail());
  std::string why_no_onednn;
  const std::vector<std::unique_ptr<ConvRunner>> onednn =
      make_onednn_runners(problem, isa, threads, data, &why_no_onednn);
  if (algo == "reference" && onednn.empty()) {
    o.status = "SKIP";
    o.note = "nothing to compare the reference with: " + why_no_onednn;
    return o;
  }
  const std::vector<float> got = output_of(*tested, d);
  o.status = "PASS";
  // No activation or relu: the sums' scale is the outputs' own (relu keeps the positive
  // half of a symmetric distribution), no second reference run needed.
  double sums_scale = 0;
  if (problem.act.type != ActivationType::none && problem.act.type != ActivationType::relu) {
    ConvProblem sums = problem;
    sums.act = Activation();
    sums_scale = largest_magnitude(output_of(*make_runner(sums, "reference", isa, threads, data), d));
  }
  if (algo != "reference") {
    std::unique_ptr<ConvRunner> reference = make_runner(problem, "reference", isa, threads, data);
    judge(o, got, output_of(*reference, d), sums_scale, "reference", tolerance);
  }
  for (const auto& runner : onednn)
    judge(o, got, output_of(*runner, d), sums_scale, runner->algo() + " (" + runner->detail() + ")", tolerance);
  return o;
}

}  // namespace

int cmd_check(const std::vector<std::string>& argv) {
  CliArgs args(
      "check", "(--conv DESC | --shapes FILE) [options]",
      "Runs a convolution algorithm and the scalar reference on seeded random data and compares them\n"
      "(and with oneDNN when built with it). One line per problem: name, descriptor, algorithm taken,\n"
      "ISA, max abs error (abs), max relative error (rel), then PASS, FAIL or SKIP and why. rel is abs\n"
      "divided by the largest |output| of the reference, or of the reference without --act when that\n"
      "is larger (not run for relu, whose largest output is the largest sum): the error of a\n"
      "convolution scales with its sums, which a bounded activation hides.\n"
      "A shape file line that does not parse is a usage error; 3-D lines are skipped.\n"
      "Exits 1 when anything failed. --algo reference compares the reference with oneDNN.",
      {{"conv", "DESC", "a problem in benchdnn notation, e.g. mb1ic64ih56oc64oh56kh3ph1 (repeatable)"},
       {"shapes", "FILE", "a file of problems, one per line, '#' comments (repeatable)"},
       {"algo", "ALGO", std::string("reference, ") + conv_algo_names() + " (default auto)"},
       {"isa", "ISA", "avx512, avx2 or scalar (default: the ISA in use)"},
       {"act", "ACT", std::string("fused activation: ") + kActForms},
       {"threads", "N", "threads (default: physical cores)"},
       {"tol", "X", "relative tolerance (default by the path taken: 1e-5; winograd43 1e-4, 53/63 1.5e-4)"},
       {"seed", "N", "random data seed (default 1; problem i uses seed + i)"}});
  if (!args.parse(argv)) {
    std::fputs(args.help_text().c_str(), stdout);
    return 0;
  }
  const std::vector<ConvCase> cases = collect_cases(args, {});
  const std::string algo = algo_option(args, "auto");
  const Isa isa = isa_option(args);
  const int threads = threads_option(args);
  const double tolerance = args.has("tol") ? args.get_double("tol", 0.0, 0.0) : -1.0;
  const int seed = args.get_int("seed", 1, 0);
  ConvProblem problem;
  problem.act = act_option(args);

  int passed = 0, failed = 0, skipped = 0;
  Progress progress(cases.size());
  for (size_t i = 0; i < cases.size(); i++) {
    const ConvCase& c = cases[i];
    progress.show(i, case_name(c));
    Outcome o;
    if (!c.skip.empty()) {
      o.algo = algo;
      o.status = "SKIP";
      o.note = c.skip;
    } else {
      problem.desc = c.desc;
      try {
        o = check_one(problem, algo, isa, threads, tolerance, static_cast<uint32_t>(seed + i));
      } catch (const Error& e) {
        o.algo = algo;
        o.status = "FAIL";
        o.note = e.what();
      }
    }
    progress.clear();
    const std::string desc = c.skip.empty() ? shape_string(c.desc) : c.text;
    if (o.status == "SKIP") {
      std::printf("%-28s %-72s algo=%-10s isa=%-6s %9s %9s  SKIP  %s\n", case_name(c).c_str(), desc.c_str(),
                  o.algo.c_str(), isa_name(isa), "-", "-", o.note.c_str());
      skipped++;
    } else {
      std::printf("%-28s %-72s algo=%-10s isa=%-6s abs=%9.3e rel=%9.3e  %s  %s\n", case_name(c).c_str(),
                  desc.c_str(), o.algo.c_str(), isa_name(isa), o.worst.max_abs, o.worst.max_rel, o.status.c_str(),
                  o.note.c_str());
      (o.status == "PASS" ? passed : failed)++;
    }
    std::fflush(stdout);
  }
  if (tolerance >= 0)
    std::printf("check: %d passed, %d failed, %d skipped (tolerance %.3g relative)\n", passed, failed, skipped, tolerance);
  else
    std::printf("check: %d passed, %d failed, %d skipped (tolerance by path: 1e-5, winograd43 1e-4, 53/63 1.5e-4)\n",
                passed, failed, skipped);
  return failed ? 1 : 0;
}

}  // namespace jitconv
