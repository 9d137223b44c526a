#include "runtime/conv_impl.h"

#include "runtime/error.h"

namespace jitconv {

void ConvImpl::forward_residual(const Mat&, const Mat&, Mat&, const Option&) const {
  fail(name(), " convolution does not fuse a residual input");
}

long residual_byte_offset(const Mat& residual, const Mat& top) {
  if (residual.dims != top.dims || residual.w != top.w || residual.h != top.h || residual.c != top.c ||
      residual.elempack != top.elempack || residual.elemsize != top.elemsize)
    fail("residual input is ", residual.w, "x", residual.h, "x", residual.c * residual.elempack, " packed by ",
         residual.elempack, ", the convolution output is ", top.w, "x", top.h, "x", top.c * top.elempack,
         " packed by ", top.elempack);
  if (residual.cstep != top.cstep)
    fail("residual input has channel stride ", residual.cstep, ", the convolution output ", top.cstep);
  return static_cast<long>(static_cast<const char*>(residual.data) - static_cast<const char*>(top.data));
}

}  // namespace jitconv
