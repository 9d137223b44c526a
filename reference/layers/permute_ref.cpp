// Reference Permute: ncnn's order_type names, for the output's w, h, (d,) c in turn,
// which input axis it takes. out[...] = in[...] coordinate by coordinate.
#include <memory>
#include <string>

#include "reference/layers/dense_tensor_ref.h"

namespace jitconv {
namespace reference_layers {

namespace {

std::string order_name(int dims, int order_type) {
  static const char* const k2[] = {"wh", "hw"};
  static const char* const k3[] = {"whc", "hwc", "wch", "cwh", "hcw", "chw"};
  static const char* const k4[] = {"whdc", "hwdc", "wdhc", "dwhc", "hdwc", "dhwc", "whcd", "hwcd",
                                   "wchd", "cwhd", "hcwd", "chwd", "wdch", "dwch", "wcdh", "cwdh",
                                   "dcwh", "cdwh", "hdcw", "dhcw", "hcdw", "chdw", "dchw", "cdhw"};
  if (dims == 2 && order_type < 2) return k2[order_type];
  if (dims == 3 && order_type < 6) return k3[order_type];
  if (dims == 4 && order_type < 24) return k4[order_type];
  fail("Permute reference: no order_type ", order_type, " for dims ", dims);
}

int name_of(char letter) { return letter == 'w' ? kRefW : letter == 'h' ? kRefH : letter == 'd' ? kRefD : kRefC; }

class Permute final : public Layer {
 public:
  Permute() { one_blob_only = true; }

  void load_param(const ParamDict& pd) override { order_type_ = pd.get(0, 0); }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    const DenseTensor in = to_dense(*this, bottom);
    if (in.dims == 1) {
      top = bottom.clone();
      return;
    }
    const std::string order = order_name(in.dims, order_type_);
    // The output's axes, innermost first, e.g. 3-D: w, h, c.
    static const int kSlots[5][4] = {{0}, {0}, {kRefW, kRefH}, {kRefW, kRefH, kRefC}, {kRefW, kRefH, kRefD, kRefC}};
    int size[4] = {1, 1, 1, 1};
    for (int i = 0; i < in.dims; i++) size[kSlots[in.dims][i]] = in.size[name_of(order[i])];
    DenseTensor out = make_dense(in.dims, size);
    for_each_coord(out, [&](const int* at) {
      int from[4] = {0, 0, 0, 0};
      for (int i = 0; i < in.dims; i++) from[name_of(order[i])] = at[kSlots[in.dims][i]];
      out[at] = in[from];
    });
    top = to_mat(out);
  }

 private:
  int order_type_ = 0;
};

}  // namespace

std::unique_ptr<Layer> make_Permute() { return std::make_unique<Permute>(); }

}  // namespace reference_layers
}  // namespace jitconv
