// ConvWinograd's tiles at the tensors' edges and the transform steps over blocks of tiles:
// which rows / columns of each tile's input window (output tile) lie outside the tensor,
// the generated transform for each such edge, and the input / output steps that run
// consecutive tiles with the same edge through one kernel call.
#include "runtime/conv_winograd.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>

#include "jit/kernel_registry.h"
#include "jit/winograd_gen.h"
#include "runtime/winograd_edges_kernels.h"

namespace jitconv {

namespace {
constexpr int kOutputEdge = 1 << 16;  // edge_kernels_ keys of output transforms
constexpr size_t kEdgePlans = 16;     // an input and an output plan per shape: the last 8 shapes used

// Calls run(t, ty, tx, key, count) for each run of the tiles [tile_begin, tile_begin +
// count) that lie along one tile row and cross the same edges (key 0: none); t counts
// from tile_begin.
template <typename TileEdges, typename Run>
void for_each_run(const TileEdges& tiles, long tile_begin, int count, Run run) {
  for (int t = 0; t < count;) {
    const long tile = tile_begin + t;
    const int ty = static_cast<int>(tile / tiles.tiles_w), tx = static_cast<int>(tile % tiles.tiles_w);
    const int key = tiles.key(ty, tx);
    int length = 1;
    while (t + length < count && tx + length < tiles.tiles_w && tiles.key(ty, tx + length) == key) length++;
    run(t, ty, tx, key, length);
    t += length;
  }
}
}  // namespace

std::shared_ptr<const ConvWinograd::TileEdges> ConvWinograd::tile_edges(bool input, int h, int w, int top,
                                                                        int left) const {
  std::lock_guard<std::mutex> lock(edge_mutex_);
  for (auto it = edge_plans_.begin(); it != edge_plans_.end(); ++it) {
    const TileEdges& plan = **it;
    if (plan.input == input && plan.h == h && plan.w == w && plan.top == top && plan.left == left) {
      std::rotate(edge_plans_.begin(), it, it + 1);  // most recently used first
      return edge_plans_.front();
    }
  }
  int oh = h, ow = w;  // output: the tensor is the output
  if (input) params_.output_size(h, w, oh, ow);
  auto made = std::make_shared<TileEdges>(TileEdges{input, h, w, top, left, (oh + m_ - 1) / m_, (ow + m_ - 1) / m_, {}, {}, {}});
  TileEdges& tiles = *made;
  // A window's (tile's) rows / columns before and after the tensor, 4 bits each: rows in
  // bits 0-7 of a key, columns in bits 8-15 (extent <= 8).
  const int extent = input ? alpha_ : m_;
  auto edge = [extent](int first, int size) {
    return std::min(extent, std::max(0, -first)) | std::min(extent, std::max(0, first + extent - size)) << 4;
  };
  for (int ty = 0; ty < tiles.tiles_h; ty++) tiles.row_edge.push_back(edge(top + ty * m_, h));
  for (int tx = 0; tx < tiles.tiles_w; tx++) tiles.column_edge.push_back(edge(left + tx * m_, w) << 8);
  auto distinct = [](std::vector<int> keys) {
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return keys;
  };
  // Outputs in a narrower elempack go through a scratch tile: their plan is the tile grid,
  // with no kernels.
  const bool scratch_output = !input && out_pack_ != vlen_;
  const std::vector<int> rows = scratch_output ? std::vector<int>() : distinct(tiles.row_edge);
  const std::vector<int> columns = distinct(tiles.column_edge);
  const JitKernelPtr& plain = input ? input_kernel_ : output_kernel_;
  for (int r : rows)
    for (int c : columns) {
      const int key = r | c;
      if (key == 0) {
        tiles.kernels[0] = plain->entry<WinogradTransformFn>();
        continue;
      }
      const int cache_key = key | (input ? 0 : kOutputEdge);
      auto it = edge_kernels_.find(cache_key);
      if (it == edge_kernels_.end()) {
        WinogradTransformConf conf = input ? input_conf_ : output_conf_;
        conf.edge.top = r & 15;
        conf.edge.bottom = r >> 4;
        conf.edge.left = (c >> 8) & 15;
        conf.edge.right = c >> 12;
        JitKernelPtr kernel = KernelRegistry::instance().get(
            conf.name(), [conf] { return std::make_unique<WinogradTransformGenerator>(conf); });
        it = edge_kernels_.emplace(cache_key, std::move(kernel)).first;
      }
      tiles.kernels[key] = it->second->entry<WinogradTransformFn>();
    }
  edge_plans_.insert(edge_plans_.begin(), made);
  edge_plans_built_++;
  if (edge_plans_.size() > kEdgePlans) edge_plans_.pop_back();
  return made;
}

long ConvWinograd::edge_plans_built() const {
  std::lock_guard<std::mutex> lock(edge_mutex_);
  return edge_plans_built_;
}

void ConvWinograd::input_block(const Mat& bottom, const TileEdges& tiles, long tile_begin, int count, int pack_begin,
                               int pack_end, float* v) const {
  const long vbytes = vlen_ * 4L;
  WinogradTransformArgs args{};
  args.src_stride = tiles.w * vbytes;
  args.src_tile_step = m_ * vbytes;
  args.dst_stride = v_panel(count) * 4;
  args.dst_tile_step = vbytes;
  args.pad_value = params_.pad_value;
  for (int c = pack_begin; c < pack_end; c++) {
    const uintptr_t plane = reinterpret_cast<uintptr_t>(bottom.data) + c * static_cast<long>(bottom.cstep) * vbytes;
    for_each_run(tiles, tile_begin, count, [&](int t, int ty, int tx, int key, int run) {
      // The window's top-left pixel: outside the tensor at a top or left edge, where the
      // edge kernel reads nothing (integer arithmetic: no out-of-range pointer is formed).
      const long y0 = tiles.top + static_cast<long>(ty) * m_, x0 = tiles.left + static_cast<long>(tx) * m_;
      args.src = reinterpret_cast<const float*>(plane + static_cast<uintptr_t>((y0 * tiles.w + x0) * vbytes));
      args.dst = v + (static_cast<long>(c) * count + t) * vlen_;
      args.count = run;
      tiles.kernels.at(key)(&args);
    });
  }
}

void ConvWinograd::output_block(const float* mbuf, const TileEdges& tiles, long tile_begin, int count,
                                int chunk_begin, int chunk_end, const Mat* residual, Mat& top) const {
  const int m = m_;
  const long vbytes = vlen_ * 4L;
  WinogradTransformArgs args{};
  args.src_stride = m_panel(count) * 4;
  args.src_tile_step = vbytes;
  const long plane = static_cast<long>(top.cstep) * out_pack_;
  const long residual_offset = residual ? residual_byte_offset(*residual, top) : 0;
  if (out_pack_ == vlen_) {
    // Straight into the tensor: edge kernels store only the tile's pixels inside it.
    args.dst_stride = top.w * vbytes;
    args.dst_tile_step = m * vbytes;
    args.residual_offset = residual_offset;
    for (int c = chunk_begin; c < chunk_end; c++) {
      args.bias = params_.bias ? static_cast<const float*>(bias_.data) + c * vlen_ : nullptr;
      for_each_run(tiles, tile_begin, count, [&](int t, int ty, int tx, int key, int run) {
        args.src = mbuf + (static_cast<long>(c) * count + t) * vlen_;
        args.dst = static_cast<float*>(top.data) + c * plane + (static_cast<long>(ty) * m * top.w + tx * m) * vlen_;
        args.count = run;
        tiles.kernels.at(key)(&args);
      });
    }
    return;
  }
  // A narrower output packing: each tile through a scratch tile.
  const WinogradTransformFn fn = output_kernel_->entry<WinogradTransformFn>();
  float scratch[6 * 6 * 16];
  float residual_scratch[6 * 6 * 16];  // the tile's residual, laid out like scratch
  args.dst = scratch;
  args.dst_stride = m * vbytes;
  args.dst_tile_step = 0;
  args.count = 1;
  args.residual_offset = reinterpret_cast<const char*>(residual_scratch) - reinterpret_cast<const char*>(scratch);
  for (int c = chunk_begin; c < chunk_end; c++) {
    args.bias = params_.bias ? static_cast<const float*>(bias_.data) + c * vlen_ : nullptr;
    for (int t = 0; t < count; t++) {
      const long tile = tile_begin + t;
      const int oy0 = static_cast<int>(tile / tiles.tiles_w) * m, ox0 = static_cast<int>(tile % tiles.tiles_w) * m;
      args.src = mbuf + (static_cast<long>(c) * count + t) * vlen_;
      const int c0 = c * vlen_;
      WinogradScatterJob edge{static_cast<float*>(top.data) + (c0 / out_pack_) * plane,
                              plane,
                              top.w,
                              oy0,
                              ox0,
                              std::min(m, top.h - oy0),
                              std::min(m, top.w - ox0),
                              m,
                              vlen_,
                              out_pack_,
                              std::min(vlen_, params_.oc - c0),
                              scratch};
      if (residual) {
        WinogradScatterJob gather = edge;
        gather.tensor = static_cast<float*>(residual->data) + (c0 / out_pack_) * plane;
        gather.scratch = residual_scratch;
        JITCONV_SIMD_CALL_ISA(isa_, gather_winograd_tile, gather);
      }
      fn(&args);
      JITCONV_SIMD_CALL_ISA(isa_, scatter_winograd_tile, edge);
    }
  }
}

}  // namespace jitconv
