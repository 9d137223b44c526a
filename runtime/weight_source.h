// Where a Net's layers get their weights: Net::load_model(WeightSource&) asks for one
// ModelBin per layer, in graph order, just before that layer's load_model().
#pragma once
#include <cstddef>

#include "loader/model_bin.h"
#include "loader/param_graph.h"

namespace jitconv {

class WeightSource {
 public:
  virtual ~WeightSource() = default;
  // The ModelBin layer `index` (`layer`, its .param line) loads from. The reference
  // stays valid until the next call.
  virtual const ModelBin& layer_weights(size_t index, const ParamLayer& layer) = 0;
};

}  // namespace jitconv
