// jitconv optimize: ncnnoptimize's graph rewrites, shape hints and fp32/fp16 saving.
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "runtime/optimizer.h"
#include "tools/cli_args.h"
#include "tools/model_tool.h"

namespace jitconv {

namespace {
// Whether two paths name the same file (the second need not exist yet).
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ea, eb;
  const std::filesystem::path pa = std::filesystem::weakly_canonical(a, ea), pb = std::filesystem::weakly_canonical(b, eb);
  if (ea || eb) return a == b;
  return pa == pb;
}
}  // namespace

int cmd_optimize(const std::vector<std::string>& argv) {
  CliArgs args("optimize", "IN.param IN.bin OUT.param OUT.bin [options]",
               "Rewrites an ncnn model as ncnnoptimize does: folds a Scale into the BatchNorm before it, and\n"
               "a BatchNorm, a Bias or a BinaryOp mul/add with a per-channel MemoryData into the convolution,\n"
               "deconvolution (depthwise too) or InnerProduct before it (a Scale straight after one of those\n"
               "stays a layer, as in ncnnoptimize); fuses ReLU, Clip, Sigmoid, Mish and HardSwish into that\n"
               "layer's activation, turns scalar MemoryData operands into BinaryOp scalars, removes Dropout,\n"
               "Noop, 1x1 Pooling, single-output Split and Flatten after global pooling, and replaces a 1x1\n"
               "convolution after global pooling by an InnerProduct. Each rewrite prints one line on stderr.\n"
               "Then every blob's shape is inferred by a dry run and written as -23330 shape hints (skipped,\n"
               "with a message, when an Input has no shape or a layer cannot run). Weights are written as fp32\n"
               "or fp16 (int8 weights stay int8).",
               {{"storage", "S", "fp32 (default) or fp16: how weights are stored in OUT.bin"},
                {"shape", "C,H,W", "input shape for networks with one input (default: the Input layer's)"},
                {"threads", "N", "threads for the shape-inference runs (default 1)"}},
               4);
  if (!args.parse(argv)) {
    std::fputs(args.help_text().c_str(), stdout);
    return 0;
  }
  const std::vector<std::string>& paths = args.positional();
  if (paths.size() != 4) args.usage_error("give IN.param IN.bin OUT.param OUT.bin");
  const std::string storage_name = args.get("storage", "fp32");
  if (storage_name != "fp32" && storage_name != "fp16")
    args.usage_error("--storage must be fp32 or fp16, got '" + storage_name + "'");
  const WeightStorage storage = storage_name == "fp16" ? WeightStorage::fp16 : WeightStorage::fp32;
  // The two outputs must be different files, and neither an input: the .bin is mapped
  // while the outputs are written (`o.param o.param` left the weights in o.param).
  for (int out : {2, 3})
    for (int other = 0; other < out; other++)
      if (same_file(paths[out], paths[other]))
        args.usage_error(paths[out] + " is given twice (" + (other < 2 ? "an input" : "both outputs") +
                         "): the four paths must name four files");

  ModelGraph graph = load_model_graph(paths[0], paths[1]);
  OptimizeOptions options;
  options.num_threads = args.get_int("threads", 1, 1);
  options.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  if (args.has("shape")) {
    std::vector<std::string> inputs;
    for (const GraphLayer& layer : graph.layers)
      if (layer.type == "Input")
        for (int t : layer.tops) inputs.push_back(graph.blob_names[t]);
    if (inputs.size() != 1)
      args.usage_error("--shape is for networks with one input; this one has " + std::to_string(inputs.size()));
    options.input_shapes[inputs[0]] = parse_shape(args, args.get("shape"));
  }
  optimize_graph(graph, options);
  save_model_graph(graph, paths[2], paths[3], storage);
  return 0;
}

}  // namespace jitconv
