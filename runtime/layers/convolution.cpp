#include "runtime/layers/convolution.h"

#include <cstring>

#include "runtime/conv_autotune.h"
#include "runtime/conv_dilated.h"
#include "runtime/conv_direct.h"
#include "runtime/conv_gemm.h"
#include "runtime/conv_int8.h"
#include "runtime/conv_path.h"
#include "runtime/conv_scalar.h"
#include "runtime/conv_winograd.h"
#include "runtime/error.h"
#include "runtime/layers/elementwise_kernels.h"
#include "runtime/packing.h"

namespace jitconv {
namespace layers {

namespace {
constexpr int kBrgemmMinWidth = 16;  // output width from which k x k GEMM batch-reduces (see make_impl)
}  // namespace

std::unique_ptr<Layer> make_Convolution() { return std::make_unique<Convolution>(); }

Convolution::Convolution() {
  one_blob_only = true;
  support_packing = true;
}

void Convolution::load_param(const ParamDict& pd) {
  read_conv_params(pd);
  const std::string label = "Convolution " + name;
  check_conv_geometry(label);
  check_conv_weights(label);
  if (dynamic_weight) one_blob_only = false;
}

void Convolution::load_model(const ModelBin& mb) {
  if (dynamic_weight) return;
  weight_data = mb.load(weight_data_size, 0);
  if (weight_data.empty()) fail("Convolution ", name, ": no weight data");
  if (bias_term) bias_data = mb.load(num_output, 1);
  if (int8_scale_term) {
    weight_data_int8_scales = mb.load(num_output, 1);
    bottom_blob_int8_scales = mb.load(1, 1);
  }
  if (int8_scale_term > 100) top_blob_int8_scales = mb.load(1, 1);
}

ConvParams Convolution::params() const {
  // (A dynamic-weight layer may leave num_output and the kernel 0: no input channels then.)
  const long long per_input = weights_per_input();
  return conv_params(per_input > 0 ? static_cast<int>(weight_data_size / per_input) : 0);
}

std::unique_ptr<ConvImpl> Convolution::make_impl(const std::string& algo, const ConvParams& p, const float* weights,
                                                 const float* bias, const Option& opt) const {
  const int in_pack = opt.use_packing_layout ? preferred_elempack(isa_, p.ic) : 1;
  const int out_pack = opt.use_packing_layout ? preferred_elempack(isa_, p.oc) : 1;
  std::string why;
  if (!conv_path_applies(algo, p, isa_, &why)) fail("Convolution ", name, ": path '", algo, "' does not apply: ", why);
  // The hinted input shape tunes the paths; one no forward could run (smaller than the
  // kernel, or too large to allocate) tunes nothing.
  const bool hinted = hint_w > 0 && hint_h > 0 && p.allocatable(hint_h, hint_w);
  if (algo == "direct") {
    ConvDirect::Tuning tuning;
    tuning.prefetch_weights = opt.weights_cold;
    if (hinted) {
      int oh = 0;
      p.output_size(hint_h, hint_w, oh, tuning.expected_ow);
    }
    return std::make_unique<ConvDirect>(p, weights, bias, isa_, in_pack, out_pack, tuning);
  }
  if (algo == "gemm" || algo == "brgemm") {
    std::string form = algo == "brgemm" ? algo : "";
    if (algo == "gemm" && (p.kh > 1 || p.kw > 1)) {
      // k x k: batch-reduce over the taps on wide rows and on unpacked inputs (an im2col
      // panel of single channels costs more than the multiply); im2col's 256-pixel panels
      // on narrow outputs, where a row per call would re-read the weights for a few pixels.
      // Measured, one thread, x oneDNN (brgemm / im2col): 7x7s2 ic3 0.95/0.33, 3x3s2 ic3
      // 0.86/0.32, 5x5 40->120 @28 0.97/0.80, 3x3 64@56 0.95/0.83, 256@14 0.83/0.84,
      // 512@7 0.71/0.85; brgemm since it batches kernel rows of unpacked inputs and reads
      // the input in place: 7x7s2 ic3 0.97-1.00, 3x3s2 ic3 0.98-1.03, 5x5 0.98-1.00.
      int ow = 0;
      if (hinted) {
        int oh = 0;
        p.output_size(hint_h, hint_w, oh, ow);
      }
      form = in_pack == 1 || ow >= kBrgemmMinWidth ? "brgemm" : "im2col";
    }
    return std::make_unique<ConvGemm>(p, weights, bias, isa_, in_pack, out_pack, form);
  }
  if (algo == "winograd23" || algo == "winograd43" || algo == "winograd53" || algo == "winograd63")
    return std::make_unique<ConvWinograd>(p, weights, bias, isa_, in_pack, out_pack, algo[8] - '0');
  if (algo == "winograd63_43") return std::make_unique<ConvWinograd>(p, weights, bias, isa_, in_pack, out_pack, 6, 4);
  if (algo == "dilated") {
    // ncnn's convolution_dilation1: a dilation-1, unpadded Convolution on the same
    // weights through an in-memory ModelBin; it picks its own path (Winograd for 3x3).
    auto inner = std::make_unique<Convolution>();
    inner->name = name + "/dilation1";
    ParamDict pd;
    pd.set(0, p.oc);
    pd.set(1, p.kw);
    pd.set(11, p.kh);
    pd.set(5, p.bias ? 1 : 0);
    pd.set(6, p.oc * p.ic * p.kh * p.kw);
    pd.set(9, static_cast<int>(p.act.type));
    pd.set(10, std::vector<float>{p.act.alpha, p.act.beta});
    inner->load_param(pd);
    Mat w(p.oc * p.ic * p.kh * p.kw);
    std::memcpy(w.data, weights, w.w * sizeof(float));
    std::vector<Mat> blobs = {w};
    if (p.bias) {
      Mat b(p.oc);
      std::memcpy(b.data, bias, p.oc * sizeof(float));
      blobs.push_back(b);
    }
    inner->load_model(ModelBinFromMatArray(blobs));
    inner->force_isa = true;
    inner->forced_isa = isa_;
    inner->generate_only = generate_only;
    if (hinted) {  // the largest residue's sub-image
      const ConvPads pads = p.pads_for(hint_h, hint_w);
      inner->hint_h = (hint_h + pads.top + pads.bottom + p.dh - 1) / p.dh;
      inner->hint_w = (hint_w + pads.left + pads.right + p.dw - 1) / p.dw;
    }
    inner->create_pipeline(opt);
    const int in_pack = opt.use_packing_layout ? preferred_elempack(isa_, p.ic) : 1;
    const int out_pack = opt.use_packing_layout ? preferred_elempack(isa_, p.oc) : 1;
    return std::make_unique<ConvDilatedSplit>(p, std::move(inner), in_pack, out_pack);
  }
  if (algo == "scalar") return std::make_unique<ConvScalar>(p, weights, bias);
  fail("Convolution ", name, ": unknown path '", algo, "'");
}

void Convolution::create_pipeline(const Option& opt) {
  isa_ = force_isa ? forced_isa : current_isa();
  if (!isa_supported(isa_) && !(force_isa && generate_only))
    fail("Convolution ", name, ": ISA ", isa_name(isa_), " is not supported by this CPU");
  layer_adds_residual_ = false;
  if (fuse_residual && dynamic_weight) fail("Convolution ", name, ": a fused residual needs static weights");
  if (dynamic_weight) return;  // the weights arrive with each forward
  if (weight_data.empty())
    fail("Convolution ", name, ": no weights: create_pipeline before load_model, or again after a light-mode ",
         "create_pipeline released them (Option::lightmode)");
  if (weight_data.elemsize == 1 && !(opt.use_int8_inference && int8_scale_term))
    fail("Convolution ", name, ": int8 weights need use_int8_inference and int8 scales");
  ConvParams p = params();
  // A hinted shape no forward could run (its output or padded input cannot be allocated)
  // is dropped: forward reports the shape it gets, and no kernels are generated for it.
  if (hint_w > 0 && hint_h > 0 && !p.allocatable(hint_h, hint_w)) hint_w = hint_h = 0;
  if (fuse_residual && opt.use_int8_inference && int8_scale_term)
    fail("Convolution ", name, ": a fused residual is not supported on the int8 path");
  if (opt.use_int8_inference && int8_scale_term) {
    impl_ = make_conv_int8(*this, isa_, opt);
    choice_reason_ = "int8 weights and scales with use_int8_inference";
  } else {
    const float* bias = bias_term ? static_cast<const float*>(bias_data) : nullptr;
    std::string algo = forced_algo;
    if (!algo.empty()) {
      choice_reason_ = "forced";
    } else if (opt.use_autotune && hint_w > 0 && hint_h > 0 && isa_ != Isa::scalar && isa_supported(isa_)) {
      // (autotune times the paths: not under generate_only for an ISA this CPU lacks)
      const int in_pack = opt.use_packing_layout ? preferred_elempack(isa_, p.ic) : 1;
      const int out_pack = opt.use_packing_layout ? preferred_elempack(isa_, p.oc) : 1;
      const float* w = weight_data;
      const AutotuneResult tuned = autotune_conv_path(
          p, hint_h, hint_w, isa_, in_pack, out_pack, applicable_conv_paths(p, isa_, opt), opt,
          [&](const std::string& a) { return make_impl(a, p, w, bias, opt); });
      algo = tuned.algo;
      choice_reason_ = tuned.from_cache ? "autotune (cached)" : "autotune:";
      for (const auto& t : tuned.timings_ms) choice_reason_ += " " + t.first + "=" + std::to_string(t.second) + "ms";
    } else {
      const PathChoice choice = choose_conv_path(p, isa_, opt, hint_h, hint_w);
      algo = choice.algo;
      choice_reason_ = choice.reason;
    }
    p.residual = fuse_residual;
    impl_ = make_impl(algo, p, weight_data, bias, opt);
    if (fuse_residual && !impl_->fuses_residual()) {
      // This path's kernels cannot add it: convolve without the activation, then add the
      // residual and activate in forward_residual.
      residual_act_ = p.act;
      p.act = Activation();
      p.residual = false;
      impl_ = make_impl(algo, p, weight_data, bias, opt);
      layer_adds_residual_ = true;
    }
  }
  if (hint_w > 0 && hint_h > 0) impl_->prepare(hint_h, hint_w);
  if (opt.lightmode) weight_data.release();
}

void Convolution::destroy_pipeline(const Option& opt) { impl_.reset(); }

Mat Convolution::packed_input(const Mat& bottom_blob, const Option& opt) const {
  const ConvParams p = params();
  if (bottom_blob.dims != 3) fail("Convolution ", name, ": expects a 3-D input (c, h, w), got dims ", bottom_blob.dims);
  if (bottom_blob.c * bottom_blob.elempack != p.ic)
    fail("Convolution ", name, ": input has ", bottom_blob.c * bottom_blob.elempack, " channels, weights expect ", p.ic);
  if (bottom_blob.elemsize != 4u * bottom_blob.elempack)
    fail("Convolution ", name, ": expects fp32 input, got elemsize ", bottom_blob.elemsize);
  p.check_allocatable(bottom_blob.h, bottom_blob.w, "Convolution " + name);  // before any kernel is made for it
  Mat bottom = bottom_blob;
  if (bottom.elempack != impl_->in_elempack()) {
    Option pack_opt = opt;
    pack_opt.blob_allocator = opt.workspace_allocator;
    convert_packing(bottom_blob, bottom, impl_->in_elempack(), pack_opt);
  }
  return bottom;
}

void Convolution::check_runnable() const {
  if (!isa_supported(isa_))
    fail("Convolution ", name, ": built with generate_only for ", isa_name(isa_), ", which this CPU cannot run");
}

void Convolution::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const {
  if (!impl_) fail("Convolution ", name, ": forward before create_pipeline");
  check_runnable();
  if (fuse_residual) fail("Convolution ", name, ": built with a fused residual, needs the residual as second input");
  const ConvParams p = params();
  // A flattened 1-D blob through a 1x1 kernel is an InnerProduct (ncnn does the same).
  if (bottom_blob.dims == 1 && p.kh == 1 && p.kw == 1 && bottom_blob.w * bottom_blob.elempack == p.ic) {
    Mat as_image = bottom_blob.reshape(1, 1, bottom_blob.w, opt.workspace_allocator);
    Mat out;
    forward(as_image, out, opt);
    top_blob = out.reshape(out.c, opt.blob_allocator);
    return;
  }
  impl_->forward(packed_input(bottom_blob, opt), top_blob, opt);
}

void Convolution::forward_residual(const Mat& bottom_blob, const Mat& residual_blob, Mat& top_blob,
                                   const Option& opt) const {
  if (!impl_) fail("Convolution ", name, ": forward before create_pipeline");
  check_runnable();
  if (!fuse_residual) fail("Convolution ", name, ": was not built with a fused residual (set fuse_residual)");
  const ConvParams p = params();
  if (bottom_blob.dims == 1 && p.kh == 1 && p.kw == 1 && bottom_blob.w * bottom_blob.elempack == p.ic) {
    if (residual_blob.dims != 1 || residual_blob.w * residual_blob.elempack != p.oc)
      fail("Convolution ", name, ": residual input does not match the ", p.oc, "-value output");
    Mat out;
    forward_residual(bottom_blob.reshape(1, 1, bottom_blob.w, opt.workspace_allocator),
                     residual_blob.reshape(1, 1, residual_blob.w, opt.workspace_allocator), out, opt);
    top_blob = out.reshape(out.c, opt.blob_allocator);
    return;
  }
  const Mat bottom = packed_input(bottom_blob, opt);
  if (residual_blob.elemsize != 4u * residual_blob.elempack)
    fail("Convolution ", name, ": expects an fp32 residual, got elemsize ", residual_blob.elemsize);
  int oh, ow;
  p.output_size(bottom.h, bottom.w, oh, ow);
  if (residual_blob.dims != 3 || residual_blob.w != ow || residual_blob.h != oh ||
      residual_blob.c * residual_blob.elempack != p.oc)
    fail("Convolution ", name, ": residual input is ", residual_blob.w, "x", residual_blob.h, "x",
         residual_blob.c * residual_blob.elempack, ", the output is ", ow, "x", oh, "x", p.oc);
  Option ws = opt;
  ws.blob_allocator = opt.workspace_allocator;
  Mat residual = residual_blob;
  if (residual.elempack != impl_->out_elempack()) convert_packing(residual_blob, residual, impl_->out_elempack(), ws);
  if (residual.cstep != aligned_cstep(static_cast<size_t>(residual.w) * residual.h, residual.elemsize)) {
    Mat compact;
    compact.create(residual.w, residual.h, residual.c, residual.elemsize, residual.elempack, opt.workspace_allocator);
    for (int q = 0; q < residual.c; q++)
      memcpy(compact.channel(q).data, residual.channel(q).data, static_cast<size_t>(residual.w) * residual.h * residual.elemsize);
    residual = compact;
  }
  if (!layer_adds_residual_) {
    impl_->forward_residual(bottom, residual, top_blob, opt);
    return;
  }
  impl_->forward(bottom, top_blob, opt);
  const Mat& top = top_blob;
  const long row = static_cast<long>(top.w) * top.h * top.elempack;
  const long stride = static_cast<long>(top.cstep) * top.elempack;
#pragma omp parallel for num_threads(opt.num_threads)
  for (int q = 0; q < top.c; q++) {
    float* out = static_cast<float*>(top.data) + q * stride;
    const float* add = static_cast<const float*>(residual.data) + q * static_cast<long>(residual.cstep) * residual.elempack;
    JITCONV_SIMD_CALL_ISA(isa_, binary_row, BinaryKind::add, out, RowMode::contiguous, add, RowMode::contiguous, out, row);
  }
  UnaryOp op;
  if (unary_from_activation(residual_act_, op))
    JITCONV_SIMD_CALL_ISA(isa_, unary_inplace, op, FloatRows{static_cast<float*>(top.data), top.c, row, stride}, opt.num_threads);
}

void Convolution::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const {
  check_runnable();
  if (fuse_residual) {
    if (bottom_blobs.size() != 2)
      fail("Convolution ", name, ": a fused residual needs two inputs (data, residual), got ", bottom_blobs.size());
    top_blobs.resize(1);
    forward_residual(bottom_blobs[0], bottom_blobs[1], top_blobs[0], opt);
    return;
  }
  if (!dynamic_weight) {
    if (bottom_blobs.size() != 1) fail("Convolution ", name, ": expects one input, got ", bottom_blobs.size());
    top_blobs.resize(1);
    forward(bottom_blobs[0], top_blobs[0], opt);
    return;
  }
  const size_t want = bias_term ? 3 : 2;
  if (bottom_blobs.size() != want)
    fail("Convolution ", name, ": dynamic weights need ", want, " inputs (data, weight", bias_term ? ", bias)" : ")",
         ", got ", bottom_blobs.size());
  // ncnn's dynamic weight blob is (w=kw, h=kh, d=ic, c=oc), and its kernel size and
  // num_output are the layer's; any other shape with the right element count in OIHW
  // order is accepted with the params' kernel and num_output.
  Option plain = opt;
  plain.blob_allocator = opt.workspace_allocator;
  Mat weights;
  convert_packing(bottom_blobs[1], weights, 1, plain);
  const ConvLayerParams run = with_weight_blob(weights, "Convolution " + name);
  const Mat& input = bottom_blobs[0];
  const int ic = input.dims == 3 ? input.c * input.elempack : 0;
  const size_t count = static_cast<size_t>(weights.w) * weights.h * weights.d * weights.c;
  const size_t expected = static_cast<size_t>(run.num_output) * ic * run.kernel_w * run.kernel_h;
  if (ic <= 0 || count != expected)
    fail("Convolution ", name, ": dynamic weight blob holds ", count, " values, expected num_output*ic*kh*kw = ",
         expected);
  Mat dense = weights.reshape(static_cast<int>(count), opt.workspace_allocator);
  Mat bias;
  if (bias_term) {
    convert_packing(bottom_blobs[2], bias, 1, plain);
    bias = bias.reshape(bias.w * bias.h * bias.d * bias.c, opt.workspace_allocator);
    if (bias.w != run.num_output)
      fail("Convolution ", name, ": dynamic bias holds ", bias.w, " values, expected ", run.num_output);
  }
  ConvParams p = run.conv_params(ic);
  p.check_allocatable(input.h, input.w, "Convolution " + name);  // before any kernel is made for it
  const std::string algo = isa_ == Isa::scalar ? "scalar" : "direct";
  std::unique_ptr<ConvImpl> impl = make_impl(algo, p, dense, bias_term ? static_cast<const float*>(bias) : nullptr, opt);
  Mat in = input;
  if (in.elempack != impl->in_elempack()) convert_packing(input, in, impl->in_elempack(), plain);
  top_blobs.resize(1);
  impl->forward(in, top_blobs[0], opt);
}

std::string Convolution::describe() const {
  if (!impl_) return std::string();
  std::string text = impl_->describe() + (choice_reason_.empty() ? "" : "\n  chosen: " + choice_reason_);
  if (fuse_residual)
    text += layer_adds_residual_ ? "\n  residual: added by the layer after the convolution"
                                 : "\n  residual: fused into the kernels' epilogue";
  return text;
}

size_t Convolution::weight_bytes() const {
  return (impl_ ? impl_->weight_bytes() : 0) + weight_data.bytes() + bias_data.bytes();
}

}  // namespace layers
}  // namespace jitconv
