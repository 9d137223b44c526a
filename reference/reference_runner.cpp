#include "reference/reference_runner.h"

#include <algorithm>
#include <random>

#include "reference/conv_ref.h"

namespace jitconv {

namespace {

class ReferenceRunner final : public ConvRunner {
 public:
  ReferenceRunner(const ConvProblem& problem, int num_threads, const float* weights, const float* bias)
      : problem_(problem), num_threads_(num_threads < 1 ? 1 : num_threads) {
    const ConvDesc& d = problem.desc;
    weights_.assign(weights, weights + static_cast<size_t>(d.oc) * (d.ic / d.g) * d.kh * d.kw);
    if (bias) bias_.assign(bias, bias + d.oc);
    src_.resize(static_cast<size_t>(d.mb) * d.ic * d.ih * d.iw);
    dst_.resize(static_cast<size_t>(d.mb) * d.oc * d.oh * d.ow);
  }

  std::string algo() const override { return "reference"; }
  void set_input(const float* src_nchw) override { src_.assign(src_nchw, src_nchw + src_.size()); }
  void run() override {
    reference_conv2d(problem_.desc, src_.data(), weights_.data(), bias_.empty() ? nullptr : bias_.data(),
                     dst_.data(), problem_.act, problem_.pad_value, num_threads_);
  }
  void get_output(float* dst_nchw) const override { std::copy(dst_.begin(), dst_.end(), dst_nchw); }

 private:
  ConvProblem problem_;
  int num_threads_;
  std::vector<float> weights_, bias_, src_, dst_;
};

std::vector<float> uniform(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

}  // namespace

std::unique_ptr<ConvRunner> make_reference_conv_runner(const ConvProblem& problem, int num_threads,
                                                       const float* weights, const float* bias) {
  return std::unique_ptr<ConvRunner>(new ReferenceRunner(problem, num_threads, weights, bias));
}

ConvData make_random_conv_data(const ConvDesc& d, uint32_t seed) {
  std::mt19937 rng(seed);
  ConvData data;
  data.src = uniform(static_cast<size_t>(d.mb) * d.ic * d.ih * d.iw, rng);
  data.weights = uniform(static_cast<size_t>(d.oc) * (d.ic / d.g) * d.kh * d.kw, rng);
  data.bias = uniform(static_cast<size_t>(d.oc), rng);
  data.dst.assign(static_cast<size_t>(d.mb) * d.oc * d.oh * d.ow, 0.f);
  return data;
}

}  // namespace jitconv
