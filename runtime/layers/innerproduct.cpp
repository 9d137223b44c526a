// InnerProduct (ncnn): y = W x + bias with W [num_output][num_input], then the fused
// activation. Params: 0 num_output, 1 bias_term, 2 weight_data_size, 8 int8_scale_term,
// 9 activation_type, 10 activation_params. A 2-D input whose rows hold num_input values is
// multiplied row by row (output [num_output, h]); any other input is flattened in
// (c, d, h, w) order.
//
// int8 (int8_scale_term with use_int8_inference, as ncnn2int8 writes it: per-output weight
// scales and one input scale after the bias, no requantize) is ncnn's int8 convolution of a
// 1x1 kernel on the flattened input (or on the rows of a 2-D input, as pixels), so it runs
// on an inner int8 Convolution layer (runtime/conv_int8.h): the same quantization, int32
// sums and dequantization.
//
// With AVX2/AVX-512 the product runs on the JIT GEMM microkernel (runtime/innerproduct_gemm.h;
// fp16 weights when opt.use_fp16_storage and F16C, as ncnn's x86 layer); without, on the
// portable blocked kernel (innerproduct_simd.inl, W in blocks of 16 outputs).
#include <algorithm>
#include <memory>
#include <vector>

#include "loader/model_bin.h"
#include "runtime/activation.h"
#include "runtime/cpu.h"
#include "runtime/innerproduct_gemm.h"
#include "runtime/layers/convolution.h"
#include "runtime/layers/elementwise_kernels.h"
#include "runtime/layers/innerproduct_kernels.h"
#include "runtime/layers/math_util.h"

namespace jitconv {
namespace layers {

class InnerProduct final : public Layer {
 public:
  InnerProduct() {
    one_blob_only = true;
    support_inplace = false;
    support_packing = true;
  }

  void load_param(const ParamDict& pd) override {
    num_output_ = pd.get(0, 0);
    bias_term_ = pd.get(1, 0);
    weight_data_size_ = pd.get(2, 0);
    const std::string me = layer_label(*this);
    int8_scale_term_ = pd.get(8, 0);
    if (num_output_ <= 0) fail(me, ": num_output (param 0) must be positive, got ", num_output_);
    if (weight_data_size_ <= 0 || weight_data_size_ % num_output_ != 0)
      fail(me, ": weight_data_size (param 2) ", weight_data_size_, " is not a positive multiple of num_output ",
           num_output_);
    num_input_ = weight_data_size_ / num_output_;
    try {
      activation_ = Activation::from_ncnn(pd.get(9, 0), pd.get_floats(10));
    } catch (const Error& e) {
      fail(me, ": ", e.what());
    }
  }

  void load_model(const ModelBin& mb) override {
    weight_ = mb.load(weight_data_size_, 0);
    if (!int8_scale_term_ || weight_.elemsize != 1u) check_fp32_weight(*this, weight_, weight_data_size_, "weight");
    if (bias_term_) {
      bias_ = mb.load(num_output_, 1);
      check_fp32_weight(*this, bias_, num_output_, "bias");
    }
    if (int8_scale_term_) {  // ncnn's order: weight scales (one per output), the input scale
      weight_scales_ = mb.load(num_output_, 1);
      check_fp32_weight(*this, weight_scales_, num_output_, "weight_data_int8_scales");
      bottom_scale_ = mb.load(1, 1);
      check_fp32_weight(*this, bottom_scale_, 1, "bottom_blob_int8_scales");
    }
  }

  // weight layout: [blocks][num_input][16]
  void create_pipeline(const Option& opt) override {
    constexpr int B = kInnerProductBlock;
    if (weight_.empty()) {  // already packed (the originals are released below)
      if (packed_weight_.empty() && !gemm_ && !int8_) fail(layer_label(*this), ": create_pipeline before load_model");
      return;
    }
    if (int8_scale_term_ && opt.use_int8_inference) {
      create_int8_pipeline(opt);
      return;
    }
    if (weight_.elemsize != 4u)
      fail(layer_label(*this), ": int8 weights need use_int8_inference (int8_scale_term ", int8_scale_term_, ")");
    const Isa isa = current_isa();
    if (isa != Isa::scalar) {
      gemm_ = std::make_unique<InnerProductGemm>(static_cast<const float*>(weight_.data),
                                                 bias_term_ ? static_cast<const float*>(bias_.data) : nullptr,
                                                 num_output_, num_input_, activation_, isa,
                                                 opt.use_fp16_storage && cpu_info().f16c);
      weight_.release();
      return;
    }
    blocks_ = (num_output_ + B - 1) / B;
    packed_weight_.assign(static_cast<size_t>(blocks_) * num_input_ * B, 0.f);
    packed_bias_.assign(static_cast<size_t>(blocks_) * B, 0.f);
    const float* w = static_cast<const float*>(weight_.data);
    for (int p = 0; p < num_output_; p++) {
      float* dst = &packed_weight_[static_cast<size_t>(p / B) * num_input_ * B + p % B];
      for (int k = 0; k < num_input_; k++) dst[static_cast<size_t>(k) * B] = w[static_cast<size_t>(p) * num_input_ + k];
      if (bias_term_) packed_bias_[p] = bias_[p];
    }
    weight_.release();  // the packed copy is all forward needs
  }

  // Before create_pipeline the loaded originals count (the Net sizes the model from them).
  size_t weight_bytes() const override {
    if (int8_) return int8_->weight_bytes() + weight_.bytes() + bias_.bytes();
    return (gemm_ ? gemm_->weight_bytes() : (packed_weight_.size() + packed_bias_.size()) * sizeof(float)) +
           weight_.bytes() + bias_.bytes();
  }
  std::string describe() const override {
    if (int8_) return "int8: " + int8_->describe();
    return gemm_ ? gemm_->describe() : "portable blocked kernel";
  }
  void destroy_pipeline(const Option&) override {
    gemm_.reset();
    int8_.reset();
  }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    check_fp32_blob(*this, bottom);
    const bool rows_mode = rows_form(bottom);
    if (int8_) {
      if (rows_mode) {
        top = int8_rows(bottom, opt);
        return;
      }
      // Any input holding num_input values, as one dense 1-D row: the 1x1 layer's
      // InnerProduct form (flatten leaves 2-D and one-channel blobs in their shape).
      Mat flat = flatten(bottom, opt);
      if (flat.dims != 1) flat = flat.reshape(num_input_, opt.workspace_allocator);
      int8_->forward(flat, top, opt);
      return;
    }
    if (packed_weight_.empty() && !gemm_) fail(layer_label(*this), ": forward before create_pipeline");
    // Dense fp32 rows of num_input values: unpacked, channel padding removed.
    const Mat flat = rows_mode ? repack_workspace(bottom, 1, opt) : flatten(bottom, opt);
    const int rows = rows_mode ? flat.h : 1;

    // Rows of a packed input are computed unpacked in scratch, then packed into the blob.
    Mat out;
    if (rows_mode)
      out.create(num_output_, rows, 4u, 1, bottom.elempack > 1 ? opt.workspace_allocator : opt.blob_allocator);
    else
      create_blob(out, 1, num_output_, 1, 1, 1, 1, opt.blob_allocator);
    if (gemm_) {  // bias and activation fused in the kernel
      gemm_->forward(static_cast<const float*>(flat.data), num_input_, rows, static_cast<float*>(out.data), num_output_,
                     opt);
    } else {
      const InnerProductJob job{packed_weight_.data(), packed_bias_.data(), static_cast<const float*>(flat.data),
                                static_cast<long>(num_input_), static_cast<float*>(out.data),
                                static_cast<long>(num_output_), rows, num_input_, num_output_, blocks_,
                                thread_count(opt, static_cast<size_t>(rows) * num_input_ * num_output_)};
      JITCONV_SIMD_CALL(innerproduct_kernel, job);
    }
    UnaryOp act;
    if (!gemm_ && unary_from_activation(activation_, act)) {
      const FloatRows all{static_cast<float*>(out.data), 1, static_cast<long>(num_output_) * rows, 0};
      JITCONV_SIMD_CALL(unary_inplace, act, all, thread_count(opt, static_cast<size_t>(num_output_) * rows));
    }

    if (rows_mode) {
      top = bottom.elempack > 1 ? repack_blob(out, bottom.elempack, opt) : out;  // rows pack like the input's
      return;
    }
    // A 1-D blob packs along w: the same dense floats under another elempack.
    const int lanes = output_elempack(opt, num_output_);
    out.w = num_output_ / lanes;
    out.elempack = lanes;
    out.elemsize = 4u * lanes;
    out.cstep = out.w;
    top = out;
  }

 private:
  // The input's scalars in (c, d, h, w) order as one dense row.
  Mat flatten(const Mat& bottom, const Option& opt) const {
    const size_t count = static_cast<size_t>(bottom.w) * bottom.h * bottom.d * bottom.c * bottom.elempack;
    if (count != static_cast<size_t>(num_input_))
      fail(layer_label(*this), ": input holds ", count, " values (", bottom.dims, "-D ", bottom.w, "x", bottom.h, "x",
           bottom.d, "x", bottom.c * (bottom.dims >= 3 ? bottom.elempack : 1), "), num_input is ", num_input_);
    if (bottom.dims == 1) return bottom;
    const Mat unpacked = repack_workspace(bottom, 1, opt);
    if (unpacked.dims == 2 || unpacked.c == 1) return unpacked;
    Mat dense(num_input_, 4u, 1, opt.workspace_allocator);
    const size_t plane = plane_elements(unpacked);
    for (int q = 0; q < unpacked.c; q++)
      std::copy(channel_ptr(unpacked, q), channel_ptr(unpacked, q) + plane, static_cast<float*>(dense.data) + q * plane);
    return dense;
  }

  // int8 rows: ncnn's forward_int8 quantizes the whole blob with the one input scale and
  // multiplies row by row, which is the 1x1 int8 convolution of an image whose pixels are
  // the rows: [rows][num_input] is transposed into num_input planes of `rows` pixels, and
  // the (num_output, 1, rows) result back into rows of num_output values.
  Mat int8_rows(const Mat& bottom, const Option& opt) const {
    const Mat rows = repack_workspace(bottom, 1, opt);
    const int n = rows.h;
    Mat image(n, 1, num_input_, 4u, 1, opt.workspace_allocator);
    for (int k = 0; k < num_input_; k++) {
      float* plane = channel_ptr(image, k);
      for (int r = 0; r < n; r++) plane[r] = rows.row(r)[k];
    }
    Mat products;
    int8_->forward(image, products, opt);
    const Mat planes = repack_workspace(products, 1, opt);
    Mat out(num_output_, n, 4u, 1, bottom.elempack > 1 ? opt.workspace_allocator : opt.blob_allocator);
    for (int o = 0; o < num_output_; o++) {
      const float* plane = channel_ptr(planes, o);
      for (int r = 0; r < n; r++) out.row(r)[o] = plane[r];
    }
    return bottom.elempack > 1 ? repack_blob(out, bottom.elempack, opt) : out;  // rows pack like the input's
  }

  // A 2-D input of several rows gives one output row each; a single row is flattened and
  // gives a 1-D blob, as in ncnn (`dims == 2 && w == num_input && h > 1`).
  bool rows_form(const Mat& bottom) const {
    return bottom.dims == 2 && bottom.w == num_input_ && bottom.h * bottom.elempack > 1;
  }

  void create_int8_pipeline(const Option& opt) {
    ParamDict pd;
    pd.set(0, num_output_);
    pd.set(1, 1);
    pd.set(5, bias_term_);
    pd.set(6, weight_data_size_);
    pd.set(8, 1);  // per-output-channel weight scales, no requantize
    pd.set(9, static_cast<int>(activation_.type));
    pd.set(10, std::vector<float>{activation_.alpha, activation_.beta});
    auto conv = std::make_unique<Convolution>();
    conv->name = name + " (int8 1x1)";
    conv->load_param(pd);
    std::vector<Mat> blobs = {weight_};
    if (bias_term_) blobs.push_back(bias_);
    blobs.push_back(weight_scales_);
    blobs.push_back(bottom_scale_);
    conv->load_model(ModelBinFromMatArray(blobs));
    Option conv_opt = opt;
    conv_opt.lightmode = true;  // the inner layer keeps only its packed weights
    conv->create_pipeline(conv_opt);
    int8_ = std::move(conv);
    weight_.release();
  }

  int num_output_ = 0, bias_term_ = 0, weight_data_size_ = 0, num_input_ = 0, blocks_ = 0, int8_scale_term_ = 0;
  Activation activation_;
  Mat weight_, bias_;
  Mat weight_scales_, bottom_scale_;  // int8_scale_term
  std::unique_ptr<Convolution> int8_;  // int8 inference
  std::vector<float> packed_weight_, packed_bias_;
  std::unique_ptr<InnerProductGemm> gemm_;  // AVX2 / AVX-512
};

std::unique_ptr<Layer> make_InnerProduct() { return std::make_unique<InnerProduct>(); }

}  // namespace layers
}  // namespace jitconv
