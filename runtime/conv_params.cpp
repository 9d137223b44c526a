#include "runtime/conv_params.h"

#include <sstream>

#include "runtime/error.h"
#include "runtime/mat.h"

namespace jitconv {

ConvPads ConvParams::pads_for(int ih, int iw) const {
  ConvPads p;
  const bool upper = pad_top == kPadSameUpper || pad_left == kPadSameUpper || pad_bottom == kPadSameUpper ||
                     pad_right == kPadSameUpper;
  const bool lower = pad_top == kPadSameLower || pad_left == kPadSameLower || pad_bottom == kPadSameLower ||
                     pad_right == kPadSameLower;
  if (upper || lower) {
    const int wpad = extent_w() + (iw - 1) / sw * sw - iw;
    const int hpad = extent_h() + (ih - 1) / sh * sh - ih;
    if (wpad > 0) {
      p.left = upper ? wpad / 2 : wpad - wpad / 2;
      p.right = wpad - p.left;
    }
    if (hpad > 0) {
      p.top = upper ? hpad / 2 : hpad - hpad / 2;
      p.bottom = hpad - p.top;
    }
    return p;
  }
  p.top = pad_top;
  p.left = pad_left;
  p.bottom = pad_bottom;
  p.right = pad_right;
  return p;
}

void ConvParams::output_size(int ih, int iw, int& oh, int& ow) const {
  const ConvPads p = pads_for(ih, iw);
  // The padded input must be an int: the kernels' row and column arithmetic is.
  const int h = checked_extent(static_cast<long long>(ih) + p.top + p.bottom, "padded input height") - extent_h();
  const int w = checked_extent(static_cast<long long>(iw) + p.left + p.right, "padded input width") - extent_w();
  if (h < 0 || w < 0)
    fail("input ", iw, "x", ih, " (w x h) with padding is smaller than the ", kw, "x", kh, " kernel extent ",
         extent_w(), "x", extent_h());
  oh = h / sh + 1;
  ow = w / sw + 1;
}

void ConvParams::check_allocatable(int ih, int iw, const std::string& label) const {
  try {
    int oh, ow;
    output_size(ih, iw, oh, ow);
    const ConvPads p = pads_for(ih, iw);
    check_mat_shape(iw + p.left + p.right, ih + p.top + p.bottom, 1, ic, 4u, 1);
    check_mat_shape(ow, oh, 1, oc, 4u, 1);
  } catch (const Error& e) {
    fail(label, ": ", e.what());
  }
}

bool ConvParams::allocatable(int ih, int iw) const {
  try {
    check_allocatable(ih, iw, "");
    return true;
  } catch (const Error&) {
    return false;
  }
}

std::string ConvParams::to_string() const {
  std::ostringstream os;
  os << "ic" << ic << " oc" << oc << " k" << kh << "x" << kw << " s" << sh << "x" << sw << " d" << dh << "x" << dw
     << " pad " << pad_top << "," << pad_left << "," << pad_bottom << "," << pad_right;
  if (bias) os << " bias";
  if (residual) os << " residual";
  if (act.type != ActivationType::none) os << " " << act.to_string();
  return os.str();
}

}  // namespace jitconv
