#include <memory>

#include "reference/layers/ref_util.h"
#include "runtime/activation.h"

namespace jitconv {
namespace reference_layers {

// y[p] = act(bias[p] + sum_k W[p][k] x[k]) in double; a 2-D input whose rows hold
// num_input values gives one output row per input row.
class InnerProductRef final : public Layer {
 public:
  InnerProductRef() { one_blob_only = true; }
  void load_param(const ParamDict& pd) override {
    num_output_ = pd.get(0, 0);
    bias_term_ = pd.get(1, 0);
    size_ = pd.get(2, 0);
    int8_scale_term_ = pd.get(8, 0);
    act_ = Activation::from_ncnn(pd.get(9, 0), pd.get_floats(10));
  }
  void load_model(const ModelBin& mb) override {
    weight_ = mb.load(size_, 0);
    if (bias_term_) bias_ = mb.load(num_output_, 1);
  }
  // Like the Convolution twin: an int8 layer is refused, not run in fp32 on weights read
  // without their scales (which left the scales for the next layer's weights).
  void create_pipeline(const Option&) override {
    if (int8_scale_term_ || weight_.elemsize != 4u)
      fail(ref_label(*this), ": int8 InnerProduct has no reference yet (int8_scale_term ", int8_scale_term_, ")");
  }
  void forward(const Mat& in, Mat& out, const Option&) const override {
    check_ref_blob(*this, in);
    const int num_input = size_ / num_output_;
    const bool rows_mode = in.dims == 2 && in.w == num_input && in.h > 1;  // one row: 1-D out (ncnn)
    const int rows = rows_mode ? in.h : 1;
    // The flattened input in (c, d, h, w) order.
    std::vector<double> x;
    for (int q = 0; q < in.c; q++)
      for (int z = 0; z < in.d; z++)
        for (int y = 0; y < in.h; y++)
          for (int i = 0; i < in.w; i++) x.push_back(at(in, i, y, z, q));
    if (static_cast<int>(x.size()) != num_input * rows) fail(ref_label(*this), ": input size mismatch");
    out = rows_mode ? Mat(num_output_, rows) : Mat(num_output_);
    for (int r = 0; r < rows; r++)
      for (int p = 0; p < num_output_; p++) {
        double sum = bias_term_ ? bias_[p] : 0.0;
        for (int k = 0; k < num_input; k++) sum += weight_[static_cast<size_t>(p) * num_input + k] * x[r * num_input + k];
        static_cast<float*>(out.data)[r * num_output_ + p] = static_cast<float>(act_.apply(sum));
      }
  }

 private:
  int num_output_ = 0, bias_term_ = 0, size_ = 0, int8_scale_term_ = 0;
  Activation act_;
  Mat weight_, bias_;
};

std::unique_ptr<Layer> make_InnerProduct() { return std::make_unique<InnerProductRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
