// jitconv benchmodel: whole-model timing in benchncnn's format, with an optional per-layer
// profile and a per-convolution comparison with oneDNN.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/extractor.h"
#include "runtime/model_random.h"
#include "runtime/net.h"
#include "tools/benchmodel_convs.h"
#include "tools/cli_args.h"
#include "tools/conv_cases.h"
#include "tools/model_tool.h"

namespace jitconv {

namespace {

const char kEmbeddedModel[] =
#include "tools/models/resnet18_embedded.inc"
    ;
const char kEmbeddedName[] = "resnet18-embedded";

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Model {
  std::string name;
  std::string path;  // empty: the embedded model
};

// Per-layer time summed over the timed loops.
class Profile final : public LayerObserver {
 public:
  explicit Profile(size_t layers) : forward_ms(layers, 0.0), convert_ms(layers, 0.0), calls(layers, 0) {}
  void layer_done(size_t index, const Layer& layer, double convert_seconds, double forward_seconds) override {
    forward_ms[index] += forward_seconds * 1e3;
    convert_ms[index] += convert_seconds * 1e3;
    calls[index]++;
  }
  std::vector<double> forward_ms, convert_ms;
  std::vector<int> calls;
};

// One inference: a fresh extractor, seeded inputs, every output extracted.
void run_once(const Net& net, const std::vector<Mat>& inputs, const std::vector<ModelInput>& specs, int threads,
              LayerObserver* observer) {
  Extractor ex = net.create_extractor();
  ex.set_num_threads(threads);
  ex.set_observer(observer);
  for (size_t i = 0; i < specs.size(); i++) ex.input(specs[i].blob, inputs[i]);
  for (const std::string& name : net.output_names()) {
    Mat out;
    ex.extract(name, out);
  }
}

std::string format_mib(size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f MiB", bytes / (1024.0 * 1024.0));
  return text;
}

void print_profile(const Net& net, const Profile& profile, const std::vector<Mat>& shapes, int loops) {
  double total = 0;
  for (size_t i = 0; i < net.layer_count(); i++) total += profile.forward_ms[i] + profile.convert_ms[i];
  std::printf("  %3s  %-22s %-28s %-16s %10s %9s %6s %10s\n", "#", "type", "name", "output", "total ms", "avg ms", "%",
              "convert ms");
  for (size_t i = 0; i < net.layer_count(); i++) {
    if (profile.calls[i] == 0) continue;
    const Layer& layer = net.layer(i);
    const double ms = profile.forward_ms[i] + profile.convert_ms[i];
    const std::string out = layer.tops.empty() ? "-" : shape_text(shapes[layer.tops[0]]);
    std::printf("  %3zu  %-22s %-28s %-16s %10.3f %9.4f %5.1f%% %10.3f\n", i, layer.type.c_str(), layer.name.c_str(),
                out.c_str(), ms, ms / loops, total > 0 ? 100.0 * ms / total : 0.0, profile.convert_ms[i]);
    const std::string how = layer.describe();
    size_t start = 0;
    while (start < how.size()) {
      const size_t end = std::min(how.find('\n', start), how.size());
      std::printf("         %s\n", how.substr(start, end - start).c_str());
      start = end + 1;
    }
  }
  std::printf("  layers total %.3f ms over %d loops (%.3f ms per run)\n", total, loops, total / loops);
}

// Shapes of every blob after one inference (light mode off, so nothing is released).
std::vector<Mat> observe_shapes(const Net& net, const std::vector<Mat>& inputs, const std::vector<ModelInput>& specs,
                                int threads) {
  Extractor ex = net.create_extractor();
  ex.set_num_threads(threads);
  ex.set_light_mode(false);
  for (size_t i = 0; i < specs.size(); i++) ex.input(specs[i].blob, inputs[i]);
  for (const std::string& name : net.output_names()) {
    Mat out;
    ex.extract(name, out);
  }
  std::vector<Mat> shapes(net.blob_count());
  for (size_t b = 0; b < net.blob_count(); b++) {
    if (net.fused_into(static_cast<int>(b)) >= 0) continue;  // folded into a convolution: never computed
    Mat m;
    ex.extract_raw(static_cast<int>(b), m);
    shapes[b] = m;
  }
  return shapes;
}

struct BenchSettings {
  int loops = 4;
  int warmup = 8;
  int threads = 1;
  uint32_t seed = 1;
  bool profile = false;
  bool compare = false;
  double compare_seconds = 0.2;
  Isa isa = Isa::scalar;
};

void bench_model(const Model& model, const BenchSettings& s, const CliArgs& args) {
  const Clock::time_point load_start = Clock::now();
  Net net;
  net.opt.num_threads = s.threads;
  if (model.path.empty())
    net.load_param_mem(kEmbeddedModel);
  else
    net.load_param(model.path);
  RandomWeights weights(net.graph(), s.seed);
  net.load_model(weights);
  const double load_ms = ms_since(load_start);
  if (net.output_names().empty())
    fail(model.path.empty() ? "the built-in model" : model.path,
         ": the network has no output blob (every blob feeds a layer): nothing to time");

  const std::vector<ModelInput> specs = model_inputs(net, args);
  std::vector<Mat> inputs;
  for (size_t i = 0; i < specs.size(); i++) inputs.push_back(seeded_tensor(specs[i].shape, input_seed(s.seed, i)));

  for (int i = 0; i < s.warmup; i++) run_once(net, inputs, specs, s.threads, nullptr);
  Profile profile(net.layer_count());
  double min_ms = INFINITY, max_ms = 0, sum_ms = 0;
  for (int i = 0; i < s.loops; i++) {
    const Clock::time_point start = Clock::now();
    run_once(net, inputs, specs, s.threads, s.profile ? &profile : nullptr);
    const double ms = ms_since(start);
    min_ms = std::min(min_ms, ms);
    max_ms = std::max(max_ms, ms);
    sum_ms += ms;
  }
  std::printf("%20s  min = %7.2f  max = %7.2f  avg = %7.2f\n", model.name.c_str(), min_ms, max_ms, sum_ms / s.loops);
  std::fflush(stdout);

  std::vector<Mat> shapes;
  if (s.profile || s.compare) shapes = observe_shapes(net, inputs, specs, s.threads);
  if (s.profile) {
    size_t weight_bytes = 0;
    for (size_t i = 0; i < net.layer_count(); i++) weight_bytes += net.layer(i).weight_bytes();
    std::printf("\n%s: load + create_pipeline %.1f ms, transformed weights %s\n", model.name.c_str(), load_ms,
                format_mib(weight_bytes).c_str());
    print_profile(net, profile, shapes, s.loops);
    std::printf("\n");
  }
  if (s.compare) {
    std::printf("%s: each convolution alone, jitconv vs oneDNN (%d thread%s, %s)\n", model.name.c_str(), s.threads,
                s.threads == 1 ? "" : "s", isa_name(s.isa));
    compare_convolutions(net, shapes, s.isa, s.threads, s.compare_seconds);
    std::printf("\n");
  }
  std::fflush(stdout);
}

}  // namespace

int cmd_benchmodel(const std::vector<std::string>& argv) {
  CliArgs args("benchmodel", "[PARAM...] [options]",
               "Times whole ncnn models with seeded random weights (runtime/model_random.h) and seeded inputs,\n"
               "printing benchncnn's line per model: name (the file stem), min/max/avg milliseconds over\n"
               "--loops runs after --warmup runs. Without PARAM it runs a built-in ResNet-18 at 224x224 and\n"
               "also times each of its convolutions alone against oneDNN.",
               {{"loops", "N", "timed runs per model (default 4)"},
                {"warmup", "N", "untimed runs first (default 8)"},
                {"threads", "N", "threads (default: physical cores)"},
                {"isa", "ISA", "avx512, avx2 or scalar (default: the ISA in use), for jitconv and oneDNN"},
                {"seed", "N", "seed of the random weights and inputs (default 1)"},
                {"shape", "C,H,W", "input shape for single-input models (default: declared)"},
                {"profile", "", "per-layer times (summed over the loops), paths and kernels, load time, weights"},
                {"compare", "", "time every convolution alone against oneDNN (default for the built-in model)"},
                {"no-compare", "", "skip that comparison"},
                {"min-time", "S", "seconds of timed rounds per convolution in the comparison (default 0.2)"},
                {"print-model", "", "print the built-in model's .param and exit"}},
               1 << 20);
  if (!args.parse(argv)) {
    std::fputs(args.help_text().c_str(), stdout);
    return 0;
  }
  if (args.has("print-model")) {
    std::fputs(kEmbeddedModel, stdout);
    return 0;
  }
  BenchSettings s;
  s.loops = args.get_int("loops", 4, 1);
  s.warmup = args.get_int("warmup", 8, 0);
  s.threads = threads_option(args);
  s.seed = static_cast<uint32_t>(args.get_int("seed", 1, 0));
  s.profile = args.has("profile");
  s.compare_seconds = args.get_double("min-time", 0.2, 0.0);
  s.isa = isa_option(args);
  set_max_isa(s.isa);
  std::vector<Model> models;
  for (const std::string& path : args.positional()) models.push_back({model_stem(path), path});
  if (models.empty()) models.push_back({kEmbeddedName, ""});
  s.compare = !args.has("no-compare") && (args.has("compare") || args.positional().empty());
  std::printf("loop_count = %d\nnum_threads = %d\nisa = %s\nwarmup_loop_count = %d\n", s.loops, s.threads,
              isa_name(s.isa), s.warmup);
  std::fflush(stdout);
  int failed = 0;
  for (const Model& model : models) {
    try {
      bench_model(model, s, args);
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      std::fflush(stdout);
      std::fprintf(stderr, "jitconv benchmodel: %s: %s\n", model.name.c_str(), e.what());
      failed++;
    }
  }
  return failed ? 1 : 0;
}

}  // namespace jitconv
