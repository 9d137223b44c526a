// Extractor: one inference over a Net (ncnn's Extractor). Give it the input blobs, ask it
// for the blobs you want: extract() runs only the layers the requested blob depends on,
// each once, and keeps what it computed for later extracts.
//
// Light mode (opt.lightmode, on by default) releases an intermediate blob as soon as the
// last layer reading it has run, and lets in-place layers overwrite their input; a blob
// released this way is recomputed if it is extracted later. Inputs are never released.
//
// Layouts at the boundary: input() takes fp32 tensors as NCHW (a plain Mat, any
// elempack) or NHWC (runtime/nhwc.h: Mat(C, W, H)); extract() returns fp32, elempack 1,
// in the layout asked for. Inside, blobs are packed and typed as convert_layout decides.
//
// An Extractor is cheap; make one per inference and per thread. It refers to its Net,
// which must outlive it and must not be cleared or reloaded while it is used.
#pragma once
#include <string>
#include <vector>

#include "runtime/layer.h"
#include "runtime/mat.h"
#include "runtime/net.h"
#include "runtime/nhwc.h"
#include "runtime/option.h"

namespace jitconv {

// Called after every layer an Extractor runs (profiling, counting).
class LayerObserver {
 public:
  virtual ~LayerObserver() = default;
  // convert_seconds: convert_layout of the inputs; forward_seconds: the layer itself.
  virtual void layer_done(size_t layer_index, const Layer& layer, double convert_seconds, double forward_seconds) = 0;
};

class Extractor {
 public:
  explicit Extractor(const Net& net);

  void set_light_mode(bool on) { opt_.lightmode = on; }
  void set_num_threads(int n);
  void set_blob_allocator(Allocator* allocator) { opt_.blob_allocator = allocator; }
  void set_workspace_allocator(Allocator* allocator) { opt_.workspace_allocator = allocator; }
  // nullptr switches observation (and the timing it needs) off.
  void set_observer(LayerObserver* observer) { observer_ = observer; }
  const Option& option() const { return opt_; }

  // Sets a blob (normally an Input layer's). The Mat's data is shared, not copied, for
  // NCHW: keep it unchanged until the extracts are done.
  void input(const std::string& blob_name, const Mat& in, Layout layout = Layout::nchw);
  void input(int blob_index, const Mat& in, Layout layout = Layout::nchw);

  // Computes (if needed) and returns a blob as fp32, elempack 1, in `layout`. The result
  // may share data with the Extractor's copy (never with the Net's blob pool): do not
  // write to it while extracting more.
  void extract(const std::string& blob_name, Mat& out, Layout layout = Layout::nchw);
  void extract(int blob_index, Mat& out, Layout layout = Layout::nchw);
  // The blob as the network holds it (packed, possibly fp16/bf16), without conversion
  // (copied out of the Net's blob pool when it lives there).
  void extract_raw(int blob_index, Mat& out);

  // Forgets every input and computed blob.
  void clear();

 private:
  int blob_index(const std::string& name, const char* what) const;
  void compute(int blob);
  const Mat& computed(int blob);  // compute(blob) after checking the index; the Extractor's copy
  void run_layer(int layer_index);
  Mat take_bottom(int blob);
  // The blob allocator the user chose (null for malloc): opt_'s unless it is the Net's pool.
  Allocator* user_blob_allocator() const;
  // m, or a copy of it through user_blob_allocator() where m lives in the Net's blob pool.
  Mat detached(const Mat& m) const;

  const Net* net_;
  Option opt_;
  LayerObserver* observer_ = nullptr;
  std::vector<Mat> blobs_;
  std::vector<char> ready_;    // per blob: blobs_[b] holds its current value
  std::vector<char> pinned_;   // per blob: set by input(); never released
  std::vector<int> pending_;   // per blob: consumers that have not run yet
};

}  // namespace jitconv
