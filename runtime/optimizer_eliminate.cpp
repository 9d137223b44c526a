// Passes that remove layers which do nothing here, or replace one by a cheaper layer.
#include "runtime/error.h"
#include "runtime/optimizer_pass_util.h"

namespace jitconv {

namespace {

bool one_in_one_out(const GraphLayer& layer) { return layer.bottoms.size() == 1 && layer.tops.size() == 1; }

bool is_global_pooling(const GraphLayer& layer) {
  return !layer.fused && layer.type == "Pooling" && layer.params.get(4, 0) != 0 && layer.tops.size() == 1;
}

// Bypasses every live one-in-one-out layer of `type` that `applies` accepts.
template <typename Applies>
int bypass_all(ModelGraph& graph, const char* type, const char* pass, Applies applies, OptimizeLog& log) {
  int removed = 0;
  for (size_t j = 0; j < graph.layers.size(); j++) {
    const GraphLayer& layer = graph.layers[j];
    if (layer.fused || layer.type != type || !one_in_one_out(layer) || !applies(layer)) continue;
    const int p = passes::bypass(graph, j);
    if (p < 0) continue;
    log.line(str_cat(pass, " ", graph.layers[p].name, " ", layer.name));
    removed++;
  }
  return removed;
}

}  // namespace

int eliminate_dropout(ModelGraph& graph, OptimizeLog& log) {
  // Dropout scales by 1 at inference unless told otherwise.
  return bypass_all(graph, "Dropout", "eliminate_dropout",
                    [](const GraphLayer& l) { return l.params.get(0, 1.f) == 1.f; }, log);
}

int eliminate_pooling1x1(ModelGraph& graph, OptimizeLog& log) {
  auto identity = [](const GraphLayer& l) {
    const ParamDict& pd = l.params;
    const int kernel_w = pd.get(1, 0), stride_w = pd.get(2, 1), pad_left = pd.get(3, 0);
    const int kernel_h = pd.get(11, kernel_w), stride_h = pd.get(12, stride_w);
    const int pad_right = pd.get(14, pad_left), pad_top = pd.get(13, pad_left), pad_bottom = pd.get(15, pad_top);
    return kernel_w == 1 && kernel_h == 1 && stride_w == 1 && stride_h == 1 && pad_left == 0 && pad_right == 0 &&
           pad_top == 0 && pad_bottom == 0 && pd.get(4, 0) == 0 && pd.get(7, 0) == 0;
  };
  return bypass_all(graph, "Pooling", "eliminate_pooling1x1", identity, log);
}

int eliminate_noop(ModelGraph& graph, OptimizeLog& log) {
  int removed = bypass_all(graph, "Noop", "eliminate_noop", [](const GraphLayer&) { return true; }, log);
  for (size_t j = 0; j < graph.layers.size(); j++) {
    GraphLayer& noop = graph.layers[j];
    if (noop.fused || noop.type != "Noop" || !noop.bottoms.empty()) continue;
    bool read = false;
    for (int t : noop.tops) read = read || !graph.consumers(t).empty();
    if (read) continue;  // its readers would be left without input
    log.line(str_cat("eliminate_noop ", noop.name));
    noop.fused = true;
    removed++;
  }
  return removed;
}

int eliminate_split(ModelGraph& graph, OptimizeLog& log) {
  int removed = 0;
  for (size_t j = 0; j < graph.layers.size(); j++) {
    GraphLayer& split = graph.layers[j];
    if (split.fused || split.type != "Split" || split.bottoms.size() != 1) continue;
    // Outputs nothing reads are dropped with the Split, as ncnnoptimize does.
    int read_top = -1, read_count = 0;
    for (int t : split.tops)
      if (!graph.consumers(t).empty()) {
        read_top = t;
        read_count++;
      }
    if (read_count != 1) continue;
    const std::vector<int> tops = split.tops;
    split.tops = {read_top};
    const int p = passes::bypass(graph, j);
    if (p < 0) {
      split.tops = tops;
      continue;
    }
    log.line(str_cat("eliminate_split ", graph.layers[p].name, " ", split.name));
    removed++;
  }
  return removed;
}

int eliminate_flatten_after_global_pooling(ModelGraph& graph, OptimizeLog& log) {
  int removed = 0;
  for (size_t i = 0; i < graph.layers.size(); i++) {
    if (!is_global_pooling(graph.layers[i])) continue;
    const int j = passes::sole_successor(graph, i);
    if (j < 0 || graph.layers[j].type != "Flatten") continue;
    // Global pooling already yields a 1-D blob, which Flatten leaves as it is.
    log.line(str_cat("eliminate_flatten_after_global_pooling ", graph.layers[i].name, " ", graph.layers[j].name));
    passes::absorb_successor(graph, i, j);
    removed++;
  }
  return removed;
}

int eliminate_orphaned_memorydata(ModelGraph& graph, OptimizeLog& log) {
  int removed = 0;
  for (GraphLayer& md : graph.layers) {
    if (md.fused || md.type != "MemoryData") continue;
    bool read = false;
    for (int t : md.tops) read = read || !graph.consumers(t).empty();
    if (read) continue;
    log.line(str_cat("eliminate_orphaned_memorydata ", md.name));
    md.fused = true;
    removed++;
  }
  return removed;
}

int replace_convolution_with_innerproduct_after_global_pooling(ModelGraph& graph, OptimizeLog& log) {
  const passes::WeightedInfo& info = passes::weighted_info(WeightedLayer::convolution);
  int replaced = 0;
  for (size_t i = 0; i < graph.layers.size(); i++) {
    if (!is_global_pooling(graph.layers[i])) continue;
    const int j = passes::sole_successor(graph, i);
    if (j < 0 || graph.layers[j].type != "Convolution") continue;
    GraphLayer& conv = graph.layers[j];
    const ParamDict& pd = conv.params;
    const int kernel_w = pd.get(1, 0), pad_left = pd.get(4, 0);
    const int kernel_h = pd.get(11, kernel_w), pad_right = pd.get(15, pad_left), pad_top = pd.get(14, pad_left);
    const int pad_bottom = pd.get(16, pad_top);
    if (kernel_w != 1 || kernel_h != 1 || pad_left != 0 || pad_right != 0 || pad_top != 0 || pad_bottom != 0) continue;
    passes::WeightedView view;
    if (!passes::weighted_view(graph, static_cast<size_t>(j), info, view, true)) continue;
    ParamDict ip;
    ip.set(0, view.num_output);
    ip.set(1, pd.get(5, 0));
    ip.set(2, pd.get(6, 0));
    if (pd.get(9, 0) != 0) ip.set(9, pd.get(9, 0));
    if (pd.has(10)) ip.set(10, pd.get_floats(10));
    log.line(str_cat("replace_convolution_with_innerproduct_after_global_pooling ", graph.layers[i].name, " ",
                     conv.name));
    conv.type = "InnerProduct";
    conv.params = ip;
    replaced++;
  }
  return replaced;
}

}  // namespace jitconv
