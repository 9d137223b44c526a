// Deconvolution (ncnn): transposed 2-D convolution of a 3-D blob. Params: 0 num_output,
// 1/11 kernel_w/h, 2/12 dilation_w/h, 3/13 stride_w/h, 4/15/14/16 pad_left/right/top/
// bottom (-233/-234: SAME_UPPER/SAME_LOWER with output_w/h), 18/19 output_pad_right/
// bottom, 20/21 output_w/h, 5 bias_term, 6 weight_data_size, 9/10 fused activation.
// Weights: [num_output][num_input][kernel_h][kernel_w], then bias.
#include <memory>

#include "runtime/layers/deconvolution_core.h"

namespace jitconv {
namespace layers {

std::unique_ptr<Layer> make_Deconvolution() { return std::make_unique<DeconvolutionLayer>(false); }

}  // namespace layers
}  // namespace jitconv
