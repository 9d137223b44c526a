// Concat: joins its inputs along one axis (ncnn param 0 = axis, negative counts from
// the innermost). Inputs may arrive with different elempacks.
#include <memory>
#include <vector>

#include "runtime/layers/blob_copy.h"
#include "runtime/packing.h"

namespace jitconv {
namespace layers {

namespace {

class Concat final : public Layer {
 public:
  Concat() {
    one_blob_only = false;
    support_inplace = false;
    support_packing = true;
    support_fp16_storage = true;
    support_bf16_storage = true;
  }

  void load_param(const ParamDict& pd) override { axis_ = pd.get(0, 0); }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    if (bottoms.empty()) layer_fail(*this, "needs at least one input");
    const int dims = bottoms[0].dims;
    const int axis = axis_ < 0 ? axis_ + dims : axis_;
    if (dims < 1 || dims > 4) layer_fail(*this, "input 0 has dims ", dims);
    if (axis < 0 || axis >= dims) layer_fail(*this, "axis ", axis_, " is out of range for ", dims, "-D inputs");

    AxisShape out_shape = axis_shape(bottoms[0]);
    out_shape.len[axis] = 0;
    for (size_t b = 0; b < bottoms.size(); b++) {
      const AxisShape s = axis_shape(bottoms[b]);
      if (bottoms[b].dims != dims) layer_fail(*this, "input ", b, " has dims ", bottoms[b].dims, ", input 0 has ", dims);
      if (lane_bytes(bottoms[b]) != lane_bytes(bottoms[0]))
        layer_fail(*this, "input ", b, " has ", lane_bytes(bottoms[b]) * 8, "-bit scalars, input 0 has ",
                   lane_bytes(bottoms[0]) * 8);
      for (int a = 0; a < dims; a++) {
        if (a != axis && s.len[a] != out_shape.len[a])
          layer_fail(*this, "input ", b, " is ", shape_string(s), " but input 0 is ", shape_string(axis_shape(bottoms[0])),
                     ": they must agree on every axis but ", axis);
      }
      out_shape.len[axis] += s.len[axis];
    }
    tops.resize(1);
    if (bottoms.size() == 1) {
      tops[0] = bottoms[0];
      return;
    }
    if (axis == 0)
      tops[0] = concat_packed_axis(bottoms, out_shape, opt);
    else
      tops[0] = concat_inner_axis(bottoms, out_shape, axis, opt);
  }

 private:
  // Axis 0 is the packed one: lanes from differently packed inputs interleave freely.
  Mat concat_packed_axis(const std::vector<Mat>& bottoms, const AxisShape& out_shape, const Option& opt) const {
    Mat top = create_blob(out_shape, choose_elempack(opt, out_shape.len[0]), lane_bytes(bottoms[0]), opt.blob_allocator);
    int dst_off[4] = {0, 0, 0, 0};
    for (const Mat& bottom : bottoms) {
      const Region region = full_region(axis_shape(bottom));
      copy_region(bottom, region, top, dst_off, opt.num_threads);
      dst_off[0] += region.len[0];
    }
    return top;
  }

  // Whole packed elements move together, so all inputs must share one elempack first.
  Mat concat_inner_axis(const std::vector<Mat>& bottoms, const AxisShape& out_shape, int axis,
                        const Option& opt) const {
    int elempack = bottoms[0].elempack;
    for (const Mat& bottom : bottoms)
      if (bottom.elempack != elempack) elempack = choose_elempack(opt, out_shape.len[0]);
    Option scratch = opt;
    scratch.blob_allocator = opt.workspace_allocator;
    Mat top = create_blob(out_shape, elempack, lane_bytes(bottoms[0]), opt.blob_allocator);
    int dst_off[4] = {0, 0, 0, 0};
    for (const Mat& bottom : bottoms) {
      Mat packed = bottom;
      if (bottom.elempack != elempack) convert_packing(bottom, packed, elempack, scratch);
      const Region region = full_region(axis_shape(packed));
      copy_region(packed, region, top, dst_off, opt.num_threads);
      dst_off[axis] += region.len[axis];
    }
    return top;
  }

  int axis_ = 0;
};

}  // namespace

std::unique_ptr<Layer> make_Concat() { return std::make_unique<Concat>(); }

}  // namespace layers
}  // namespace jitconv
