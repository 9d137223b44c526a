// ConvWinograd's tiles and the transform steps over blocks of tiles: the sub-images of a
// dilated layer (one, the tensors, when undilated), which rows / columns of each tile's
// input window (output tile) lie outside its sub-image, the generated transform for each
// such edge, and the input / output steps that run consecutive tiles with the same edge
// through one kernel call.
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
constexpr size_t kTilePlans = 8;      // the tile plans of the last 8 input shapes used

// Calls run(part, edges, t, ty, tx, key, count) for each run of the tiles [tile_begin,
// tile_begin + count) that lie along one tile row of one sub-image and cross the same
// edges (key 0: none); t counts from tile_begin, edges are the part's input or output ones.
template <typename Plan, typename Run>
void for_each_run(const Plan& plan, bool input, long tile_begin, int count, Run run) {
  // The tile row holding tile_begin, then on from row to row.
  size_t r = std::upper_bound(plan.rows.begin(), plan.rows.end(), tile_begin,
                              [](long tile, const auto& row) { return tile < row.first_tile; }) -
             plan.rows.begin() - 1;
  for (int t = 0; t < count;) {
    const long tile = tile_begin + t;
    while (r + 1 < plan.rows.size() && plan.rows[r + 1].first_tile <= tile) r++;
    const auto& row = plan.rows[r];
    const auto& part = plan.parts[row.part];
    const auto& edges = input ? part.input : part.output;
    const int ty = row.ty, tx = static_cast<int>(tile - row.first_tile);
    const int key = edges.key(ty, tx);
    int length = 1;
    while (t + length < count && tx + length < edges.tiles_w && edges.key(ty, tx + length) == key) length++;
    run(part, edges, t, ty, tx, key, length);
    t += length;
  }
}

// a = q * d + r with 0 <= r < d (d > 0), for negative a too.
void floor_divide(int a, int d, int& q, int& r) {
  q = a >= 0 ? a / d : -((-a + d - 1) / d);
  r = a - q * d;
}
}  // namespace

std::shared_ptr<const ConvWinograd::TilePlan> ConvWinograd::tile_plan(int ih, int iw) const {
  std::lock_guard<std::mutex> lock(edge_mutex_);
  for (auto it = tile_plans_.begin(); it != tile_plans_.end(); ++it)
    if ((*it)->ih == ih && (*it)->iw == iw) {
      std::rotate(tile_plans_.begin(), it, it + 1);  // most recently used first
      return tile_plans_.front();
    }
  int oh, ow;
  params_.output_size(ih, iw, oh, ow);
  const ConvPads pads = params_.pads_for(ih, iw);
  auto made = std::make_shared<TilePlan>();
  made->ih = ih;
  made->iw = iw;
  if (region_ == Region::whole)
    add_sub_images(*made, oh, ow, pads);
  else
    add_split_rectangles(*made, oh, ow, pads);
  tile_plans_.insert(tile_plans_.begin(), made);
  tile_plans_built_++;
  if (tile_plans_.size() > kTilePlans) tile_plans_.pop_back();
  return made;
}

void ConvWinograd::add_sub_images(TilePlan& made, int oh, int ow, const ConvPads& pads) const {
  const int ih = made.ih, iw = made.iw;
  for (int ry = 0; ry < std::min(dh_, oh); ry++)
    for (int rx = 0; rx < std::min(dw_, ow); rx++) {
      SubImage part;
      part.out_y = ry;
      part.out_x = rx;
      const int out_h = (oh - ry + dh_ - 1) / dh_, out_w = (ow - rx + dw_ - 1) / dw_;
      // Output row ry + dh k, kernel row ky, reads input row ry - pad_top + dh (k + ky) =
      // in_y + dh (k + ky + top): sub-image rows in_y + dh i, the first window's at i = top.
      int top, left;
      floor_divide(ry - pads.top, dh_, top, part.in_y);
      floor_divide(rx - pads.left, dw_, left, part.in_x);
      const int in_h = part.in_y < ih ? (ih - part.in_y + dh_ - 1) / dh_ : 0;
      const int in_w = part.in_x < iw ? (iw - part.in_x + dw_ - 1) / dw_ : 0;
      const int tiles_h = (out_h + m_ - 1) / m_, tiles_w = (out_w + m_ - 1) / m_;
      part.input = tile_edges(true, in_h, in_w, top, left, tiles_h, tiles_w);
      part.output = tile_edges(false, out_h, out_w, 0, 0, tiles_h, tiles_w);
      made.parts.push_back(std::move(part));
    }
  // Tile row ty of every sub-image, then row ty + 1: the sub-images' tiles of one band of
  // the tensors run close together in time, and lines the prefetchers bring in next to a
  // sub-image's pixels (the other sub-images') are used before they leave L2 (x oneDNN,
  // six interleaved rounds, one thread: 64@56 d2 2.49 sub-image after sub-image -> 2.62;
  // 128@28 d2 2.05 -> 2.12).
  for (int ty = 0;; ty++) {
    const long before = made.tiles;
    for (size_t i = 0; i < made.parts.size(); i++) {
      const TileEdges& edges = made.parts[i].output;
      if (ty >= edges.tiles_h) continue;
      made.rows.push_back(TilePlan::TileRow{made.tiles, static_cast<int>(i), ty});
      made.tiles += edges.tiles_w;
    }
    if (made.tiles == before) break;
  }
}

void ConvWinograd::add_split_rectangles(TilePlan& made, int oh, int ow, const ConvPads& pads) const {
  const int ih = made.ih, iw = made.iw;
  // A border split (undilated): rectangles of the output, each its own sub-image of the
  // whole input; the tiles row by row, rectangle after rectangle.
  int rows, columns;
  border_split(oh, ow, split_m_, split_border_m_, rows, columns);
  struct Rect {
    int y, x, h, w;
  };
  std::vector<Rect> rects;
  if (region_ == Region::interior) {
    if (rows > 0 && columns > 0) rects.push_back({0, 0, rows, columns});
  } else if (rows == 0 || columns == 0) {
    rects.push_back({0, 0, oh, ow});
  } else {
    if (ow > columns) rects.push_back({0, columns, rows, ow - columns});
    if (oh > rows) rects.push_back({rows, 0, oh - rows, ow});
  }
  for (const Rect& r : rects) {
    SubImage part;
    part.out_y = r.y;
    part.out_x = r.x;
    const int tiles_h = (r.h + m_ - 1) / m_, tiles_w = (r.w + m_ - 1) / m_;
    part.input = tile_edges(true, ih, iw, r.y - pads.top, r.x - pads.left, tiles_h, tiles_w);
    part.output = tile_edges(false, r.h, r.w, 0, 0, tiles_h, tiles_w);
    for (int ty = 0; ty < tiles_h; ty++) {
      made.rows.push_back(TilePlan::TileRow{made.tiles, static_cast<int>(made.parts.size()), ty});
      made.tiles += tiles_w;
    }
    made.parts.push_back(std::move(part));
  }
}

ConvWinograd::TileEdges ConvWinograd::tile_edges(bool input, int h, int w, int top, int left, int tiles_h,
                                                 int tiles_w) const {
  TileEdges tiles{h, w, top, left, tiles_h, tiles_w, {}, {}, {}};
  // A window's (tile's) rows / columns before and after the sub-image, 4 bits each: rows
  // in bits 0-7 of a key, columns in bits 8-15 (extent <= 8).
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
  return tiles;
}

long ConvWinograd::tile_plans_built() const {
  std::lock_guard<std::mutex> lock(edge_mutex_);
  return tile_plans_built_;
}

void ConvWinograd::tile_rows(int ih, int iw, bool input, long tile_begin, int count, int& begin, int& end) const {
  tile_rows(*tile_plan(ih, iw), input, tile_begin, count, begin, end);
}

void ConvWinograd::tile_rows(const TilePlan& tiles, bool input, long tile_begin, int count, int& begin,
                             int& end) const {
  int oh, ow;
  params_.output_size(tiles.ih, tiles.iw, oh, ow);
  const int limit = input ? tiles.ih : oh;
  begin = limit;
  end = 0;
  for (const TilePlan::TileRow& row : tiles.rows) {
    const SubImage& part = tiles.parts[row.part];
    const TileEdges& edges = input ? part.input : part.output;
    if (row.first_tile >= tile_begin + count || row.first_tile + edges.tiles_w <= tile_begin) continue;
    // Sub-image rows [first, first + extent) of the tile row, at tensor rows y0 + dh i.
    const int first = (input ? edges.top : 0) + row.ty * m_, extent = input ? alpha_ : m_;
    const int y0 = input ? part.in_y : part.out_y;
    const int lo = std::max(0, first), hi = std::min(edges.h, first + extent);
    if (lo >= hi) continue;
    begin = std::min(begin, y0 + dh_ * lo);
    end = std::max(end, std::min(limit, y0 + dh_ * (hi - 1) + 1));
  }
  if (begin >= end) begin = end = 0;
}

void ConvWinograd::input_block(const Mat& bottom, const TilePlan& tiles, long tile_begin, int count, int pack_begin,
                               int pack_end, const BlockBuffers& buf) const {
  const long vbytes = vlen_ * 4L;
  WinogradTransformArgs args{};
  args.src_stride = dh_ * bottom.w * vbytes;
  args.src_tile_step = m_ * dw_ * vbytes;
  args.dst_stride = buf.v_stride * 4;
  args.dst_tile_step = vbytes;
  args.pad_value = params_.pad_value;
  for (int c = pack_begin; c < pack_end; c++) {
    const uintptr_t plane = reinterpret_cast<uintptr_t>(bottom.data) + c * static_cast<long>(bottom.cstep) * vbytes;
    for_each_run(tiles, true, tile_begin, count,
                 [&](const SubImage& part, const TileEdges& edges, int t, int ty, int tx, int key, int run) {
                   // The window's top-left pixel: outside the tensor at a top or left edge,
                   // where the edge kernel reads nothing (integer arithmetic: no
                   // out-of-range pointer is formed).
                   const long y0 = part.in_y + dh_ * (edges.top + static_cast<long>(ty) * m_);
                   const long x0 = part.in_x + dw_ * (edges.left + static_cast<long>(tx) * m_);
                   args.src = reinterpret_cast<const float*>(plane + static_cast<uintptr_t>((y0 * bottom.w + x0) * vbytes));
                   args.dst = buf.v + (static_cast<long>(c) * count + t) * vlen_;
                   args.count = run;
                   edges.kernels.at(key)(&args);
                 });
  }
}

void ConvWinograd::output_block(const BlockBuffers& buf, const TilePlan& tiles, long tile_begin, int count,
                                int chunk_begin, int chunk_end, const Mat* residual, Mat& top) const {
  const int m = m_;
  const long vbytes = vlen_ * 4L;
  WinogradTransformArgs args{};
  args.src_stride = buf.m_stride * 4;
  args.src_tile_step = vbytes;
  const long plane = static_cast<long>(top.cstep) * out_pack_;
  const long residual_offset = residual ? residual_byte_offset(*residual, top) : 0;
  if (out_pack_ == vlen_) {
    // Straight into the tensor: edge kernels store only the tile's pixels inside it.
    args.dst_stride = dh_ * top.w * vbytes;
    args.dst_tile_step = m * dw_ * vbytes;
    args.residual_offset = residual_offset;
    for (int c = chunk_begin; c < chunk_end; c++) {
      args.bias = params_.bias ? static_cast<const float*>(bias_.data) + c * vlen_ : nullptr;
      for_each_run(tiles, false, tile_begin, count,
                   [&](const SubImage& part, const TileEdges& edges, int t, int ty, int tx, int key, int run) {
                     const long y0 = part.out_y + static_cast<long>(dh_) * ty * m;
                     const long x0 = part.out_x + static_cast<long>(dw_) * tx * m;
                     args.src = buf.m + (static_cast<long>(c) * count + t) * vlen_;
                     args.dst = static_cast<float*>(top.data) + c * plane + (y0 * top.w + x0) * vlen_;
                     args.count = run;
                     edges.kernels.at(key)(&args);
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
    const int c0 = c * vlen_;
    for_each_run(tiles, false, tile_begin, count,
                 [&](const SubImage& part, const TileEdges& edges, int t0, int ty, int tx0, int, int run) {
                   for (int i = 0; i < run; i++) {
                     const int tx = tx0 + i;
                     args.src = buf.m + (static_cast<long>(c) * count + t0 + i) * vlen_;
                     WinogradScatterJob edge{static_cast<float*>(top.data) + (c0 / out_pack_) * plane,
                                             plane,
                                             top.w,
                                             part.out_y + dh_ * ty * m,
                                             part.out_x + dw_ * tx * m,
                                             std::min(m, edges.h - ty * m),
                                             std::min(m, edges.w - tx * m),
                                             m,
                                             vlen_,
                                             out_pack_,
                                             std::min(vlen_, params_.oc - c0),
                                             scratch,
                                             dh_,
                                             dw_};
                     if (residual) {
                       WinogradScatterJob gather = edge;
                       gather.tensor = static_cast<float*>(residual->data) + (c0 / out_pack_) * plane;
                       gather.scratch = residual_scratch;
                       JITCONV_SIMD_CALL_ISA(isa_, gather_winograd_tile, gather);
                     }
                     fn(&args);
                     JITCONV_SIMD_CALL_ISA(isa_, scatter_winograd_tile, edge);
                   }
                 });
  }
}

}  // namespace jitconv
