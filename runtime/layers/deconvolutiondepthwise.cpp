// DeconvolutionDepthWise (ncnn): Deconvolution's params plus 7 group; weights
// [group][num_output/group][num_input/group][kernel_h][kernel_w]. group == channels ==
// num_output is the depthwise case; any other group count runs as grouped GEMMs.
#include <memory>

#include "runtime/layers/deconvolution_core.h"

namespace jitconv {
namespace layers {

std::unique_ptr<Layer> make_DeconvolutionDepthWise() { return std::make_unique<DeconvolutionLayer>(true); }

}  // namespace layers
}  // namespace jitconv
