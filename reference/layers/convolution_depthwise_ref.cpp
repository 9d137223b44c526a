#include <memory>

#include "reference/layers/convolution_ref.h"

namespace jitconv {
namespace reference_layers {

std::unique_ptr<Layer> make_ConvolutionDepthWise() { return std::make_unique<ConvolutionRef>(true); }

}  // namespace reference_layers
}  // namespace jitconv
