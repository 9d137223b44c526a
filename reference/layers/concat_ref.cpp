// Reference Concat: every input scalar placed at its coordinate shifted along the axis.
#include <memory>
#include <vector>

#include "reference/layers/dense_tensor_ref.h"

namespace jitconv {
namespace reference_layers {

namespace {

class Concat final : public Layer {
 public:
  Concat() { one_blob_only = false; }

  void load_param(const ParamDict& pd) override { axis_ = pd.get(0, 0); }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    if (bottoms.empty()) fail("Concat reference: no inputs");
    std::vector<DenseTensor> inputs;
    for (const Mat& m : bottoms) inputs.push_back(to_dense(*this, m));
    const int dims = inputs[0].dims;
    const int axis = axis_ < 0 ? axis_ + dims : axis_;
    if (axis < 0 || axis >= dims) fail("Concat reference: bad axis ", axis_);
    const int name = ref_axis_name(dims, axis);
    int size[4] = {inputs[0].size[0], inputs[0].size[1], inputs[0].size[2], inputs[0].size[3]};
    size[name] = 0;
    for (const DenseTensor& t : inputs) {
      for (int n = 0; n < 4; n++)
        if (n != name && (t.size[n] != size[n] || t.dims != dims)) fail("Concat reference: shapes differ");
      size[name] += t.size[name];
    }
    DenseTensor out = make_dense(dims, size);
    int offset = 0;
    for (const DenseTensor& t : inputs) {
      for_each_coord(t, [&](const int* at) {
        int to[4] = {at[0], at[1], at[2], at[3]};
        to[name] += offset;
        out[to] = t[at];
      });
      offset += t.size[name];
    }
    tops.assign(1, to_mat(out));
  }

 private:
  int axis_ = 0;
};

}  // namespace

std::unique_ptr<Layer> make_Concat() { return std::make_unique<Concat>(); }

}  // namespace reference_layers
}  // namespace jitconv
