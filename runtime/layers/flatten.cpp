// Flatten: every scalar into one row, in (c, d, h, w) order. A 1-D blob's scalars are
// contiguous whatever its elempack, so the result can carry any elempack that divides
// the count; packed inputs are unpacked on the way.
#include <cstdint>
#include <cstring>
#include <memory>

#include "runtime/layers/data_shape.h"

namespace jitconv {
namespace layers {

namespace {

// in  = [plane][kPack] lanes of one group,  out = kPack rows of `plane` lanes.
template <typename T, int kPack>
void unpack_group(const T* in, T* out, long plane) {
  for (int l = 0; l < kPack; l++) {
    T* row = out + l * plane;
    for (long i = 0; i < plane; i++) row[i] = in[i * kPack + l];
  }
}

template <typename T>
void flatten_typed(const Mat& bottom, Mat& top, long groups, long plane, long group_stride, int num_threads) {
  const T* src = static_cast<const T*>(bottom.data);
  T* dst = static_cast<T*>(top.data);
  const int pack = bottom.elempack;
#pragma omp parallel for num_threads(num_threads) schedule(static)
  for (long g = 0; g < groups; g++) {
    const T* in = src + g * group_stride;
    T* out = dst + g * pack * plane;
    switch (pack) {
      case 1: memcpy(out, in, sizeof(T) * plane); break;
      case 4: unpack_group<T, 4>(in, out, plane); break;
      case 8: unpack_group<T, 8>(in, out, plane); break;
      default: unpack_group<T, 16>(in, out, plane); break;
    }
  }
}

class Flatten final : public Layer {
 public:
  Flatten() {
    one_blob_only = true;
    support_inplace = false;
    support_packing = true;
    support_fp16_storage = true;
    support_bf16_storage = true;
  }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    if (bottom.dims < 1 || bottom.dims > 4) layer_fail(*this, "input has dims ", bottom.dims);
    if (bottom.dims == 1) {
      top = bottom;
      return;
    }
    const AxisShape shape = axis_shape(bottom);
    const long plane = bottom.dims == 2 ? bottom.w : static_cast<long>(bottom.w) * bottom.h * bottom.d;
    const long groups = bottom.dims == 2 ? bottom.h : bottom.c;
    const long group_stride = (bottom.dims == 2 ? plane : static_cast<long>(bottom.cstep)) * bottom.elempack;
    const long total = static_cast<long>(shape.len[0]) * plane;
    if (total > 0x7fffffff) layer_fail(*this, total, " scalars do not fit one row");
    const size_t lanes = lane_bytes(bottom);
    const int out_pack = choose_elempack(opt, total);
    top.create(static_cast<int>(total / out_pack), lanes * out_pack, out_pack, opt.blob_allocator);
    switch (lanes) {
      case 4: return flatten_typed<uint32_t>(bottom, top, groups, plane, group_stride, opt.num_threads);
      case 2: return flatten_typed<uint16_t>(bottom, top, groups, plane, group_stride, opt.num_threads);
      case 1: return flatten_typed<uint8_t>(bottom, top, groups, plane, group_stride, opt.num_threads);
      default: layer_fail(*this, "unsupported elemsize ", bottom.elemsize, " for elempack ", bottom.elempack);
    }
  }
};

}  // namespace

std::unique_ptr<Layer> make_Flatten() { return std::make_unique<Flatten>(); }

}  // namespace layers
}  // namespace jitconv
