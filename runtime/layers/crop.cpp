// Crop: a box of the input, described one of three ways (ncnn's Crop):
//
//   offsets  0/1/13/2 = w/h/d/c offset, 3/4/14/5 = outw/outh/outd/outc (-233 = the rest),
//            6/7/15/8 = w/h/d/c offset from the far end
//   numpy    9 = starts, 10 = ends, 11 = axes (ncnn axis numbers, negative allowed;
//            -233 = open end; an end of 0 or below counts from the far end)
//   2 inputs when none of the above is set: the box has the second blob's size (its
//            channels only when it has as many dims), placed at the offsets; with
//            woffset = -233 the second blob instead holds the int32 crop parameters.
#include <algorithm>
#include <memory>
#include <vector>

#include "runtime/layers/blob_copy.h"

namespace jitconv {
namespace layers {

namespace {

enum Name { kW = 0, kH = 1, kD = 2, kC = 3 };

// Which named axis ncnn axis `axis` of a `dims`-D blob is.
int axis_name(int dims, int axis) {
  static const int kNames[5][4] = {{kW, kW, kW, kW}, {kW, kW, kW, kW}, {kH, kW, kW, kW}, {kC, kH, kW, kW}, {kC, kD, kH, kW}};
  return kNames[dims][axis];
}

// Lengths computed in 64 bits, kept in int: anything below zero becomes -1 so that the
// bounds check names it instead of wrapping around.
int clamp_length(long long v) { return v < 0 ? -1 : v > 0x7fffffff ? 0x7fffffff : static_cast<int>(v); }

const char* name_text(int name) {
  static const char* kText[4] = {"w", "h", "d", "c"};
  return kText[name];
}

class Crop final : public Layer {
 public:
  Crop() {
    one_blob_only = true;
    support_inplace = false;
    support_packing = true;
    support_fp16_storage = true;
    support_bf16_storage = true;
  }

  void load_param(const ParamDict& pd) override {
    offset_[kW] = pd.get(0, 0);
    offset_[kH] = pd.get(1, 0);
    offset_[kD] = pd.get(13, 0);
    offset_[kC] = pd.get(2, 0);
    out_[kW] = pd.get(3, 0);
    out_[kH] = pd.get(4, 0);
    out_[kD] = pd.get(14, 0);
    out_[kC] = pd.get(5, 0);
    offset2_[kW] = pd.get(6, 0);
    offset2_[kH] = pd.get(7, 0);
    offset2_[kD] = pd.get(15, 0);
    offset2_[kC] = pd.get(8, 0);
    starts_ = pd.get_ints(9);
    ends_ = pd.get_ints(10);
    axes_ = pd.get_ints(11);
    numpy_style_ = !starts_.empty() && !ends_.empty();
    bool any_size = numpy_style_;
    for (int n = 0; n < 4; n++) any_size = any_size || out_[n] != 0 || offset2_[n] != 0;
    one_blob_only = any_size;
  }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    crop(bottom, resolve_from_params(axis_shape(bottom)), top, opt);
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    tops.resize(1);
    if (one_blob_only) {
      if (bottoms.size() != 1) layer_fail(*this, "expects one input, got ", bottoms.size());
      return forward(bottoms[0], tops[0], opt);
    }
    if (bottoms.size() != 2) layer_fail(*this, "without output sizes it crops to a reference blob: expects 2 inputs, got ", bottoms.size());
    const AxisShape shape = axis_shape(bottoms[0]);
    const Region region = offset_[kW] == -233 ? resolve_from_blob(shape, bottoms[1]) : resolve_from_reference(shape, bottoms[1]);
    crop(bottoms[0], region, tops[0], opt);
  }

 private:
  Region resolve_from_params(const AxisShape& shape) const {
    Region r = full_region(shape);
    if (!numpy_style_) {
      for (int a = 0; a < shape.dims; a++) {
        const int n = axis_name(shape.dims, a);
        r.off[a] = offset_[n];
        long long len = static_cast<long long>(shape.len[a]) - offset_[n] - offset2_[n];
        if (out_[n] != -233) len = std::min<long long>(out_[n], len);
        r.len[a] = clamp_length(len);
      }
      return r;
    }
    const size_t num_axes = axes_.empty() ? static_cast<size_t>(shape.dims) : axes_.size();
    if (starts_.size() < num_axes || ends_.size() < num_axes)
      layer_fail(*this, num_axes, " axes to crop but ", starts_.size(), " starts and ", ends_.size(), " ends");
    for (size_t i = 0; i < num_axes; i++) {
      int axis = axes_.empty() ? static_cast<int>(i) : axes_[i];
      if (axis < 0) axis += shape.dims;
      if (axis < 0 || axis >= shape.dims) layer_fail(*this, "axes[", i, "] = ", axes_[i], " is out of range for a ", shape.dims, "-D input");
      const long long size = shape.len[axis];
      const long long start = starts_[i] == -233 ? 0 : starts_[i];
      const long long end = ends_[i] == -233 ? size : ends_[i];
      const long long off = start >= 0 ? start : size + start;
      r.off[axis] = static_cast<int>(std::max<long long>(off, -1));
      r.len[axis] = clamp_length(std::min(size, end > 0 ? end : size + end) - off);
    }
    return r;
  }

  // The box takes the reference blob's size; its channels only when it has as many dims.
  Region resolve_from_reference(const AxisShape& shape, const Mat& reference) const {
    const int ref_pack = reference.elempack;
    int ref_len[4];
    ref_len[kW] = reference.w * (reference.dims == 1 ? ref_pack : 1);
    ref_len[kH] = reference.h * (reference.dims == 2 ? ref_pack : 1);
    ref_len[kD] = reference.d;
    ref_len[kC] = reference.c * (reference.dims >= 3 ? ref_pack : 1);
    Region r = full_region(shape);
    for (int a = 0; a < shape.dims; a++) {
      const int n = axis_name(shape.dims, a);
      r.off[a] = offset_[n];
      if (n != kC || reference.dims == shape.dims) r.len[a] = ref_len[n];
    }
    return r;
  }

  // ncnn's dynamic crop: the second blob holds int32 [offsets..., sizes...] in w, h, (d,) c order.
  Region resolve_from_blob(const AxisShape& shape, const Mat& params) const {
    const int needed = shape.dims == 4 ? 8 : shape.dims == 3 ? 6 : shape.dims == 2 ? 5 : 4;
    const bool flat = params.dims == 1 || (params.dims == 2 && params.elempack == 1);
    if (!flat || lane_bytes(params) != 4 || static_cast<long>(params.w) * params.h * params.elempack < needed)
      layer_fail(*this, "woffset -233 reads ", needed, " int32 crop parameters from a 1-D second input");
    const int* values = static_cast<const int*>(params.data);
    static const int kOrder[5][4] = {{0}, {kW}, {kW, kH}, {kW, kH, kC}, {kW, kH, kD, kC}};
    const int count = shape.dims == 4 ? 4 : 3;
    int off[4] = {0, 0, 0, 0}, len[4] = {0, 0, 0, 0};
    for (int i = 0; i < shape.dims; i++) {
      off[kOrder[shape.dims][i]] = values[i];
      len[kOrder[shape.dims][i]] = values[count + i];
    }
    Region r;
    for (int a = 0; a < shape.dims; a++) {
      r.off[a] = off[axis_name(shape.dims, a)];
      r.len[a] = len[axis_name(shape.dims, a)];
    }
    return r;
  }

  void crop(const Mat& bottom, const Region& r, Mat& top, const Option& opt) const {
    const AxisShape shape = axis_shape(bottom);
    if (shape.dims < 1 || shape.dims > 4) layer_fail(*this, "input has dims ", shape.dims);
    bool whole = true;
    for (int a = 0; a < shape.dims; a++) {
      if (r.off[a] < 0 || r.len[a] <= 0 || r.off[a] + static_cast<long>(r.len[a]) > shape.len[a])
        layer_fail(*this, "crop of ", r.len[a], " from offset ", r.off[a], " along ", name_text(axis_name(shape.dims, a)),
                   " does not fit the input's ", shape.len[a]);
      whole = whole && r.off[a] == 0 && r.len[a] == shape.len[a];
    }
    if (whole) {
      top = bottom;
      return;
    }
    AxisShape out_shape = shape;
    for (int a = 0; a < shape.dims; a++) out_shape.len[a] = r.len[a];
    const bool same_axis0 = r.off[0] == 0 && r.len[0] == shape.len[0];
    const int elempack = same_axis0 ? bottom.elempack : choose_elempack(opt, r.len[0]);
    top = create_blob(out_shape, elempack, lane_bytes(bottom), opt.blob_allocator);
    const int dst_off[4] = {0, 0, 0, 0};
    copy_region(bottom, r, top, dst_off, opt.num_threads);
  }

  int offset_[4] = {0, 0, 0, 0};
  int out_[4] = {0, 0, 0, 0};
  int offset2_[4] = {0, 0, 0, 0};
  std::vector<int> starts_, ends_, axes_;
  bool numpy_style_ = false;
};

}  // namespace

std::unique_ptr<Layer> make_Crop() { return std::make_unique<Crop>(); }

}  // namespace layers
}  // namespace jitconv
