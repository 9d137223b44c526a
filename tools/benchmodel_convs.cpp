#include "tools/benchmodel_convs.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "reference/reference_runner.h"
#include "runtime/layers/convolution.h"
#include "tools/conv_cases.h"

namespace jitconv {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Runs per sample are batched to at least this long so small layers are not timer noise.
constexpr double kMinSampleSeconds = 2e-4;
constexpr int kMinRounds = 5;
constexpr int kMaxRounds = 1000;

// Median seconds per run of each runner; rounds alternate between them so a noisy phase
// of the machine hits all alike.
std::vector<double> time_runners(const std::vector<ConvRunner*>& runners, double min_seconds) {
  std::vector<int> batch;
  for (ConvRunner* r : runners) {
    r->run();
    const Clock::time_point start = Clock::now();
    r->run();
    batch.push_back(static_cast<int>(std::min(1000.0, std::ceil(kMinSampleSeconds / std::max(seconds_since(start), 1e-9)))));
  }
  std::vector<std::vector<double>> samples(runners.size());
  const Clock::time_point begin = Clock::now();
  for (int round = 0; round < kMaxRounds; round++) {
    for (size_t i = 0; i < runners.size(); i++) {
      const Clock::time_point start = Clock::now();
      for (int b = 0; b < batch[i]; b++) runners[i]->run();
      samples[i].push_back(seconds_since(start) / batch[i]);
    }
    if (round + 1 >= kMinRounds && seconds_since(begin) >= min_seconds) break;
  }
  std::vector<double> medians;
  for (std::vector<double>& s : samples) {
    std::sort(s.begin(), s.end());
    const size_t n = s.size();
    medians.push_back(n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]));
  }
  return medians;
}

struct Timing {
  std::string algo, onednn_impl, note;
  double jitconv_ms = NAN, onednn_ms = NAN;
};

Timing time_problem(const ConvProblem& problem, Isa isa, int threads, double min_seconds) {
  Timing t;
  const ConvData data = make_random_conv_data(problem.desc, 1);
  std::vector<ConvRunner*> timed;
  std::unique_ptr<ConvRunner> jit;
  try {
    jit = make_runner(problem, "auto", isa, threads, data);
    t.algo = jit->algo();
    timed.push_back(jit.get());
  } catch (const NotApplicable& e) {
    t.note = e.what();
  }
  std::string why_none;
  const std::vector<std::unique_ptr<ConvRunner>> onednn = make_onednn_runners(problem, isa, threads, data, &why_none);
  if (onednn.empty()) t.note += (t.note.empty() ? "" : "; ") + why_none;
  for (const auto& r : onednn) timed.push_back(r.get());
  if (timed.empty()) return t;
  const std::vector<double> seconds = time_runners(timed, min_seconds);
  size_t next = 0;
  if (jit) t.jitconv_ms = seconds[next++] * 1e3;
  for (const auto& r : onednn) {
    const double ms = seconds[next++] * 1e3;
    if (!(ms >= t.onednn_ms)) {
      t.onednn_ms = ms;
      t.onednn_impl = r->detail();
    }
  }
  return t;
}

std::string problem_key(const ConvProblem& p) {
  ConvDesc unnamed = p.desc;
  unnamed.name.clear();
  return to_string(unnamed) + "|" + p.act.kernel_tag() + "|" + std::to_string(p.pad_value);
}

}  // namespace

void compare_convolutions(const Net& net, const std::vector<Mat>& blob_shapes, Isa isa, int threads,
                          double min_seconds) {
  std::printf("  %-24s %-58s %-10s %10s %10s %8s  %s\n", "layer", "shape", "algo", "jitconv ms", "onednn ms", "speedup",
              "onednn impl");
  std::map<std::string, Timing> measured;  // repeated geometries are timed once
  double jit_total = 0, onednn_total = 0;
  int rows = 0;
  for (size_t i = 0; i < net.layer_count(); i++) {
    const auto* conv = dynamic_cast<const layers::Convolution*>(&net.layer(i));
    if (!conv || conv->dynamic_weight || conv->bottoms.empty()) continue;
    const Mat& in = blob_shapes[conv->bottoms[0]];
    if (in.dims != 3) continue;
    const ConvParams p = conv->params();
    ConvProblem problem;
    ConvDesc& d = problem.desc;
    d.name = conv->name;
    d.mb = 1;
    d.ic = in.c * in.elempack;
    d.ih = in.h;
    d.iw = in.w;
    d.oc = p.oc;
    d.kh = p.kh;
    d.kw = p.kw;
    d.sh = p.sh;
    d.sw = p.sw;
    d.dilation_h = p.dh;
    d.dilation_w = p.dw;
    const ConvPads pads = p.pads_for(d.ih, d.iw);
    d.pad_top = pads.top;
    d.pad_left = pads.left;
    d.pad_bottom = pads.bottom;
    d.pad_right = pads.right;
    p.output_size(d.ih, d.iw, d.oh, d.ow);
    problem.act = p.act;
    problem.pad_value = p.pad_value;
    const std::string key = problem_key(problem);
    auto it = measured.find(key);
    if (it == measured.end()) it = measured.emplace(key, time_problem(problem, isa, threads, min_seconds)).first;
    const Timing& t = it->second;
    ConvDesc unnamed = d;
    unnamed.name.clear();
    char speedup[16] = "-";
    if (std::isfinite(t.jitconv_ms) && std::isfinite(t.onednn_ms))
      std::snprintf(speedup, sizeof(speedup), "%.2fx", t.onednn_ms / t.jitconv_ms);
    std::printf("  %-24s %-58s %-10s %10.4f %10.4f %8s  %s%s%s\n", d.name.c_str(), to_string(unnamed).c_str(),
                t.algo.c_str(), t.jitconv_ms, t.onednn_ms, speedup, t.onednn_impl.c_str(), t.note.empty() ? "" : "  ",
                t.note.c_str());
    if (std::isfinite(t.jitconv_ms)) jit_total += t.jitconv_ms;
    if (std::isfinite(t.onednn_ms)) onednn_total += t.onednn_ms;
    rows++;
  }
  if (rows == 0) {
    std::printf("  (no Convolution layers with a 3-D input)\n");
    return;
  }
  std::printf("  %-24s %-58s %-10s %10.3f %10.3f %7.2fx\n", "total", "", "", jit_total, onednn_total,
              jit_total > 0 ? onednn_total / jit_total : NAN);
}

}  // namespace jitconv
