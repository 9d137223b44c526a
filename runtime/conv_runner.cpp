#include "runtime/conv_runner.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "loader/model_bin.h"
#include "runtime/allocator.h"
#include "runtime/conv_path.h"
#include "runtime/layers/convolution.h"
#include "runtime/layers/convolution_depthwise.h"
#include "runtime/packing.h"

namespace jitconv {

const char* conv_algo_names() { return "auto, direct, gemm, brgemm, winograd23, winograd43, winograd53, winograd63, winograd63_43, dilated"; }

namespace {

// The check/bench controls both convolution layer types have.
template <typename ConvLayer>
std::unique_ptr<Layer> make_driven_layer(const std::string& algo, Isa isa, bool generate_only, const ConvDesc& d) {
  auto layer = std::make_unique<ConvLayer>();
  if (algo != "auto") layer->forced_algo = algo;
  layer->force_isa = true;
  layer->forced_isa = isa;
  layer->generate_only = generate_only;
  layer->hint_w = d.iw;
  layer->hint_h = d.ih;
  return layer;
}

// Drives one Convolution (g == 1) or ConvolutionDepthWise (g > 1) layer over a batch: the
// layer sees one image (c, h, w) at a time, as ncnn's layers do.
class LayerConvRunner final : public ConvRunner {
 public:
  LayerConvRunner(const ConvProblem& problem, const std::string& algo, Isa isa, int num_threads,
                  const float* weights, const float* bias, bool generate_only)
      : desc_(problem.desc), isa_(isa) {
    const ConvDesc& d = problem.desc;
    if (d.g != 1 && algo != "auto" && algo != "direct" && algo != "gemm" && algo != "brgemm")
      throw NotApplicable("grouped convolutions run each group on direct, gemm or brgemm, not " + algo);
    layer_ = d.g == 1 ? make_driven_layer<layers::Convolution>(algo, isa, generate_only, d)
                      : make_driven_layer<layers::ConvolutionDepthWise>(algo, isa, generate_only, d);
    opt_.num_threads = num_threads;
    opt_.lightmode = true;
    // As a Net's Extractor does (Option::use_local_pool_allocator): each timed forward
    // reuses the scratch of the one before, as oneDNN's primitives keep their scratchpad.
    opt_.workspace_allocator = &workspace_pool_;
    layer_->name = d.name.empty() ? "conv" : d.name;
    layer_->load_param(conv_layer_params(problem, bias != nullptr));
    const int weight_count = conv_weight_count(d);
    Mat w(weight_count);
    memcpy(w.data, weights, weight_count * sizeof(float));
    std::vector<Mat> blobs = {w};
    if (bias) {
      Mat b(d.oc);
      memcpy(b.data, bias, d.oc * sizeof(float));
      blobs.push_back(b);
    }
    layer_->load_model(ModelBinFromMatArray(blobs));
    layer_->create_pipeline(opt_);
    algo_ = layer_->describe().substr(0, layer_->describe().find(' '));
    inputs_.resize(d.mb);
    outputs_.resize(d.mb);
  }

  std::string algo() const override { return algo_; }
  std::string detail() const override { return layer_->describe(); }

  void set_input(const float* src) override {
    const ConvDesc& d = desc_;
    const long image = static_cast<long>(d.ic) * d.ih * d.iw;
    for (int n = 0; n < d.mb; n++) {
      Mat plain(d.iw, d.ih, d.ic);
      for (int c = 0; c < d.ic; c++)
        memcpy(plain.channel(c).data, src + n * image + static_cast<long>(c) * d.ih * d.iw,
               sizeof(float) * d.ih * d.iw);
      const int pack = opt_.use_packing_layout ? preferred_elempack(isa_, d.ic) : 1;
      convert_packing(plain, inputs_[n], pack, opt_);
    }
  }

  void run() override {
    for (size_t n = 0; n < inputs_.size(); n++) layer_->forward(inputs_[n], outputs_[n], opt_);
  }

  void get_output(float* dst) const override {
    const ConvDesc& d = desc_;
    const long image = static_cast<long>(d.oc) * d.oh * d.ow;
    for (int n = 0; n < d.mb; n++) {
      Mat plain;
      convert_packing(outputs_[n], plain, 1, opt_);
      if (plain.w != d.ow || plain.h != d.oh || plain.c != d.oc)
        fail("convolution produced ", plain.c, "x", plain.h, "x", plain.w, ", expected ", d.oc, "x", d.oh, "x", d.ow);
      for (int c = 0; c < d.oc; c++)
        memcpy(dst + n * image + static_cast<long>(c) * d.oh * d.ow, plain.channel(c).data,
               sizeof(float) * d.oh * d.ow);
    }
  }

 private:
  ConvDesc desc_;
  Isa isa_;
  PoolAllocator workspace_pool_;  // before opt_ (which points at it) and the layer
  Option opt_;
  std::unique_ptr<Layer> layer_;
  std::string algo_;
  std::vector<Mat> inputs_;
  std::vector<Mat> outputs_;
};

}  // namespace

int conv_weight_count(const ConvDesc& d) { return d.oc * (d.ic / d.g) * d.kh * d.kw; }

ParamDict conv_layer_params(const ConvProblem& problem, bool bias) {
  const ConvDesc& d = problem.desc;
  ParamDict pd;
  pd.set(0, d.oc);
  pd.set(1, d.kw);
  pd.set(11, d.kh);
  pd.set(2, d.dilation_w);
  pd.set(12, d.dilation_h);
  pd.set(3, d.sw);
  pd.set(13, d.sh);
  // benchdnn's implied bottom/right padding may be down to -(stride - 1): the output just
  // does not reach the last input rows, which zero padding computes identically.
  pd.set(4, d.pad_left);
  pd.set(15, std::max(0, d.pad_right));
  pd.set(14, d.pad_top);
  pd.set(16, std::max(0, d.pad_bottom));
  pd.set(18, problem.pad_value);
  pd.set(5, bias ? 1 : 0);
  pd.set(6, conv_weight_count(d));
  if (d.g != 1) pd.set(7, d.g);
  pd.set(9, static_cast<int>(problem.act.type));
  pd.set(10, std::vector<float>{problem.act.alpha, problem.act.beta});
  return pd;
}

std::unique_ptr<ConvRunner> make_conv_runner(const ConvProblem& problem, const std::string& algo, Isa isa,
                                             int num_threads, const float* weights, const float* bias,
                                             bool generate_only) {
  if (algo != "auto" && algo != "direct" && algo != "gemm" && algo != "brgemm" && algo != "winograd23" &&
      algo != "winograd43" && algo != "winograd53" && algo != "winograd63" && algo != "winograd63_43" &&
      algo != "dilated")
    fail("unknown algorithm '", algo, "' (expected ", conv_algo_names(), ")");
  if (!isa_supported(isa) && !generate_only) fail("ISA ", isa_name(isa), " is not supported by this CPU");
  if (algo != "auto" && isa == Isa::scalar) throw NotApplicable("the " + algo + " path needs AVX2 or AVX-512");
  if (algo != "auto" && problem.desc.g == 1) {
    ConvParams p;
    p.kh = problem.desc.kh;
    p.kw = problem.desc.kw;
    p.sh = problem.desc.sh;
    p.sw = problem.desc.sw;
    p.dh = problem.desc.dilation_h;
    p.dw = problem.desc.dilation_w;
    std::string why;
    if (!conv_path_applies(algo, p, isa, &why)) throw NotApplicable(why);
  }
  return std::make_unique<LayerConvRunner>(problem, algo, isa, num_threads, weights, bias, generate_only);
}

}  // namespace jitconv
