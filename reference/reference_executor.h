// The reference executor: a Net whose every layer is its scalar reference
// (reference/layer_ref_registry.h), with elempack 1 and fp32 blobs throughout whatever
// `opt` says. Same API as Net (load_param, load_model, create_extractor); the tests run
// a model through both and compare the outputs.
#pragma once
#include "runtime/net.h"

namespace jitconv {

class ReferenceExecutor final : public Net {
 public:
  ReferenceExecutor();
};

}  // namespace jitconv
