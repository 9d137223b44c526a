#include "reference/reference_executor.h"

#include "reference/layer_ref_registry.h"

namespace jitconv {

ReferenceExecutor::ReferenceExecutor() {
  set_layer_creator(create_reference_layer, "no scalar reference for layer type");
  plain_layout_ = true;
  opt.use_packing_layout = false;
  opt.use_fp16_storage = false;
  opt.use_bf16_storage = false;
}

}  // namespace jitconv
