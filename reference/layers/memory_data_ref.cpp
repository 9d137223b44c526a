// Reference MemoryData: the stored blob, its dims from the last shape param set.
#include <memory>
#include <vector>

#include "runtime/layer.h"

namespace jitconv {
namespace reference_layers {

namespace {

class MemoryData final : public Layer {
 public:
  MemoryData() { one_blob_only = false; }

  void load_param(const ParamDict& pd) override {
    w_ = pd.get(0, 0);
    h_ = pd.get(1, 0);
    d_ = pd.get(11, 0);
    c_ = pd.get(2, 0);
    type_ = pd.get(21, 1);
  }

  void load_model(const ModelBin& mb) override {
    if (d_ > 0)
      data_ = mb.load(w_, h_, d_, c_, type_);
    else if (c_ > 0)
      data_ = mb.load(w_, h_, c_, type_);
    else if (h_ > 0)
      data_ = mb.load(w_, h_, type_);
    else if (w_ > 0)
      data_ = mb.load(w_, type_);
    else {
      data_.create(1);
      data_[0] = 0.f;
    }
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    tops.assign(1, data_.clone());
  }

 private:
  int w_ = 0, h_ = 0, d_ = 0, c_ = 0, type_ = 1;
  Mat data_;
};

}  // namespace

std::unique_ptr<Layer> make_MemoryData() { return std::make_unique<MemoryData>(); }

}  // namespace reference_layers
}  // namespace jitconv
