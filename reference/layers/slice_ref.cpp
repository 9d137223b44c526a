// Reference Slice: piece i takes the coordinates [start_i, start_i + length_i) along the
// axis, lengths as ncnn computes them.
#include <memory>
#include <vector>

#include "reference/layers/dense_tensor_ref.h"

namespace jitconv {
namespace reference_layers {

namespace {

class Slice final : public Layer {
 public:
  Slice() { one_blob_only = false; }

  void load_param(const ParamDict& pd) override {
    slices_ = pd.get_ints(0);
    axis_ = pd.get(1, 0);
    indices_ = pd.get_ints(2);
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& top_blobs, const Option& opt) const override {
    const DenseTensor in = to_dense(*this, bottoms.at(0));
    const int axis = axis_ < 0 ? axis_ + in.dims : axis_;
    if (axis < 0 || axis >= in.dims) fail("Slice reference: bad axis ", axis_);
    const int name = ref_axis_name(in.dims, axis);
    const int total = in.size[name];
    const size_t outputs = !top_blobs.empty() ? top_blobs.size()
                           : !tops.empty()    ? tops.size()
                           : indices_.empty() ? slices_.size()
                                              : indices_.size() + 1;
    top_blobs.assign(outputs, Mat());
    int start = 0;
    for (size_t i = 0; i < outputs; i++) {
      int length;
      if (!indices_.empty())
        length = i + 1 == outputs ? total - start : (indices_.at(i) < 0 ? total + indices_.at(i) : indices_.at(i)) - start;
      else
        length = slices_.at(i) == -233 ? (total - start) / static_cast<int>(outputs - i) : slices_.at(i);
      if (length <= 0 || start + length > total) fail("Slice reference: piece ", i, " does not fit");
      int size[4] = {in.size[0], in.size[1], in.size[2], in.size[3]};
      size[name] = length;
      DenseTensor out = make_dense(in.dims, size);
      for_each_coord(out, [&](const int* at) {
        int from[4] = {at[0], at[1], at[2], at[3]};
        from[name] += start;
        out[at] = in[from];
      });
      top_blobs[i] = to_mat(out);
      start += length;
    }
  }

 private:
  std::vector<int> slices_, indices_;
  int axis_ = 0;
};

}  // namespace

std::unique_ptr<Layer> make_Slice() { return std::make_unique<Slice>(); }

}  // namespace reference_layers
}  // namespace jitconv
