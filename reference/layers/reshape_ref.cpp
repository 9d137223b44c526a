// Reference Reshape: read the input's scalars in order, write them to the output shape
// in the same order. permute = 1 flattening a 3-D / 4-D input to 1-D reads it channel-last
// ([h][w][c] / [d][h][w][c]), as ncnn's Reshape did; other shapes ignore the flag.
#include <memory>
#include <vector>

#include "reference/layers/dense_tensor_ref.h"

namespace jitconv {
namespace reference_layers {

namespace {

// The coordinates of t in reading order.
std::vector<std::vector<int>> reading_order(const DenseTensor& t, bool channel_last) {
  std::vector<std::vector<int>> order;
  const int W = t.size[kRefW], H = t.size[kRefH], D = t.size[kRefD], C = t.size[kRefC];
  if (!channel_last || t.dims == 1) {
    for_each_coord(t, [&](const int* at) { order.push_back({at[0], at[1], at[2], at[3]}); });
  } else if (t.dims == 2) {
    for (int x = 0; x < W; x++)
      for (int y = 0; y < H; y++) order.push_back({x, y, 0, 0});
  } else {
    for (int z = 0; z < D; z++)
      for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
          for (int q = 0; q < C; q++) order.push_back({x, y, z, q});
  }
  return order;
}

class Reshape final : public Layer {
 public:
  Reshape() { one_blob_only = true; }

  void load_param(const ParamDict& pd) override {
    shape_[kRefW] = pd.get(0, -233);
    shape_[kRefH] = pd.get(1, -233);
    shape_[kRefD] = pd.get(11, -233);
    shape_[kRefC] = pd.get(2, -233);
    permute_ = pd.get(3, 0);
    dims_ = shape_[kRefW] == -233 ? 0 : shape_[kRefH] == -233 ? 1 : shape_[kRefC] == -233 ? 2 : shape_[kRefD] == -233 ? 3 : 4;
  }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    const DenseTensor in = to_dense(*this, bottom);
    // Named extents used by each output dims: 1 = w, 2 = w h, 3 = w h c, 4 = w h d c.
    static const int kUsed[5][4] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {1, 1, 0, 0}, {1, 1, 0, 1}, {1, 1, 1, 1}};
    int size[4] = {1, 1, 1, 1};
    long known = 1;
    int infer = -1;
    for (int n = 0; n < 4; n++) {
      if (!kUsed[dims_][n]) continue;
      if (shape_[n] == -1) {
        infer = n;
        continue;
      }
      size[n] = shape_[n] == 0 ? in.size[n] : shape_[n];
      known *= size[n];
    }
    if (infer >= 0) size[infer] = static_cast<int>(in.count() / known);
    DenseTensor out = make_dense(dims_, size);
    if (out.count() != in.count()) fail("Reshape reference: element count differs");
    const int in_outer = in.size[ref_axis_name(in.dims, 0)], out_outer = out.size[ref_axis_name(dims_, 0)];
    const bool channel_last =
        permute_ == 1 && dims_ == 1 && in.dims >= 3 && !(in.dims == dims_ && in_outer == out_outer);
    const std::vector<std::vector<int>> from = reading_order(in, channel_last), to = reading_order(out, channel_last);
    for (size_t i = 0; i < from.size(); i++) out[to[i].data()] = in[from[i].data()];
    top = to_mat(out);
  }

 private:
  int shape_[4] = {-233, -233, -233, -233};
  int permute_ = 0;
  int dims_ = 0;
};

}  // namespace

std::unique_ptr<Layer> make_Reshape() { return std::make_unique<Reshape>(); }

}  // namespace reference_layers
}  // namespace jitconv
