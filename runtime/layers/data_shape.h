// Shapes in scalars, axis by axis, for the data-movement layers.
//
// ncnn numbers a blob's axes from the outermost: dims 4 = (c, d, h, w), dims 3 = (c, h, w),
// dims 2 = (h, w), dims 1 = (w). Axis 0 is always the packed one, so a packed blob's
// axis-0 length is its packed count times elempack; the other axes never pack.
#pragma once
#include <cstddef>
#include <string>
#include <utility>

#include "runtime/error.h"
#include "runtime/layer.h"

namespace jitconv {
namespace layers {

struct AxisShape {
  int dims = 0;
  int len[4] = {1, 1, 1, 1};  // scalars along ncnn axis 0..dims-1
};

AxisShape axis_shape(const Mat& m);
// Bytes of one scalar lane (4 for fp32, 2 for fp16/bf16, 1 for int8).
inline size_t lane_bytes(const Mat& m) { return m.elempack ? m.elemsize / m.elempack : 0; }

// The elempack a layer gives a new blob whose axis 0 holds `scalars`: packed as the
// network packs (runtime/cpu.h) when packing is on, else 1.
int choose_elempack(const Option& opt, long scalars);

// A blob of `shape` (axis 0 in scalars, divisible by elempack) with `lanes` bytes per scalar.
Mat create_blob(const AxisShape& shape, int elempack, size_t lanes, Allocator* allocator);

// Throws jitconv::Error prefixed with the layer's type and name.
template <typename... Args>
[[noreturn]] void layer_fail(const Layer& layer, Args&&... args) {
  fail(layer.type, " '", layer.name, "': ", std::forward<Args>(args)...);
}

// "4x5x7" (w x h x d x c order, as people write ncnn shapes).
std::string shape_string(const AxisShape& shape);

}  // namespace layers
}  // namespace jitconv
