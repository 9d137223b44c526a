#include "reference/layers/deconvolution_ref.h"

namespace jitconv {
namespace reference_layers {

std::unique_ptr<Layer> make_DeconvolutionDepthWise() { return std::make_unique<DeconvolutionRef>(true); }

}  // namespace reference_layers
}  // namespace jitconv
