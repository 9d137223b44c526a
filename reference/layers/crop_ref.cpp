// Reference Crop: out[at] = in[at + offset] over the box ncnn's parameters describe
// (offsets and sizes, numpy starts/ends/axes, or a second blob).
#include <algorithm>
#include <memory>
#include <vector>

#include "reference/layers/dense_tensor_ref.h"

namespace jitconv {
namespace reference_layers {

namespace {

struct Box {
  long off[4] = {0, 0, 0, 0};  // w, h, d, c
  long len[4] = {1, 1, 1, 1};
};

class Crop final : public Layer {
 public:
  Crop() { one_blob_only = true; }

  void load_param(const ParamDict& pd) override {
    const int offset_ids[4] = {0, 1, 13, 2}, out_ids[4] = {3, 4, 14, 5}, offset2_ids[4] = {6, 7, 15, 8};
    bool sized = false;
    for (int n = 0; n < 4; n++) {
      offset_[n] = pd.get(offset_ids[n], 0);
      out_[n] = pd.get(out_ids[n], 0);
      offset2_[n] = pd.get(offset2_ids[n], 0);
      sized = sized || out_[n] != 0 || offset2_[n] != 0;
    }
    starts_ = pd.get_ints(9);
    ends_ = pd.get_ints(10);
    axes_ = pd.get_ints(11);
    numpy_ = !starts_.empty() && !ends_.empty();
    one_blob_only = sized || numpy_;
  }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    const DenseTensor in = to_dense(*this, bottom);
    top = cut(in, numpy_ ? numpy_box(in) : param_box(in));
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    tops.resize(1);
    if (one_blob_only) return forward(bottoms.at(0), tops[0], opt);
    const DenseTensor in = to_dense(*this, bottoms.at(0));
    tops[0] = cut(in, offset_[kRefW] == -233 ? blob_box(in, bottoms.at(1)) : reference_box(in, bottoms.at(1)));
  }

 private:
  bool has(const DenseTensor& t, int name) const {
    for (int a = 0; a < t.dims; a++)
      if (ref_axis_name(t.dims, a) == name) return true;
    return false;
  }

  Box param_box(const DenseTensor& in) const {
    Box b;
    for (int n = 0; n < 4; n++) {
      if (!has(in, n)) continue;
      b.off[n] = offset_[n];
      b.len[n] = static_cast<long>(in.size[n]) - offset_[n] - offset2_[n];
      if (out_[n] != -233) b.len[n] = std::min<long>(out_[n], b.len[n]);
    }
    return b;
  }

  Box numpy_box(const DenseTensor& in) const {
    Box b;
    for (int n = 0; n < 4; n++) b.len[n] = in.size[n];
    const size_t axes = axes_.empty() ? static_cast<size_t>(in.dims) : axes_.size();
    for (size_t i = 0; i < axes; i++) {
      const int axis = axes_.empty() ? static_cast<int>(i) : (axes_[i] < 0 ? axes_[i] + in.dims : axes_[i]);
      if (axis < 0 || axis >= in.dims) fail("Crop reference: bad axis");
      const int n = ref_axis_name(in.dims, axis);
      const long size = in.size[n];
      long start = starts_.at(i), end = ends_.at(i);
      if (start == -233) start = 0;
      if (end == -233) end = size;
      if (start < 0) start += size;
      if (end <= 0) end += size;
      b.off[n] = start;
      b.len[n] = std::min(size, end) - start;
    }
    return b;
  }

  Box reference_box(const DenseTensor& in, const Mat& reference) const {
    Box b;
    const long ref_size[4] = {reference.w, reference.h, reference.d, reference.c};
    for (int n = 0; n < 4; n++) {
      b.len[n] = in.size[n];
      if (!has(in, n)) continue;
      b.off[n] = offset_[n];
      if (n != kRefC || reference.dims == in.dims) b.len[n] = ref_size[n];
    }
    return b;
  }

  // int32 [w, h, (d,) c offsets..., w, h, (d,) c sizes...] for the input's axes.
  Box blob_box(const DenseTensor& in, const Mat& params) const {
    const int* v = static_cast<const int*>(params.data);
    static const int kOrder[5][4] = {{0}, {kRefW}, {kRefW, kRefH}, {kRefW, kRefH, kRefC}, {kRefW, kRefH, kRefD, kRefC}};
    const int stride = in.dims == 4 ? 4 : 3;
    Box b;
    for (int i = 0; i < in.dims; i++) {
      b.off[kOrder[in.dims][i]] = v[i];
      b.len[kOrder[in.dims][i]] = v[stride + i];
    }
    return b;
  }

  Mat cut(const DenseTensor& in, const Box& b) const {
    int size[4];
    for (int n = 0; n < 4; n++) {
      if (b.off[n] < 0 || b.len[n] <= 0 || b.off[n] + b.len[n] > in.size[n]) fail("Crop reference: box out of range");
      size[n] = static_cast<int>(b.len[n]);
    }
    DenseTensor out = make_dense(in.dims, size);
    for_each_coord(out, [&](const int* at) {
      int from[4];
      for (int n = 0; n < 4; n++) from[n] = at[n] + static_cast<int>(b.off[n]);
      out[at] = in[from];
    });
    return to_mat(out);
  }

  int offset_[4] = {0, 0, 0, 0}, out_[4] = {0, 0, 0, 0}, offset2_[4] = {0, 0, 0, 0};
  std::vector<int> starts_, ends_, axes_;
  bool numpy_ = false;
};

}  // namespace

std::unique_ptr<Layer> make_Crop() { return std::make_unique<Crop>(); }

}  // namespace reference_layers
}  // namespace jitconv
