#include "tools/conv_cases.h"

#include <unistd.h>

#include <cstdio>
#include <sstream>

#include "runtime/option.h"
#ifdef JITCONV_WITH_ONEDNN
#include "reference/onednn_conv.h"
#endif

namespace jitconv {

const char kActForms[] =
    "none, relu, leaky[:SLOPE], clip[:MIN:MAX], sigmoid, mish, hardswish[:A:B]; finite numbers, clip MIN <= MAX";

std::vector<ConvCase> collect_cases(const CliArgs& args, const std::vector<ConvDesc>& defaults) {
  std::vector<ConvCase> cases;
  for (const std::string& text : args.get_all("conv")) {
    ConvCase c;
    c.origin = "--conv";
    c.text = text;
    try {
      c.desc = parse_conv_desc(text);
    } catch (const Error& e) {
      args.usage_error(std::string("--conv ") + e.what());
    }
    cases.push_back(c);
  }
  // A 3-D line is a valid benchdnn problem jitconv has no kernels for: a SKIP, as the shared
  // sets hold some. Any other line that does not parse is a mistake in the file, and a typo
  // in a CI shapes file must not pass: every such line is named, then it is a usage error.
  std::string invalid_lines;
  for (const std::string& path : args.get_all("shapes")) {
    const std::vector<ShapeFileEntry> entries = read_shape_file(path);
    // An empty file (or a directory, which opens and reads as empty) would pass with
    // "0 passed, 0 failed": a wrong path in CI must not.
    if (entries.empty()) args.usage_error("--shapes " + path + ": no problems in it (an empty file or a directory?)");
    for (const ShapeFileEntry& entry : entries) {
      ConvCase c;
      c.origin = path + ":" + std::to_string(entry.line);
      c.text = entry.text;
      c.desc = entry.desc;
      if (!entry.error.empty()) {
        if (entry.error.find("3-D") == std::string::npos) {
          invalid_lines += "\n  " + entry.error;  // "FILE:LINE: 'text': reason"
          continue;
        }
        c.skip = "3-D problem: " + entry.error;
      }
      cases.push_back(c);
    }
  }
  if (!invalid_lines.empty()) args.usage_error("invalid descriptor in --shapes:" + invalid_lines);
  if (!args.has("conv") && !args.has("shapes")) {
    if (defaults.empty()) args.usage_error("give --conv DESC or --shapes FILE");
    for (const ConvDesc& d : defaults) {
      ConvCase c;
      c.origin = "built-in";
      c.text = to_string(d);
      c.desc = d;
      cases.push_back(c);
    }
  }
  return cases;
}

std::string case_name(const ConvCase& c) {
  if (!c.skip.empty()) return c.origin;
  return c.desc.name.empty() ? "-" : c.desc.name;
}

std::string shape_string(const ConvDesc& desc) {
  ConvDesc unnamed = desc;
  unnamed.name.clear();
  return to_string(unnamed);
}

Isa isa_option(const CliArgs& args, bool allow_unsupported) {
  Isa isa = current_isa();
  if (args.has("isa")) {
    try {
      isa = parse_isa(args.get("isa"));
    } catch (const Error& e) {
      args.usage_error(std::string("--isa: ") + e.what());
    }
  }
  if (!isa_supported(isa)) {
    if (allow_unsupported) return isa;
    fail("this CPU does not support ", isa_name(isa));
  }
#ifdef JITCONV_WITH_ONEDNN
  onednn_cap_isa(isa);
#endif
  return isa;
}

int threads_option(const CliArgs& args) { return args.get_int("threads", default_num_threads(), 1); }

Activation act_option(const CliArgs& args) {
  const std::string text = args.get("act", "none");
  try {
    return Activation::parse(text);  // checks the forms, the numbers and clip's order
  } catch (const Error& e) {
    args.usage_error("--act '" + text + "': " + e.what() + " (expected " + kActForms + ")");
  }
  return Activation();
}

std::string algo_option(const CliArgs& args, const std::string& fallback) {
  const std::string algo = args.get("algo", fallback);
  if (algo == "reference") return algo;
  std::istringstream names(conv_algo_names());
  std::string name;
  while (std::getline(names, name, ',')) {
    name.erase(0, name.find_first_not_of(' '));
    if (name == algo) return algo;
  }
  args.usage_error("unknown --algo '" + algo + "' (expected reference, " + conv_algo_names() + ")");
}

std::unique_ptr<ConvRunner> make_runner(const ConvProblem& problem, const std::string& algo, Isa isa, int threads,
                                        const ConvData& data) {
  std::unique_ptr<ConvRunner> runner =
      algo == "reference" ? make_reference_conv_runner(problem, threads, data.weights.data(), data.bias.data())
                          : make_conv_runner(problem, algo, isa, threads, data.weights.data(), data.bias.data());
  runner->set_input(data.src.data());
  return runner;
}

bool have_onednn() {
#ifdef JITCONV_WITH_ONEDNN
  return true;
#else
  return false;
#endif
}

std::vector<std::unique_ptr<ConvRunner>> make_onednn_runners(const ConvProblem& problem, Isa isa, int threads,
                                                             const ConvData& data, std::string* why_none) {
  std::vector<std::unique_ptr<ConvRunner>> runners;
#ifdef JITCONV_WITH_ONEDNN
  for (auto& variant : make_onednn_variants(problem, data.weights.data(), data.bias.data(), threads, isa, why_none)) {
    variant->set_input(data.src.data());
    runners.push_back(std::move(variant));
  }
#else
  (void)problem;
  (void)isa;
  (void)threads;
  (void)data;
  if (why_none) *why_none = "not built with oneDNN";
#endif
  return runners;
}

Progress::Progress(size_t total) : total_(total), enabled_(isatty(STDERR_FILENO) == 1) {}

void Progress::show(size_t index, const std::string& name) {
  if (enabled_) std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", index + 1, total_, name.c_str());
}

void Progress::clear() {
  if (enabled_) std::fprintf(stderr, "\r\033[K");
}

}  // namespace jitconv
