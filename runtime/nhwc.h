// User tensors in channels-last order (NHWC, PyTorch's channels_last / oneDNN's nhwc)
// and their reorder to and from jitconv's channels-first packed blobs.
//
// A channels-last tensor travels as a Mat whose axes, outermost first as always, are the
// tensor's own: elempack 1, fp32,
//
//   NHWC  (H, W, C):     dims 3, c = H, h = W, w = C     data = H - [W][C]  (rows padded
//   NDHWC (D, H, W, C):  dims 4, c = D, d = H, h = W, w = C                  to cstep)
//
// so Mat(C, W, H) holds an H x W image of C channels. 1-D and 2-D tensors have no channel
// axis to move and are the same in both layouts.
#pragma once
#include <string>

#include "runtime/mat.h"
#include "runtime/option.h"

namespace jitconv {

enum class Layout { nchw, nhwc };

const char* layout_name(Layout layout);
// "nchw" or "nhwc"; anything else throws jitconv::Error.
Layout parse_layout(const std::string& name);

// Channels-last tensor (above) -> blob with `elempack` (1, 4, 8 or 16; 1 when it does not
// divide C). Uses opt.blob_allocator and opt.num_threads.
void nhwc_to_blob(const Mat& nhwc, Mat& blob, int elempack, const Option& opt);
// fp32 blob of any elempack -> channels-last tensor.
void blob_to_nhwc(const Mat& blob, Mat& nhwc, const Option& opt);

}  // namespace jitconv
