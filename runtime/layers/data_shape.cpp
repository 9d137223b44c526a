#include "runtime/layers/data_shape.h"

#include <string>

#include "runtime/cpu.h"

namespace jitconv {
namespace layers {

AxisShape axis_shape(const Mat& m) {
  AxisShape s;
  s.dims = m.dims;
  switch (m.dims) {
    case 1: s.len[0] = m.w * m.elempack; break;
    case 2: s.len[0] = m.h * m.elempack; s.len[1] = m.w; break;
    case 3: s.len[0] = m.c * m.elempack; s.len[1] = m.h; s.len[2] = m.w; break;
    case 4: s.len[0] = m.c * m.elempack; s.len[1] = m.d; s.len[2] = m.h; s.len[3] = m.w; break;
    default: break;
  }
  return s;
}

int choose_elempack(const Option& opt, long scalars) {
  if (!opt.use_packing_layout) return 1;
  return preferred_elempack(current_isa(), static_cast<int>(scalars));
}

Mat create_blob(const AxisShape& shape, int elempack, size_t lanes, Allocator* allocator) {
  const int outer = shape.len[0] / elempack;
  const size_t elemsize = lanes * elempack;
  Mat m;
  switch (shape.dims) {
    case 1: m.create(outer, elemsize, elempack, allocator); break;
    case 2: m.create(shape.len[1], outer, elemsize, elempack, allocator); break;
    case 3: m.create(shape.len[2], shape.len[1], outer, elemsize, elempack, allocator); break;
    case 4: m.create(shape.len[3], shape.len[2], shape.len[1], outer, elemsize, elempack, allocator); break;
    default: fail("create_blob: dims must be 1..4, got ", shape.dims);
  }
  return m;
}

std::string shape_string(const AxisShape& shape) {
  std::string s;
  for (int axis = shape.dims - 1; axis >= 0; axis--) {
    s += std::to_string(shape.len[axis]);
    if (axis > 0) s += "x";
  }
  return s.empty() ? "(empty)" : s;
}

}  // namespace layers
}  // namespace jitconv
