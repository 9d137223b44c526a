#include "runtime/nhwc.h"

#include "runtime/error.h"
#include "runtime/nhwc_kernels.h"
#include "runtime/packing.h"

namespace jitconv {

const char* layout_name(Layout layout) { return layout == Layout::nhwc ? "nhwc" : "nchw"; }

Layout parse_layout(const std::string& name) {
  if (name == "nchw") return Layout::nchw;
  if (name == "nhwc") return Layout::nhwc;
  fail("unknown layout '", name, "' (nchw or nhwc)");
}

namespace {

void check_fp32(const Mat& m, const char* what) {
  if (m.dims < 1 || m.dims > 4) fail(what, ": expected a 1-D to 4-D tensor, got dims ", m.dims);
  if (m.elembits() != 32) fail(what, ": expected fp32 data, got ", m.elembits(), "-bit lanes");
  if (m.data == nullptr) fail(what, ": tensor has no data");
}

// The job for a channels-last tensor of `nhwc`'s shape and a blob of `blob`'s.
NhwcJob make_job(const Mat& nhwc, const Mat& blob, bool to_blob, const Option& opt) {
  NhwcJob job;
  job.nhwc = static_cast<float*>(nhwc.data);
  job.blob = static_cast<float*>(blob.data);
  job.to_blob = to_blob;
  job.channels = nhwc.w;
  job.elempack = blob.elempack;
  job.rows = nhwc.c;
  job.row_pixels = static_cast<long>(nhwc.h) * nhwc.d;
  job.row_stride = static_cast<long>(nhwc.cstep);
  job.group_stride = static_cast<long>(blob.cstep) * blob.elempack;
  job.num_threads = opt.num_threads;
  return job;
}

}  // namespace

void nhwc_to_blob(const Mat& nhwc, Mat& blob, int elempack, const Option& opt) {
  check_fp32(nhwc, "NHWC input");
  if (nhwc.elempack != 1) fail("NHWC input: expected elempack 1, got ", nhwc.elempack);
  if (nhwc.dims <= 2) {
    convert_packing(nhwc, blob, elempack, opt);
    return;
  }
  const int channels = nhwc.w;
  if (elempack != 1 && elempack != 4 && elempack != 8 && elempack != 16)
    fail("nhwc_to_blob: elempack must be 1, 4, 8 or 16, got ", elempack);
  if (channels % elempack != 0) elempack = 1;
  Mat out;
  if (nhwc.dims == 3)
    out.create(nhwc.h, nhwc.c, channels / elempack, 4u * elempack, elempack, opt.blob_allocator);
  else
    out.create(nhwc.h, nhwc.d, nhwc.c, channels / elempack, 4u * elempack, elempack, opt.blob_allocator);
  const NhwcJob job = make_job(nhwc, out, true, opt);
  JITCONV_SIMD_CALL(nhwc_reorder_kernel, job);
  blob = std::move(out);
}

void blob_to_nhwc(const Mat& blob, Mat& nhwc, const Option& opt) {
  check_fp32(blob, "blob");
  if (blob.dims <= 2) {
    convert_packing(blob, nhwc, 1, opt);
    return;
  }
  const int channels = blob.c * blob.elempack;
  Mat out;
  if (blob.dims == 3)
    out.create(channels, blob.w, blob.h, 4u, 1, opt.blob_allocator);
  else
    out.create(channels, blob.w, blob.h, blob.d, 4u, 1, opt.blob_allocator);
  const NhwcJob job = make_job(out, blob, false, opt);
  JITCONV_SIMD_CALL(nhwc_reorder_kernel, job);
  nhwc = std::move(out);
}

}  // namespace jitconv
