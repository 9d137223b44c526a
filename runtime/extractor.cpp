#include "runtime/extractor.h"

#include <chrono>
#include <utility>

#include "runtime/convert_layout.h"
#include "runtime/error.h"
#include "runtime/packing.h"

namespace jitconv {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// In-place layers write into their input: give them a buffer nobody else holds (a user's
// Mat, a view, or a blob another consumer still reads gets copied first).
void make_exclusive(Mat& m, const Option& opt) {
  if (m.data == nullptr) return;
  if (m.refcount == nullptr || m.refcount->load() != 1) m = m.clone(opt.blob_allocator);
}

}  // namespace

Extractor::Extractor(const Net& net) : net_(&net), opt_(net.opt) {
  if (!net.ready_) fail("create_extractor: no model loaded (call load_param and load_model)");
  if (opt_.num_threads < 1) fail("create_extractor: Net::opt.num_threads must be at least 1, got ", opt_.num_threads);
  // Packing and storage follow what the pipelines were made for.
  opt_.use_packing_layout = net.pipeline_opt_.use_packing_layout;
  opt_.use_fp16_storage = net.pipeline_opt_.use_fp16_storage;
  opt_.use_bf16_storage = net.pipeline_opt_.use_bf16_storage;
  if (opt_.use_local_pool_allocator && !opt_.workspace_allocator) opt_.workspace_allocator = net.workspace_pool_.get();
  if (opt_.use_local_pool_allocator && !opt_.blob_allocator) opt_.blob_allocator = net.blob_pool_.get();
  clear();
}

void Extractor::set_num_threads(int n) {
  if (n < 1) fail("set_num_threads: need at least 1 thread, got ", n);
  opt_.num_threads = n;
}

void Extractor::clear() {
  const size_t blobs = net_->blob_count();
  blobs_.assign(blobs, Mat());
  ready_.assign(blobs, 0);
  pinned_.assign(blobs, 0);
  pending_ = net_->consumer_count_;
}

int Extractor::blob_index(const std::string& name, const char* what) const {
  const int index = net_->find_blob(name);
  if (index < 0) fail(what, ": the network has no blob named '", name, "'");
  return index;
}

void Extractor::input(const std::string& blob_name, const Mat& in, Layout layout) {
  input(blob_index(blob_name, "input"), in, layout);
}

void Extractor::input(int blob, const Mat& in, Layout layout) {
  if (blob < 0 || static_cast<size_t>(blob) >= blobs_.size())
    fail("input: blob index ", blob, " outside 0..", static_cast<int>(blobs_.size()) - 1);
  const std::string& name = net_->blob_name(blob);
  // Nothing reads a blob residual fusion folded away: a value set there would be ignored.
  if (net_->producer_[blob] < 0 && net_->fused_into(blob) >= 0)
    fail("input '", name, "': residual fusion folded this blob into ", net_->layer_location(net_->fused_into(blob)),
         ", nothing would read it (set Option::use_residual_fusion = false before load_model to keep it)");
  if (in.dims == 0 || in.data == nullptr) fail("input '", name, "': the Mat is empty");
  if (in.elembits() != 32) fail("input '", name, "': expected fp32 data, got ", in.elembits(), "-bit lanes");
  Mat blob_value;
  if (layout == Layout::nhwc) {
    const int channels = in.dims >= 3 ? in.w : outer_scalars(in);
    const int elempack = opt_.use_packing_layout ? preferred_elempack(net_->isa(), channels) : 1;
    nhwc_to_blob(in, blob_value, elempack, opt_);
  } else {
    blob_value = in;
  }
  // Blobs computed from earlier inputs are stale now.
  for (size_t b = 0; b < blobs_.size(); b++) {
    if (pinned_[b]) continue;
    blobs_[b].release();
    ready_[b] = 0;
  }
  pending_ = net_->consumer_count_;
  blobs_[blob] = std::move(blob_value);
  ready_[blob] = 1;
  pinned_[blob] = 1;
}

void Extractor::extract(const std::string& blob_name, Mat& out, Layout layout) {
  extract(blob_index(blob_name, "extract"), out, layout);
}

void Extractor::extract(int blob, Mat& out, Layout layout) {
  const Mat& raw = computed(blob);
  if (raw.dims == 0) {
    out = raw;
    return;
  }
  // The result goes to the user's allocator (or malloc), not the Net's blob pool.
  Option out_opt = opt_;
  out_opt.blob_allocator = user_blob_allocator();
  if (layout == Layout::nhwc) {
    Mat wide;
    convert_layout(raw, wide, raw.elempack, Storage::fp32, opt_);
    blob_to_nhwc(wide, out, out_opt);
  } else {
    convert_to_plain(raw, out, out_opt);
  }
  out = detached(out);
}

void Extractor::extract_raw(int blob, Mat& out) { out = detached(computed(blob)); }

const Mat& Extractor::computed(int blob) {
  if (blob < 0 || static_cast<size_t>(blob) >= blobs_.size())
    fail("extract: blob index ", blob, " outside 0..", static_cast<int>(blobs_.size()) - 1);
  compute(blob);
  return blobs_[blob];
}

Allocator* Extractor::user_blob_allocator() const {
  return opt_.blob_allocator == net_->blob_pool_.get() ? nullptr : opt_.blob_allocator;
}

Mat Extractor::detached(const Mat& m) const {
  return m.allocator == net_->blob_pool_.get() && m.data ? m.clone(user_blob_allocator()) : m;
}

// Runs the producers the blob depends on, depth first, with an explicit stack so deep
// graphs cannot exhaust the call stack.
void Extractor::compute(int target) {
  if (ready_[target]) return;
  if (net_->producer_[target] < 0 && net_->fused_into(target) >= 0)
    fail("blob '", net_->blob_name(target), "' is not computed: residual fusion folded it into ",
         net_->layer_location(net_->fused_into(target)), " (set Option::use_residual_fusion = false before load_model to keep it)");
  if (net_->producer_[target] < 0) fail("blob '", net_->blob_name(target), "' has no producer and was not set");
  std::vector<int> stack = {net_->producer_[target]};
  while (!stack.empty()) {
    const int layer_index = stack.back();
    const Layer& layer = net_->layer(layer_index);
    int missing = -1;
    for (int b : layer.bottoms)
      if (!ready_[b]) {
        missing = b;
        break;
      }
    if (missing >= 0) {
      if (net_->producer_[missing] < 0) fail("blob '", net_->blob_name(missing), "' has no producer and was not set");
      stack.push_back(net_->producer_[missing]);
      continue;
    }
    run_layer(layer_index);
    stack.pop_back();
  }
}

Mat Extractor::take_bottom(int blob) {
  Mat m = blobs_[blob];
  if (pending_[blob] > 0) pending_[blob]--;
  if (opt_.lightmode && pending_[blob] == 0 && !pinned_[blob]) {
    blobs_[blob].release();
    ready_[blob] = 0;
  }
  return m;
}

void Extractor::run_layer(int layer_index) {
  const Layer& layer = net_->layer(layer_index);
  if (layer.type == "Input") {
    // The top that is missing (an Input layer may declare several, some of them set).
    int unset = layer.tops.empty() ? -1 : layer.tops[0];
    for (int t : layer.tops)
      if (!ready_[t]) {
        unset = t;
        break;
      }
    const std::string top = unset < 0 ? layer.name : net_->blob_name(unset);
    fail("input blob '", top, "' was not set (call Extractor::input before extract; ",
         net_->layer_location(layer_index), ")");
  }
  const Clock::time_point start = observer_ ? Clock::now() : Clock::time_point();
  std::vector<Mat> bottoms;
  bottoms.reserve(layer.bottoms.size());
  for (int b : layer.bottoms) bottoms.push_back(take_bottom(b));
  // 16-bit blobs stay 16-bit through a layer that takes them when all its inputs arrive
  // 16-bit; everything else runs on fp32. The Net never casts an fp32 blob down: every
  // built-in layer that takes 16-bit blobs only moves values, so casting down in front of
  // it would round them for nothing, and an fp32 model's outputs stay fp32 (ncnn's x86
  // build never casts blobs to fp16 either). 16-bit blobs come from a custom layer that
  // produces them; the layers that cannot take them get them back as fp32.
  Storage storage = layer_storage(layer, opt_);
  for (const Mat& m : bottoms)
    if (m.elembits() != 16) storage = Storage::fp32;
  if (bottoms.empty()) storage = Storage::fp32;
  std::vector<Mat> tops(layer.tops.size());
  Clock::time_point converted;
  try {
    for (Mat& m : bottoms) convert_layout(m, m, layer_elempack(layer, m, opt_, net_->isa()), storage, opt_);
    if (observer_) converted = Clock::now();
    if (layer.one_blob_only) {
      if (bottoms.size() != 1 || tops.size() != 1)
        fail("a one-blob layer needs 1 input and 1 output, has ", bottoms.size(), " and ", tops.size());
      if (layer.support_inplace) {
        make_exclusive(bottoms[0], opt_);
        layer.forward_inplace(bottoms[0], opt_);
        tops[0] = std::move(bottoms[0]);
      } else {
        layer.forward(bottoms[0], tops[0], opt_);
      }
    } else if (layer.support_inplace) {
      for (Mat& m : bottoms) make_exclusive(m, opt_);
      layer.forward_inplace(bottoms, opt_);
      if (bottoms.size() < tops.size())
        fail("in-place layer left ", bottoms.size(), " blobs for ", tops.size(), " outputs");
      for (size_t t = 0; t < tops.size(); t++) tops[t] = std::move(bottoms[t]);
    } else {
      layer.forward(bottoms, tops, opt_);
      if (tops.size() != layer.tops.size())
        fail("produced ", tops.size(), " outputs, the graph names ", layer.tops.size());
    }
  } catch (const Error& e) {
    fail(net_->layer_location(layer_index), ": ", e.what());
  }
  bottoms.clear();
  const Clock::time_point done = observer_ ? Clock::now() : Clock::time_point();
  for (size_t t = 0; t < tops.size(); t++) {
    const int b = layer.tops[t];
    if (pinned_[b]) continue;  // the user's value wins over a recomputed one
    blobs_[b] = std::move(tops[t]);
    ready_[b] = 1;
    // A blob recomputed after light mode released it waits for all its readers again:
    // counting down from zero, its first reader would release it and the next one
    // recompute it, doubling the work at every blob read twice on the way.
    if (pending_[b] == 0) pending_[b] = net_->consumer_count_[b];
  }
  if (observer_)
    observer_->layer_done(layer_index, layer, seconds_between(start, converted), seconds_between(converted, done));
}

}  // namespace jitconv
