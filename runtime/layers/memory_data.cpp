// MemoryData: a constant blob stored in the model. Params 0/1/11/2 = w/h/d/c give its
// shape: 4-D when d is set, else 3-D when c is, else 2-D when h is, else 1-D (as ncnn).
// Param 21 = load type: 1 (default) = raw fp32 without a flag word, as ncnn writes it;
// 0 = with the storage flag (fp16 / quantized data decoded to fp32).
#include <memory>
#include <vector>

#include "runtime/layers/data_shape.h"

namespace jitconv {
namespace layers {

namespace {

class MemoryData final : public Layer {
 public:
  MemoryData() {
    one_blob_only = false;
    support_inplace = false;
  }

  void load_param(const ParamDict& pd) override {
    w_ = pd.get(0, 0);
    h_ = pd.get(1, 0);
    d_ = pd.get(11, 0);
    c_ = pd.get(2, 0);
    load_type_ = pd.get(21, 1);
    if (w_ < 0 || h_ < 0 || d_ < 0 || c_ < 0)
      layer_fail(*this, "negative shape w=", w_, " h=", h_, " d=", d_, " c=", c_);
    if (load_type_ != 0 && load_type_ != 1) layer_fail(*this, "load type (param 21) must be 0 or 1, got ", load_type_);
  }

  void load_model(const ModelBin& mb) override {
    if (d_ != 0)
      data_ = mb.load(w_, h_, d_, c_, load_type_);
    else if (c_ != 0)
      data_ = mb.load(w_, h_, c_, load_type_);
    else if (h_ != 0)
      data_ = mb.load(w_, h_, load_type_);
    else if (w_ != 0)
      data_ = mb.load(w_, load_type_);
    else {
      data_.create(1);
      data_.fill(0.f);
    }
    if (data_.empty()) layer_fail(*this, "holds no data: w=", w_, " h=", h_, " d=", d_, " c=", c_);
    if (lane_bytes(data_) != 4) layer_fail(*this, "data must decode to fp32, got elemsize ", data_.elemsize);
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    if (data_.empty()) layer_fail(*this, "forward before load_model");
    tops.resize(1);
    tops[0] = data_.clone(opt.blob_allocator);
  }

 private:
  int w_ = 0, h_ = 0, d_ = 0, c_ = 0;
  int load_type_ = 1;
  Mat data_;
};

}  // namespace

std::unique_ptr<Layer> make_MemoryData() { return std::make_unique<MemoryData>(); }

}  // namespace layers
}  // namespace jitconv
