#include "runtime/layer.h"

#include "runtime/error.h"

namespace jitconv {

void Layer::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const {
  if (!one_blob_only) fail(type, " ", name, ": multi-blob forward not implemented");
  if (bottom_blobs.size() != 1) fail(type, " ", name, ": expects one input, got ", bottom_blobs.size());
  top_blobs.resize(1);
  forward(bottom_blobs[0], top_blobs[0], opt);
}

void Layer::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const {
  if (!support_inplace) fail(type, " ", name, ": forward not implemented");
  top_blob = bottom_blob.clone(opt.blob_allocator);
  forward_inplace(top_blob, opt);
}

void Layer::forward_inplace(std::vector<Mat>& blobs, const Option& opt) const {
  if (!one_blob_only) fail(type, " ", name, ": multi-blob in-place forward not implemented");
  if (blobs.size() != 1) fail(type, " ", name, ": expects one blob, got ", blobs.size());
  forward_inplace(blobs[0], opt);
}

void Layer::forward_inplace(Mat& blob, const Option& opt) const {
  fail(type, " ", name, ": in-place forward not implemented");
}

}  // namespace jitconv
