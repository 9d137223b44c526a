// Permute (0 = order_type): reorders the axes of a 2-D, 3-D or 4-D blob. ncnn names each
// order by the source axis of the output's w, h, (d,) c in turn:
//
//   2-D: 0 wh  1 hw
//   3-D: 0 whc 1 hwc 2 wch 3 cwh 4 hcw 5 chw
//   4-D: 0 whdc  1 hwdc  2 wdhc  3 dwhc  4 hdwc  5 dhwc  6 whcd  7 hwcd
//        8 wchd  9 cwhd 10 hcwd 11 chwd 12 wdch 13 dwch 14 wcdh 15 cwdh
//       16 dcwh 17 cdwh 18 hdcw 19 dhcw 20 hcdw 21 chdw 22 dchw 23 cdhw
//
// A 1-D blob passes through.
#include <cstdint>
#include <cstring>
#include <memory>

#include "runtime/layers/data_shape.h"

namespace jitconv {
namespace layers {

namespace {

const char* const kOrders2[] = {"wh", "hw"};
const char* const kOrders3[] = {"whc", "hwc", "wch", "cwh", "hcw", "chw"};
const char* const kOrders4[] = {"whdc", "hwdc", "wdhc", "dwhc", "hdwc", "dhwc", "whcd", "hwcd",
                                "wchd", "cwhd", "hcwd", "chwd", "wdch", "dwch", "wcdh", "cwdh",
                                "dcwh", "cdwh", "hdcw", "dhcw", "hcdw", "chdw", "dchw", "cdhw"};

// Extent and element stride of the source axis named `name`.
struct SourceAxis {
  long extent;
  long stride;
};

SourceAxis source_axis(const Mat& m, char name) {
  switch (name) {
    case 'w': return {m.w, 1};
    case 'h': return {m.h, m.w};
    case 'd': return {m.d, static_cast<long>(m.w) * m.h};
    default: return {m.c, static_cast<long>(m.cstep)};
  }
}

template <typename T>
void permute_typed(const Mat& src, Mat& dst, const SourceAxis* axis, int num_threads) {
  // axis[0..3] = sources of the output's w, h, d, c.
  const T* in = static_cast<const T*>(src.data);
  T* out = static_cast<T*>(dst.data);
  const long out_w = axis[0].extent, out_h = axis[1].extent, out_d = axis[2].extent, out_c = axis[3].extent;
  const long out_cstep = dst.dims >= 3 ? static_cast<long>(dst.cstep) : dst.w;  // 2-D: q walks rows
#pragma omp parallel for num_threads(num_threads) schedule(static)
  for (long q = 0; q < out_c; q++) {
    for (long z = 0; z < out_d; z++) {
      for (long y = 0; y < out_h; y++) {
        const T* row_in = in + q * axis[3].stride + z * axis[2].stride + y * axis[1].stride;
        T* row_out = out + q * out_cstep + (z * out_h + y) * out_w;
        if (axis[0].stride == 1) {
          memcpy(row_out, row_in, sizeof(T) * out_w);
        } else {
          const long step = axis[0].stride;
          for (long x = 0; x < out_w; x++) row_out[x] = row_in[x * step];
        }
      }
    }
  }
}

class Permute final : public Layer {
 public:
  Permute() {
    one_blob_only = true;
    support_inplace = false;
  }

  void load_param(const ParamDict& pd) override {
    order_type_ = pd.get(0, 0);
    if (order_type_ < 0 || order_type_ > 23) layer_fail(*this, "order_type ", order_type_, " is not 0..23");
  }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    if (bottom.dims < 1 || bottom.dims > 4) layer_fail(*this, "input has dims ", bottom.dims);
    if (bottom.elempack != 1) layer_fail(*this, "expects elempack 1, got ", bottom.elempack);
    if (bottom.dims == 1 || order_type_ == 0) {
      top = bottom;
      return;
    }
    const int count = bottom.dims == 2 ? 2 : bottom.dims == 3 ? 6 : 24;
    if (order_type_ >= count) layer_fail(*this, "order_type ", order_type_, " needs a 4-D input, got ", bottom.dims, "-D");
    const char* order = bottom.dims == 2 ? kOrders2[order_type_] : bottom.dims == 3 ? kOrders3[order_type_] : kOrders4[order_type_];
    // Output axes w, h, d, c; a 2-D blob has no d or c, a 3-D one no d.
    SourceAxis axis[4] = {{1, 0}, {1, 0}, {1, 0}, {1, 0}};
    const int slots[3][4] = {{0, 1}, {0, 1, 3}, {0, 1, 2, 3}};
    for (int i = 0; i < bottom.dims; i++) axis[slots[bottom.dims - 2][i]] = source_axis(bottom, order[i]);
    const int w = static_cast<int>(axis[0].extent), h = static_cast<int>(axis[1].extent),
              d = static_cast<int>(axis[2].extent), c = static_cast<int>(axis[3].extent);
    if (bottom.dims == 2) {
      // A 2-D blob's rows play the channel role: output rows come from the h slot.
      top.create(w, h, bottom.elemsize, 1, opt.blob_allocator);
      axis[3] = axis[1];
      axis[1] = {1, 0};
    } else if (bottom.dims == 3) {
      top.create(w, h, c, bottom.elemsize, 1, opt.blob_allocator);
    } else {
      top.create(w, h, d, c, bottom.elemsize, 1, opt.blob_allocator);
    }
    switch (lane_bytes(bottom)) {
      case 4: return permute_typed<uint32_t>(bottom, top, axis, opt.num_threads);
      case 2: return permute_typed<uint16_t>(bottom, top, axis, opt.num_threads);
      default: return permute_typed<uint8_t>(bottom, top, axis, opt.num_threads);
    }
  }

 private:
  int order_type_ = 0;
};

}  // namespace

std::unique_ptr<Layer> make_Permute() { return std::make_unique<Permute>(); }

}  // namespace layers
}  // namespace jitconv
