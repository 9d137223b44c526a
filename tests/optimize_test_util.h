// Helpers for the optimizer suites: small graphs written as .param text with seeded
// weights, and running a graph before and after the passes on the same seeded inputs.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "loader/param_parser.h"
#include "reference/reference_executor.h"
#include "runtime/model_random.h"
#include "runtime/optimizer.h"
#include "tests/net_test_util.h"

namespace jitconv {
namespace test {

// Builds .param text layer by layer; the counts line is worked out from the layers.
class GraphText {
 public:
  GraphText& layer(const std::string& type, const std::string& name, const std::vector<std::string>& bottoms,
                   const std::vector<std::string>& tops, const std::string& params = "") {
    std::string line = type + " " + name + " " + std::to_string(bottoms.size()) + " " + std::to_string(tops.size());
    for (const std::string& b : bottoms) line += " " + b;
    for (const std::string& t : tops) line += " " + t;
    if (!params.empty()) line += " " + params;
    lines_.push_back(line);
    blobs_ += tops.size();
    return *this;
  }
  // An Input of shape (c, h, w); c = 0 leaves the shape undeclared.
  GraphText& input(const std::string& name, int c, int h, int w) {
    if (c == 0) return layer("Input", name, {}, {name});
    return layer("Input", name, {}, {name}, "0=" + std::to_string(w) + " 1=" + std::to_string(h) + " 2=" + std::to_string(c));
  }
  std::string str() const {
    std::string text = "7767517\n" + std::to_string(lines_.size()) + " " + std::to_string(blobs_) + "\n";
    for (const std::string& l : lines_) text += l + "\n";
    return text;
  }

 private:
  std::vector<std::string> lines_;
  size_t blobs_ = 0;
};

// The graph with seeded random weights (runtime/model_random.h).
inline ModelGraph graph_from_text(const std::string& text, uint32_t seed = 3) {
  const ParamGraph parsed = parse_param_text(text, "<test>");
  RandomWeights weights(parsed, seed);
  return load_model_graph(parsed, weights, "<test>");
}

// Every output of a loaded Net (blobs no layer reads) on seeded inputs of the declared
// shapes, sorted by name: a pass may change the order of blobs, not their names.
inline std::vector<Mat> run_sorted_outputs(const Net& net, std::vector<std::string>& names) {
  names = net.output_names();
  std::sort(names.begin(), names.end());
  Extractor ex = net.create_extractor();
  for (const NamedMat& in : declared_inputs(net)) ex.input(in.blob, in.mat);
  std::vector<Mat> outputs(names.size());
  for (size_t i = 0; i < names.size(); i++) ex.extract(names[i], outputs[i]);
  return outputs;
}

// Runs the graph through `net` (the optimized Net or the reference executor).
inline std::vector<Mat> run_graph(const ModelGraph& graph, Net& net, std::vector<std::string>& names) {
  load_into_net(graph, net);
  return run_sorted_outputs(net, names);
}

enum class Executor { packed, unpacked, reference };

inline std::vector<Mat> run_graph(const ModelGraph& graph, Executor executor, std::vector<std::string>& names) {
  if (executor == Executor::reference) {
    ReferenceExecutor reference;
    return run_graph(graph, reference, names);
  }
  Net net;
  net.opt.use_packing_layout = executor == Executor::packed;
  // fp32 weights throughout: with fp16 storage InnerProduct rounds its weights to fp16
  // (as ncnn's x86 layer does), and a folded weight rounds differently from the unfolded
  // one and the separate multiply, which is not what these comparisons are about.
  net.opt.use_fp16_storage = false;
  return run_graph(graph, net, names);
}

// The same outputs (names, shapes, values) from both graphs on each executor: bit for bit
// when tolerance is 0, else within tolerance x the largest |value| of each output.
inline void expect_equivalent(const ModelGraph& before, const ModelGraph& after, double tolerance) {
  for (Executor executor : {Executor::packed, Executor::unpacked, Executor::reference}) {
    SCOPED_TRACE(executor == Executor::packed ? "packed Net" : executor == Executor::unpacked ? "unpacked Net"
                                                                                               : "reference executor");
    std::vector<std::string> names_before, names_after;
    const std::vector<Mat> expected = run_graph(before, executor, names_before);
    const std::vector<Mat> got = run_graph(after, executor, names_after);
    ASSERT_EQ(names_after, names_before);
    if (tolerance == 0)
      expect_outputs_equal(got, expected);
    else
      expect_outputs_near(got, expected, names_before, tolerance);
  }
}

// Optimizes a copy of `graph` and returns it; the lines go to `lines`.
inline ModelGraph optimized(const ModelGraph& graph, std::vector<std::string>& lines,
                            const OptimizeOptions& options = {}) {
  ModelGraph copy = graph;
  lines = optimize_graph(copy, options).lines;
  return copy;
}

// The lines that name rewrites (not shape inference's).
inline std::vector<std::string> rewrite_lines(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const std::string& l : lines)
    if (l.compare(0, 15, "shape_inference") != 0) out.push_back(l);
  return out;
}

inline int live_count(const ModelGraph& graph, const std::string& type) {
  int n = 0;
  for (const GraphLayer& l : graph.layers) n += !l.fused && l.type == type ? 1 : 0;
  return n;
}

inline const GraphLayer& live_layer(const ModelGraph& graph, const std::string& name) {
  for (const GraphLayer& l : graph.layers)
    if (!l.fused && l.name == name) return l;
  ADD_FAILURE() << "no live layer named " << name;
  static const GraphLayer kNone;
  return kNone;
}

}  // namespace test
}  // namespace jitconv
