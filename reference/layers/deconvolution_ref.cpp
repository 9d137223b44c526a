#include "reference/layers/deconvolution_ref.h"

namespace jitconv {
namespace reference_layers {

std::unique_ptr<Layer> make_Deconvolution() { return std::make_unique<DeconvolutionRef>(false); }

}  // namespace reference_layers
}  // namespace jitconv
