// Padding (ncnn). Params: 0 top, 1 bottom, 2 left, 3 right, 4 type (0 constant,
// 1 replicate, 2 reflect without repeating the edge), 5 value, 6 per_channel_pad_data_size
// (then one constant per output channel, loaded as raw fp32), 7 front, 8 behind.
// 1-D pads w, 2-D pads w and h, 3-D also channels (front/behind), 4-D also depth.
//
// Packed blobs stay packed when the padded axes are inside each packed element (w, h,
// d, or whole packed channels of constant padding); other cases unpack first.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/layers/math_util.h"

namespace jitconv {
namespace layers {

namespace {

enum PadType { kConstant = 0, kReplicate = 1, kReflect = 2 };

// Source index for output index i - before of an axis of length n, or -1 for "constant".
inline int source_index(int i, int n, int type) {
  if (i >= 0 && i < n) return i;
  if (type == kReplicate) return i < 0 ? 0 : n - 1;
  if (type == kReflect) return i < 0 ? -i : 2 * n - 2 - i;
  return -1;
}

// Fills `count` elements of `lanes` floats with the per-lane values.
void fill_elements(float* dst, long count, const float* lane_values, int lanes) {
  for (long i = 0; i < count; i++)
    for (int l = 0; l < lanes; l++) dst[i * lanes + l] = lane_values[l];
}

// One padded (h, w) plane of `lanes`-float elements.
void pad_plane(const float* src, int w, int h, float* dst, int top, int left, int outw, int outh, int type,
               const float* lane_values, int lanes) {
  const size_t elem = static_cast<size_t>(lanes);
  for (int y = 0; y < outh; y++) {
    float* out = dst + static_cast<size_t>(y) * outw * elem;
    const int sy = source_index(y - top, h, type);
    if (sy < 0) {
      fill_elements(out, outw, lane_values, lanes);
      continue;
    }
    const float* row = src + static_cast<size_t>(sy) * w * elem;
    for (int x = 0; x < left; x++) {
      const int sx = source_index(x - left, w, type);
      if (sx < 0)
        fill_elements(out + x * elem, 1, lane_values, lanes);
      else
        std::memcpy(out + x * elem, row + sx * elem, elem * sizeof(float));
    }
    std::memcpy(out + left * elem, row, static_cast<size_t>(w) * elem * sizeof(float));
    for (int x = left + w; x < outw; x++) {
      const int sx = source_index(x - left, w, type);
      if (sx < 0)
        fill_elements(out + x * elem, 1, lane_values, lanes);
      else
        std::memcpy(out + x * elem, row + sx * elem, elem * sizeof(float));
    }
  }
}

}  // namespace

class Padding final : public Layer {
 public:
  Padding() {
    one_blob_only = true;
    support_inplace = false;
    support_packing = true;
  }

  void load_param(const ParamDict& pd) override {
    top_ = pd.get(0, 0);
    bottom_ = pd.get(1, 0);
    left_ = pd.get(2, 0);
    right_ = pd.get(3, 0);
    type_ = pd.get(4, 0);
    value_ = pd.get(5, 0.f);
    per_channel_size_ = pd.get(6, 0);
    front_ = pd.get(7, 0);
    behind_ = pd.get(8, 0);
    const std::string me = layer_label(*this);
    for (int v : {top_, bottom_, left_, right_})
      if (v == -233 || v == -234) fail(me, ": pads taken from a second input (-233/-234) are not supported");
    if (top_ < 0 || bottom_ < 0 || left_ < 0 || right_ < 0 || front_ < 0 || behind_ < 0)
      fail(me, ": negative padding (top ", top_, ", bottom ", bottom_, ", left ", left_, ", right ", right_,
           ", front ", front_, ", behind ", behind_, ")");
    if (type_ < kConstant || type_ > kReflect) fail(me, ": type (param 4) must be 0, 1 or 2, got ", type_);
    if (per_channel_size_ < 0) fail(me, ": per_channel_pad_data_size (param 6) is negative");
  }

  void load_model(const ModelBin& mb) override {
    if (per_channel_size_ == 0) return;
    per_channel_ = mb.load(per_channel_size_, 1);
    check_fp32_weight(*this, per_channel_, per_channel_size_, "per-channel pad values");
  }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    check_fp32_blob(*this, bottom);
    if (top_ == 0 && bottom_ == 0 && left_ == 0 && right_ == 0 && front_ == 0 && behind_ == 0) {
      top = bottom;
      return;
    }
    const int dims = bottom.dims;
    int lanes = bottom.elempack;
    const bool channel_pad = dims == 3 && (front_ > 0 || behind_ > 0);
    const bool keep_packed = dims >= 3 && (!channel_pad || (type_ == kConstant && front_ % lanes == 0 &&
                                                            behind_ % lanes == 0));
    const Mat in = lanes > 1 && !keep_packed ? repack_workspace(bottom, 1, opt) : bottom;
    lanes = in.elempack;
    check_reflect(in);

    const int w = in.w, h = in.h;
    // Output extents in 64 bits: pads up to INT_MAX each carry a sum past int.
    const int outw = checked_extent(static_cast<long long>(w) + left_ + right_, "padded width");
    if (dims <= 2) {
      const int pt = dims == 2 ? top_ : 0, pb = dims == 2 ? bottom_ : 0;
      Mat out;
      create_blob(out, dims, outw, checked_extent(static_cast<long long>(h) + pt + pb, "padded height"), 1, 1, 1,
                  opt.blob_allocator);
      pad_plane(static_cast<const float*>(in.data), w, h, static_cast<float*>(out.data), pt, left_, outw, out.h, type_,
                &value_, 1);
      top = out;
      return;
    }

    const int outh = checked_extent(static_cast<long long>(h) + top_ + bottom_, "padded height");
    const int channels = in.c * lanes;  // scalars
    const long long padded_depth = static_cast<long long>(front_) + behind_;
    const int outc = dims == 3 ? checked_extent(channels + padded_depth, "padded channels") : channels;
    const int outd = dims == 4 ? checked_extent(in.d + padded_depth, "padded depth") : 1;
    if (per_channel_size_ > 0 && per_channel_size_ < outc)
      fail(layer_label(*this), ": ", per_channel_size_, " per-channel pad values for ", outc, " output channels");
    Mat out;
    create_blob(out, dims, outw, outh, outd, outc / lanes, lanes, opt.blob_allocator);
    const size_t in_plane = static_cast<size_t>(w) * h * lanes, out_plane = static_cast<size_t>(outw) * outh * lanes;

#pragma omp parallel for num_threads(thread_count(opt, out_plane * out.c * outd))
    for (int q = 0; q < out.c; q++) {
      float values[16];
      for (int l = 0; l < lanes; l++) values[l] = per_channel_size_ ? per_channel_[q * lanes + l] : value_;
      float* dst = channel_ptr(out, q);
      if (dims == 3) {
        // Whole packed channels map to whole packed source channels (see keep_packed).
        const int sq = source_index(q * lanes - front_, channels, type_);
        if (sq < 0)
          fill_elements(dst, static_cast<long>(out_plane / lanes), values, lanes);
        else
          pad_plane(channel_ptr(in, sq / lanes), w, h, dst, top_, left_, outw, outh, type_, values, lanes);
        continue;
      }
      for (int z = 0; z < outd; z++) {
        const int sz = source_index(z - front_, in.d, type_);
        float* plane = dst + z * out_plane;
        if (sz < 0)
          fill_elements(plane, static_cast<long>(out_plane / lanes), values, lanes);
        else
          pad_plane(channel_ptr(in, q) + sz * in_plane, w, h, plane, top_, left_, outw, outh, type_, values, lanes);
      }
    }
    top = out;
  }

 private:
  // Reflection needs every pad shorter than its axis.
  void check_reflect(const Mat& in) const {
    if (type_ != kReflect) return;
    const int w = in.w, h = in.dims == 2 ? in.h * in.elempack : in.h;
    const int depth = in.dims == 4 ? in.d : in.dims == 3 ? in.c * in.elempack : 0;
    const bool bad = left_ >= w || right_ >= w || (in.dims >= 2 && (top_ >= h || bottom_ >= h)) ||
                     (in.dims >= 3 && (front_ >= depth || behind_ >= depth));
    if (bad)
      fail(layer_label(*this), ": reflect padding must be shorter than the axis it mirrors (input ", in.w, "x", h,
           " depth/channels ", depth, ")");
  }

  int top_ = 0, bottom_ = 0, left_ = 0, right_ = 0, type_ = 0;
  float value_ = 0.f;
  int per_channel_size_ = 0, front_ = 0, behind_ = 0;
  Mat per_channel_;
};

std::unique_ptr<Layer> make_Padding() { return std::make_unique<Padding>(); }

}  // namespace layers
}  // namespace jitconv
