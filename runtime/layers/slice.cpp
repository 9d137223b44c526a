// Slice: cuts its input along one axis into consecutive pieces.
//
//   0 = slices   -23300 array of piece lengths; -233 = an equal share of what is left
//   1 = axis     negative counts from the innermost
//   2 = indices  -23300 array of cut points (negative from the end); when given it
//                replaces slices and the last piece takes the rest
//
// The number of pieces is the number of tops the layer has (as ncnn), else the length
// of slices (or of indices + 1).
#include <memory>
#include <vector>

#include "runtime/layers/blob_copy.h"

namespace jitconv {
namespace layers {

namespace {

class Slice final : public Layer {
 public:
  Slice() {
    one_blob_only = false;
    support_inplace = false;
    support_packing = true;
    support_fp16_storage = true;
    support_bf16_storage = true;
  }

  void load_param(const ParamDict& pd) override {
    slices_ = pd.get_ints(0);
    axis_ = pd.get(1, 0);
    indices_ = pd.get_ints(2);
    if (slices_.empty() && indices_.empty()) layer_fail(*this, "needs slices (param 0) or indices (param 2)");
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    if (bottoms.size() != 1) layer_fail(*this, "expects one input, got ", bottoms.size());
    const Mat& bottom = bottoms[0];
    const int dims = bottom.dims;
    const int axis = axis_ < 0 ? axis_ + dims : axis_;
    if (dims < 1 || dims > 4) layer_fail(*this, "input has dims ", dims);
    if (axis < 0 || axis >= dims) layer_fail(*this, "axis ", axis_, " is out of range for a ", dims, "-D input");

    const size_t count = output_count(tops);
    const AxisShape in_shape = axis_shape(bottom);
    const std::vector<int> lengths = piece_lengths(in_shape.len[axis], count);
    tops.resize(count);
    Region region = full_region(in_shape);
    const int dst_off[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < count; i++) {
      AxisShape out_shape = in_shape;
      out_shape.len[axis] = lengths[i];
      region.len[axis] = lengths[i];
      const int elempack = axis == 0 ? choose_elempack(opt, lengths[i]) : bottom.elempack;
      tops[i] = create_blob(out_shape, elempack, lane_bytes(bottom), opt.blob_allocator);
      copy_region(bottom, region, tops[i], dst_off, opt.num_threads);
      region.off[axis] += lengths[i];
    }
  }

 private:
  size_t output_count(const std::vector<Mat>& tops) const {
    const size_t available = indices_.empty() ? slices_.size() : indices_.size() + 1;
    size_t count = !tops.empty() ? tops.size() : !this->tops.empty() ? this->tops.size() : available;
    if (count > available)
      layer_fail(*this, count, " outputs requested but ", indices_.empty() ? "slices" : "indices", " describe only ",
                 available);
    return count;
  }

  // Piece lengths along an axis of `total` scalars, checked to fit.
  std::vector<int> piece_lengths(int total, size_t count) const {
    std::vector<int> lengths(count);
    int start = 0;
    for (size_t i = 0; i < count; i++) {
      int length;
      if (!indices_.empty()) {
        if (i + 1 == count) {
          length = total - start;
        } else {
          const int cut = indices_[i] < 0 ? total + indices_[i] : indices_[i];
          length = cut - start;
        }
      } else {
        length = slices_[i];
        if (length == -233) length = (total - start) / static_cast<int>(count - i);
      }
      if (length <= 0 || start + length > total)
        layer_fail(*this, "piece ", i, " would span [", start, ", ", start + length, ") of an axis of ", total);
      lengths[i] = length;
      start += length;
    }
    return lengths;
  }

  std::vector<int> slices_;
  std::vector<int> indices_;
  int axis_ = 0;
};

}  // namespace

std::unique_ptr<Layer> make_Slice() { return std::make_unique<Slice>(); }

}  // namespace layers
}  // namespace jitconv
