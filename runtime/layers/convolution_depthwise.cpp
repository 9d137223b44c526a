#include "runtime/layers/convolution_depthwise.h"

#include "runtime/conv_depthwise.h"
#include "runtime/conv_depthwise_grouped.h"
#include "runtime/conv_int8.h"
#include "runtime/error.h"
#include "runtime/packing.h"

namespace jitconv {
namespace layers {

std::unique_ptr<Layer> make_ConvolutionDepthWise() { return std::make_unique<ConvolutionDepthWise>(); }

ConvolutionDepthWise::ConvolutionDepthWise() {
  one_blob_only = true;
  support_packing = true;
}

std::string ConvolutionDepthWise::label() const { return "ConvolutionDepthWise " + name; }

void ConvolutionDepthWise::load_param(const ParamDict& pd) {
  read_conv_params(pd);
  group = pd.get(7, 1);
  check_conv_geometry(label());
  if (group <= 0) fail(label(), ": group (7) must be positive, got ", group);
  if (num_output % group != 0) fail(label(), ": num_output ", num_output, " is not divisible by group ", group);
  check_conv_weights(label());
  if (dynamic_weight) one_blob_only = false;
}

void ConvolutionDepthWise::load_model(const ModelBin& mb) {
  if (dynamic_weight) return;
  weight_data = mb.load(weight_data_size, 0);
  if (weight_data.empty()) fail(label(), ": no weight data");
  if (bias_term) {
    bias_data = mb.load(num_output, 1);
    if (bias_data.empty()) fail(label(), ": bias_term (5) is set but there is no bias data");
  }
  // ncnn's scale blobs: per group (1/101) or one for all (2/102); an output scale > 100.
  if (int8_scale_term == 1 || int8_scale_term == 101) {
    weight_data_int8_scales = mb.load(group, 1);
    bottom_blob_int8_scales = mb.load(1, 1);
  } else if (int8_scale_term == 2 || int8_scale_term == 102) {
    weight_data_int8_scales = mb.load(1, 1);
    bottom_blob_int8_scales = mb.load(1, 1);
  }
  if (int8_scale_term > 100) top_blob_int8_scales = mb.load(1, 1);
}

ConvParams ConvolutionDepthWise::params() const {
  const long long per_input = weights_per_input();  // 0 for a dynamic layer that leaves them to its blob
  return conv_params(per_input > 0 ? static_cast<int>(weight_data_size / per_input * group) : 0);
}

bool ConvolutionDepthWise::is_depthwise() const {
  const ConvParams p = params();
  return p.ic == group && p.oc == group;
}

std::unique_ptr<ConvImpl> ConvolutionDepthWise::make_impl(const std::string& algo, const ConvParams& p,
                                                          const float* weights, const float* bias,
                                                          const Option& opt) const {
  const int in_pack = opt.use_packing_layout ? preferred_elempack(isa_, p.ic) : 1;
  const int out_pack = opt.use_packing_layout ? preferred_elempack(isa_, p.oc) : 1;
  const bool depthwise = p.ic == group && p.oc == group;
  if (algo == "depthwise" || algo == "depthwise_loops") {
    if (!depthwise)
      fail(label(), ": path '", algo, "' needs group == channels == num_output, got group ", group, " for ", p.ic,
           " -> ", p.oc, " channels");
    return std::make_unique<ConvDepthwise>(p, weights, bias, isa_, in_pack,
                                           algo == "depthwise" ? ConvDepthwise::Kernel::automatic
                                                               : ConvDepthwise::Kernel::loops);
  }
  if (algo == "grouped" || algo == "direct" || algo == "gemm" || algo == "brgemm" || algo == "scalar")
    return std::make_unique<ConvGrouped>(p, group, weights, bias, isa_, in_pack, out_pack,
                                         algo == "grouped" ? std::string() : algo, opt, hint_h, hint_w);
  fail(label(), ": unknown path '", algo, "'");
}

void ConvolutionDepthWise::create_pipeline(const Option& opt) {
  isa_ = force_isa ? forced_isa : current_isa();
  if (!isa_supported(isa_) && !(force_isa && generate_only))
    fail(label(), ": ISA ", isa_name(isa_), " is not supported by this CPU");
  // The weights arrive with each forward, in fp32: an int8_scale_term is ignored (no scales
  // were loaded), as in ncnn and Convolution.
  if (dynamic_weight) return;
  if (weight_data.empty())
    fail(label(), ": no weights: create_pipeline before load_model, or again after a light-mode create_pipeline ",
         "released them (Option::lightmode)");
  const ConvParams p = params();
  // A hinted shape no forward could run is dropped (Convolution does the same).
  if (hint_w > 0 && hint_h > 0 && !p.allocatable(hint_h, hint_w)) hint_w = hint_h = 0;
  if (int8_scale_term && opt.use_int8_inference) {
    create_int8_pipeline(p, opt);
  } else {
    if (weight_data.elemsize != 4u)
      fail(label(), ": weights must be fp32, got elemsize ", weight_data.elemsize,
           int8_scale_term ? " (int8 weights need use_int8_inference)" : " without int8 scales");
    std::string algo = forced_algo;
    if (algo.empty()) {
      algo = is_depthwise() ? "depthwise" : "grouped";
      choice_reason_ = is_depthwise() ? "group == channels == num_output: per-channel kernels"
                                      : "group " + std::to_string(group) + ": each group on the Convolution paths";
    } else {
      choice_reason_ = "forced";
    }
    impl_ = make_impl(algo, p, weight_data, bias_term ? static_cast<const float*>(bias_data) : nullptr, opt);
  }
  if (hint_w > 0 && hint_h > 0) impl_->prepare(hint_h, hint_w);
  if (opt.lightmode) weight_data.release();
}

// ncnn's int8 ConvolutionDepthWise (int8_scale_term 1 / 101: one weight scale per group;
// 2 / 102: one for all groups; one input scale; > 100: a top scale requantizes): every
// group an int8 convolution with its group's scale (ConvGrouped's int8 runs).
void ConvolutionDepthWise::create_int8_pipeline(const ConvParams& p, const Option& opt) {
  GroupedInt8 int8;
  const float* fp32_weights = nullptr;
  try {
    const bool shared = int8_scale_term == 2 || int8_scale_term == 102;  // one scale for every group
    int8.group_scales = int8_scale_values(weight_data_int8_scales, shared ? 1 : group, "weight_data_int8_scales");
    const float first = int8.group_scales[0];
    int8.group_scales.resize(group, first);
    int8.bottom = int8_scale_values(bottom_blob_int8_scales, 1, "bottom_blob_int8_scales")[0];
    int8.requantize = int8_scale_term > 100;
    if (int8.requantize) int8.top = int8_scale_values(top_blob_int8_scales, 1, "top_blob_int8_scales")[0];
    if (weight_data.elemsize == 1u)
      int8.weights = static_cast<const int8_t*>(weight_data.data);
    else if (weight_data.elemsize == 4u)
      fp32_weights = weight_data;  // quantized per group by the runs, as ncnn does at load
    else
      fail("weights must be int8 or fp32, got elemsize ", weight_data.elemsize);
  } catch (const Error& e) {
    fail(label(), ": ", e.what());
  }
  const int in_pack = opt.use_packing_layout ? preferred_elempack(isa_, p.ic) : 1;
  const int out_pack = opt.use_packing_layout ? preferred_elempack(isa_, p.oc) : 1;
  impl_ = std::make_unique<ConvGrouped>(p, group, fp32_weights, bias_term ? static_cast<const float*>(bias_data) : nullptr,
                                        isa_, in_pack, out_pack, std::string(), opt, hint_h, hint_w, &int8);
  choice_reason_ = "int8 weights and scales with use_int8_inference: each group an int8 convolution";
}

void ConvolutionDepthWise::check_runnable() const {
  if (!isa_supported(isa_))
    fail(label(), ": built with generate_only for ", isa_name(isa_), ", which this CPU cannot run");
}

void ConvolutionDepthWise::destroy_pipeline(const Option& opt) { impl_.reset(); }

void ConvolutionDepthWise::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const {
  if (!impl_) fail(label(), ": forward before create_pipeline");
  check_runnable();
  const ConvParams p = params();
  if (bottom_blob.dims != 3) fail(label(), ": expects a 3-D input (c, h, w), got dims ", bottom_blob.dims);
  if (bottom_blob.c * bottom_blob.elempack != p.ic)
    fail(label(), ": input has ", bottom_blob.c * bottom_blob.elempack, " channels, weights expect ", p.ic);
  if (bottom_blob.elemsize != 4u * bottom_blob.elempack)
    fail(label(), ": expects fp32 input, got elemsize ", bottom_blob.elemsize);
  p.check_allocatable(bottom_blob.h, bottom_blob.w, label());  // before any kernel is made for it
  Mat bottom = bottom_blob;
  if (bottom.elempack != impl_->in_elempack()) {
    Option pack_opt = opt;
    pack_opt.blob_allocator = opt.workspace_allocator;
    convert_packing(bottom_blob, bottom, impl_->in_elempack(), pack_opt);
  }
  impl_->forward(bottom, top_blob, opt);
}

void ConvolutionDepthWise::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs,
                                   const Option& opt) const {
  check_runnable();
  if (!dynamic_weight) {
    if (bottom_blobs.size() != 1) fail(label(), ": expects one input, got ", bottom_blobs.size());
    top_blobs.resize(1);
    forward(bottom_blobs[0], top_blobs[0], opt);
    return;
  }
  const size_t want = bias_term ? 3 : 2;
  if (bottom_blobs.size() != want)
    fail(label(), ": dynamic weights need ", want, " inputs (data, weight", bias_term ? ", bias)" : ")", ", got ",
         bottom_blobs.size());
  const Mat& input = bottom_blobs[0];
  if (input.dims != 3) fail(label(), ": expects a 3-D input (c, h, w), got dims ", input.dims);
  if (input.elemsize != 4u * input.elempack) fail(label(), ": expects fp32 input, got elemsize ", input.elemsize);
  const int ic = input.c * input.elempack;
  if (ic % group != 0) fail(label(), ": input has ", ic, " channels, not divisible by group ", group);
  Option plain = opt;
  plain.blob_allocator = opt.workspace_allocator;
  Mat weights;
  convert_packing(bottom_blobs[1], weights, 1, plain);
  const ConvLayerParams run = with_weight_blob(weights, label());  // kernel and num_output of a 4-D blob
  if (run.num_output % group != 0)
    fail(label(), ": num_output ", run.num_output, " of the weight blob is not divisible by group ", group);
  const size_t count = static_cast<size_t>(weights.w) * weights.h * weights.d * weights.c;
  const size_t expected = static_cast<size_t>(run.num_output) * (ic / group) * run.kernel_w * run.kernel_h;
  if (count != expected)
    fail(label(), ": dynamic weight blob holds ", count, " values, expected num_output*(ic/group)*kh*kw = ", expected);
  if (weights.elemsize != 4u) fail(label(), ": dynamic weights must be fp32, got elemsize ", weights.elemsize);
  Mat dense = weights.reshape(static_cast<int>(count), opt.workspace_allocator);
  Mat bias;
  if (bias_term) {
    convert_packing(bottom_blobs[2], bias, 1, plain);
    bias = bias.reshape(bias.w * bias.h * bias.d * bias.c, opt.workspace_allocator);
    if (bias.w != run.num_output) fail(label(), ": dynamic bias holds ", bias.w, " values, expected ", run.num_output);
  }
  ConvParams p = run.conv_params(ic);
  const std::string algo = p.ic == group && p.oc == group ? "depthwise" : "grouped";
  std::unique_ptr<ConvImpl> impl =
      make_impl(algo, p, dense, bias_term ? static_cast<const float*>(bias) : nullptr, opt);
  Mat in = input;
  if (in.elempack != impl->in_elempack()) convert_packing(input, in, impl->in_elempack(), plain);
  top_blobs.resize(1);
  impl->forward(in, top_blobs[0], opt);
}

std::string ConvolutionDepthWise::describe() const {
  if (!impl_) return std::string();
  return impl_->describe() + (choice_reason_.empty() ? "" : "\n  chosen: " + choice_reason_);
}

size_t ConvolutionDepthWise::weight_bytes() const {
  return (impl_ ? impl_->weight_bytes() : 0) + weight_data.bytes() + bias_data.bytes();
}

}  // namespace layers
}  // namespace jitconv
