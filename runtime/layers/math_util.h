// Internal helpers shared by the math-group layers (runtime/layers): shape checks,
// packing choices and workspace conversions. Not part of the public API.
#pragma once
#include <cstddef>
#include <string>

#include "runtime/cpu.h"
#include "runtime/error.h"
#include "runtime/layer.h"
#include "runtime/mat.h"
#include "runtime/option.h"
#include "runtime/packing.h"

namespace jitconv {
namespace layers {

// Threads worth starting for a loop over `work` scalars (or multiply-adds): forking a
// team costs more than a small loop, so small blobs run on the calling thread.
constexpr size_t kMinWorkPerThread = 8192;
inline int thread_count(const Option& opt, size_t work) {
  const size_t useful = work / kMinWorkPerThread;
  const size_t allowed = opt.num_threads > 1 ? static_cast<size_t>(opt.num_threads) : 1;
  return static_cast<int>(useful < 1 ? 1 : useful < allowed ? useful : allowed);
}

// "<Type> <name>" for error messages.
inline std::string layer_label(const Layer& layer) { return layer.type + " " + layer.name; }

// Throws unless m is a non-empty fp32 blob of 1-4 dims.
inline void check_fp32_blob(const Layer& layer, const Mat& m, const char* what = "input") {
  if (m.dims < 1 || m.dims > 4 || m.data == nullptr)
    fail(layer_label(layer), ": ", what, " is empty or has ", m.dims, " dims");
  if (m.elembits() != 32)
    fail(layer_label(layer), ": ", what, " must be fp32, got ", m.elembits(), "-bit lanes");
}

// Throws unless a weight loaded by load_model holds `count` fp32 values.
inline void check_fp32_weight(const Layer& layer, const Mat& m, size_t count, const char* what) {
  if (m.data == nullptr || m.elemsize != 4u || m.elempack != 1)
    fail(layer_label(layer), ": ", what, " must be fp32 (int8-quantized weights are not supported)");
  const size_t have = static_cast<size_t>(m.w) * m.h * m.d * m.c;
  if (have != count) fail(layer_label(layer), ": ", what, " holds ", have, " values, expected ", count);
}

// Scalars along the packing axis (w for 1-D, h for 2-D, c for 3-D/4-D).
inline int packed_axis_scalars(const Mat& m) {
  return (m.dims == 1 ? m.w : m.dims == 2 ? m.h : m.c) * m.elempack;
}

// Packed elements of one channel (3-D/4-D) or of the whole blob (1-D/2-D).
inline size_t plane_elements(const Mat& m) { return static_cast<size_t>(m.w) * m.h * m.d; }

// Number of "channels" a per-channel loop walks: c for 3-D/4-D, 1 otherwise.
inline int channel_count(const Mat& m) { return m.dims >= 3 ? m.c : 1; }

// Float pointer to packed channel q (3-D/4-D) or to the data (1-D/2-D).
inline float* channel_ptr(Mat& m, int q) {
  return static_cast<float*>(m.data) + m.cstep * static_cast<size_t>(q) * m.elempack;
}
inline const float* channel_ptr(const Mat& m, int q) {
  return static_cast<const float*>(m.data) + m.cstep * static_cast<size_t>(q) * m.elempack;
}

// The elempack a new blob of `channels` scalars along its packing axis gets.
inline int output_elempack(const Option& opt, int channels) {
  return opt.use_packing_layout ? preferred_elempack(current_isa(), channels) : 1;
}

// opt with blob_allocator replaced by the workspace allocator: for scratch conversions.
inline Option workspace_option(const Option& opt) {
  Option o = opt;
  o.blob_allocator = opt.workspace_allocator;
  return o;
}

// m repacked to `elempack` (a view when it already is) in workspace memory.
inline Mat repack_workspace(const Mat& m, int elempack, const Option& opt) {
  Mat out;
  convert_packing(m, out, elempack, workspace_option(opt));
  return out;
}

// m repacked to `elempack` in blob memory (the layer's output).
inline Mat repack_blob(const Mat& m, int elempack, const Option& opt) {
  Mat out;
  convert_packing(m, out, elempack, opt);
  return out;
}

// A fp32 blob of the given dims/shape; w, h, d are element counts, `outer` is the packed
// count along the packing axis (w for 1-D, h for 2-D, c for 3-D/4-D).
inline void create_blob(Mat& m, int dims, int w, int h, int d, int c, int elempack, Allocator* allocator) {
  const size_t elemsize = 4u * elempack;
  switch (dims) {
    case 1: m.create(w, elemsize, elempack, allocator); break;
    case 2: m.create(w, h, elemsize, elempack, allocator); break;
    case 3: m.create(w, h, c, elemsize, elempack, allocator); break;
    default: m.create(w, h, d, c, elemsize, elempack, allocator); break;
  }
}

}  // namespace layers
}  // namespace jitconv
