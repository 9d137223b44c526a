// Winograd F(m, 3) convolution for 3x3, stride 1, any dilation (m = 2, 4, 6).
//
// Per block of output tiles: transform the input tiles of all channels (V), multiply per
// transform position on the GEMM microkernel (M_p = U_p V_p over input channels), transform
// back with bias and activation into the output elempack. Blocks are sized so V and M
// stay in L2 while they are used (M written over the V already consumed): no whole-tensor
// pass through memory. When there are
// too few tiles to give every thread a block, the three steps run as parallel phases.
// Tiles that cross the tensors' edges go through transforms generated per edge, straight
// from and into the tensors (conv_winograd_tiles.cpp: the tile plans and the two
// transform steps). A dilated layer runs as its dh x dw undilated sub-images, read and
// written in place through strided transforms. A border split runs two instances on one
// output, each tiling its own rectangles of it.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "jit/winograd_conf.h"
#include "runtime/conv_impl.h"
#include "runtime/gemm_kernel_cache.h"

namespace jitconv {

class ConvWinograd final : public ConvImpl {
 public:
  // border_m > 0 (undilated layers only): F(m, 3) on the output rectangle of whole tiles
  // whose split costs fewest multiplies (border_split) and F(border_m, 3) on the rows and
  // columns past it, which m would cover loosely (28 = 4 x 6 + 4 instead of 5 x 6 over 30).
  ConvWinograd(const ConvParams& params, const float* weights, const float* bias, Isa isa, int in_pack, int out_pack,
               int m, int border_m = 0);
  ~ConvWinograd() override;

  int in_elempack() const override { return in_pack_; }
  int out_elempack() const override { return out_pack_; }
  void prepare(int ih, int iw) override;
  void forward(const Mat& bottom, Mat& top, const Option& opt) const override;
  // The output transform adds the residual (any output elempack).
  bool fuses_residual() const override { return params_.residual; }
  void forward_residual(const Mat& bottom, const Mat& residual, Mat& top, const Option& opt) const override;
  std::string name() const override;
  std::string describe() const override;
  size_t weight_bytes() const override;

  // The output rectangle [0, rows) x [0, columns) F(m, 3) covers, the rest on F(border_m, 3):
  // the split of fewest multiplies (alpha^2 per tile), rows and columns multiples of m.
  // rows or columns 0: all on F(border_m, 3).
  static void border_split(int oh, int ow, int m, int border_m, int& rows, int& columns);
  // Multiplies per input x output channel pair (transform positions x tiles) of that split.
  static long border_split_positions(int oh, int ow, int m, int border_m);

  // How an output of `tiles` tiles runs on `threads` threads.
  enum class Split {
    blocked,       // each thread its share of the tiles, in blocks
    phased,        // one block of all tiles, each step split across threads
    by_channels,   // one block of all tiles per thread: each transforms the whole input and
                   // takes a share of the output-channel groups (nothing crosses cores)
  };
  struct Plan {
    Split split;
    int block;  // tiles per block (at most)
  };
  // Fewest tiles a blocked plan's block takes while U streams from L3 (see plan()).
  static constexpr long kStreamingBlockTiles = 12;
  // With an L2 of kWinogradLargeL2Bytes or more and U within 4 L2: the fewest (see plan()).
  static constexpr long kLargeL2BlockTiles = 6;
  // The same on full-width AVX-512 (CpuInfo::zmm_half_rate false), whatever U's size.
  static constexpr long kFullRateBlockTiles = 18;
  Plan plan(long tiles, int threads) const;
  static std::string plan_name(const Plan& plan);  // "blocked, blocks of up to 40 tiles", "phased", ...
  // The distinct tile counts of the blocks a plan runs (each thread's share of the tiles
  // in equal blocks of at most plan.block).
  static std::vector<int> block_sizes(long tiles, int threads, const Plan& plan);
  // Blocked plans: the blocks of team `team` of `teams` (an equal share of the tiles, to
  // one tile, in equal blocks of at most max_block tiles).
  struct TileBlock {
    long first;
    int count;
  };
  static std::vector<TileBlock> team_blocks(long tiles, int teams, int team, int max_block);
  // Tile plans built so far (one per new input shape; tests check the cache).
  long tile_plans_built() const;

  // The prefetch stream of a thread's GEMM calls: bands of whole rows of the tensors'
  // channel planes (the blocked plan: the next block's input rows, then this block's
  // output and residual rows; the others: the output rows of the thread's chunks), handed
  // out to the calls in contiguous slices.
  struct PrefetchStream {
    struct Band {
      const char* begin;
      long lines;
    };
    std::vector<Band> bands;
    long per_call = 0;  // lines a call takes (at most)
    size_t band = 0;
    long line = 0;  // in bands[band]
    long total_lines() const;
    // The next call's slice: its first line and line count (0 once the bands are spent).
    void next_slice(long capacity, const void** first, long* lines);
  };
  // Appends the rows [row_begin, row_end) of channel planes [plane_begin, plane_end) of
  // `mat` (plane_end < 0: to the last) to the stream.
  static void add_rows(PrefetchStream& stream, const Mat& mat, int row_begin, int row_end, int plane_begin = 0,
                       int plane_end = -1);
  // The tensor rows [begin, end) that tiles [tile_begin, tile_begin + count) of an ih x iw
  // input read (input) or write (output), whole rows: a partly covered tile row counts
  // whole, a dilated layer's band spans its sub-images' rows. Empty: begin == end == 0.
  void tile_rows(int ih, int iw, bool input, long tile_begin, int count, int& begin, int& end) const;

 private:
  void run(const Mat& bottom, const Mat* residual, Mat& top, const Option& opt) const;
  // The GEMM kernels of every chunk group for blocks of tile_count tiles (the lookups
  // lock: resolve once per block or thread, not per call).
  struct BlockKernels {
    int tile_count;
    int nr;  // tiles per register block
    int x_lines;  // GemmConf::prefetch_x_lines
    std::vector<GemmKernelCache::Kernel> groups;
  };
  BlockKernels block_kernels(int tile_count) const;
  // The stream of one thread's GEMM calls (`calls` of them): the input rows [in_begin,
  // in_end) of every input plane, then the output rows [out_begin, out_end) of chunks
  // [chunk_begin, chunk_end) (and the residual's, which the output transform reads).
  PrefetchStream gemm_stream(const Mat& bottom, int in_begin, int in_end, const Mat& top, const Mat* residual,
                             int out_begin, int out_end, int chunk_begin, int chunk_end, long calls) const;
  // GemmConf::prefetch_x_lines for calls on register blocks of nr tiles: enough that a
  // block's GEMM calls can fetch the next block's input rows and the block's own output
  // rows (1 for 64 input channels, more for fewer).
  int x_prefetch_lines(int nr) const;
  int register_block(int tile_count) const;  // equal register blocks of at most nr_max_ tiles
  // Where one block's V and M live: position p's panel at v + p * v_stride (floats), and
  // the same for M.
  struct BlockBuffers {
    float* v;
    long v_stride;
    float* m;
    long m_stride;
  };
  // The blocked plan's buffers, alpha^2 + 1 position slots of `count` tiles: V of position
  // p in slot p + 1, M of position p in slot p, over V of position p - 1, which the GEMM
  // has consumed by then. V and M of a block then take about half of the L2 they took side
  // by side, and blocks can hold twice the tiles (each block re-streams U where U
  // outgrows L2).
  long slot_panel(int count) const;  // floats per slot
  BlockBuffers overlapped_buffers(float* base, int count) const;
  // The phased and by-channels plans' buffers: V and M apart (threads write them in
  // different orders), each position's panel skewed (v_panel / m_panel).
  BlockBuffers side_by_side_buffers(float* v, float* m, int count) const;
  // Positions [p_begin, p_end) x groups [group_begin, group_end) of one block's GEMM (U
  // panels in that order; the last one prefetches the panel after it). Position p reads
  // V's panel p whole before it writes M's panel p. The calls fetch the stream's lines.
  void gemm_block(const BlockBuffers& buf, const BlockKernels& kernels, int p_begin, int p_end, int group_begin,
                  int group_end, PrefetchStream& stream) const;
  // GemmConf::prefetch_a_lines for calls over tile_count tiles: 0 while U stays in L2
  // (except on full-width AVX-512), else one (position, group) panel of U shared out over a
  // call's passes over K.
  int u_prefetch_lines(int tile_count, int nr) const;
  bool u_streams() const;  // U outgrows half of L2: it streams from L3 on each forward
  long v_panel(int count) const;  // floats per position of V (skewed)
  long m_panel(int count) const;  // floats per position of M (skewed)
  // The transforms of one sub-image, one way: which rows / columns of each tile's input
  // window (output tile) lie outside the sub-image, and the kernel for each such edge (the
  // plain one for none).
  struct TileEdges {
    int h = 0, w = 0;        // the sub-image read (input) or written (output)
    int top = 0, left = 0;   // the first tile's first row / column in it (-pads on the input)
    int tiles_h = 0, tiles_w = 0;
    std::vector<int> row_edge, column_edge;  // per tile row / column: packed edge rows / columns
    std::map<int, WinogradTransformFn> kernels;  // by row_edge | column_edge
    int key(int ty, int tx) const { return row_edge[ty] | column_edge[tx]; }
  };
  // With dilation (dh, dw) the output pixels (out_y + dh i, out_x + dw j) are an undilated
  // 3x3 convolution of the input pixels (in_y + dh i, in_x + dw j): dh x dw sub-images,
  // transformed in place through strided rows and pixels, no copy of either tensor (one
  // sub-image, the tensors themselves, when undilated).
  struct SubImage {
    int in_y = 0, in_x = 0, out_y = 0, out_x = 0;
    TileEdges input, output;  // in sub-image coordinates
  };
  // All tiles of one input shape, by tile rows: row 0 of each sub-image, then row 1, ...
  struct TilePlan {
    struct TileRow {
      long first_tile;  // index of its first tile among the shape's
      int part, ty;
    };
    int ih = 0, iw = 0;
    long tiles = 0;
    std::vector<SubImage> parts;
    std::vector<TileRow> rows;
  };
  // Generates the edge kernels it needs that do not exist yet. Kept for the 8 shapes used
  // last: a forward looks its plan up instead of rebuilding it.
  std::shared_ptr<const TilePlan> tile_plan(int ih, int iw) const;
  TileEdges tile_edges(bool input, int h, int w, int top, int left, int tiles_h, int tiles_w) const;  // edge_mutex_ held
  // A plan's parts and tile rows (edge_mutex_ held): the dh x dw sub-images of the whole
  // output, their tile rows interleaved (Region::whole), or the rectangles of a border
  // split, one after the other.
  void add_sub_images(TilePlan& made, int oh, int ow, const ConvPads& pads) const;
  void add_split_rectangles(TilePlan& made, int oh, int ow, const ConvPads& pads) const;
  void tile_rows(const TilePlan& tiles, bool input, long tile_begin, int count, int& begin, int& end) const;
  // V panels of tiles [tile_begin, tile_begin + count) for channel packs [pack_begin, pack_end).
  void input_block(const Mat& bottom, const TilePlan& tiles, long tile_begin, int count, int pack_begin,
                   int pack_end, const BlockBuffers& buf) const;
  // Output tiles from M for chunks [chunk_begin, chunk_end); residual: laid out like top.
  void output_block(const BlockBuffers& buf, const TilePlan& tiles, long tile_begin, int count, int chunk_begin,
                    int chunk_end, const Mat* residual, Mat& top) const;

  // Which part of the output this instance tiles: all of it, the F(m, 3) rectangle of a
  // border split, or the strips past it (the border instance's).
  enum class Region { whole, interior, border };
  ConvWinograd(const ConvParams& params, const float* weights, const float* bias, Isa isa, int in_pack, int out_pack,
               int m, Region region, int split_m, int split_border_m);
  void run_region(const Mat& bottom, const Mat* residual, Mat& top, const Option& opt) const;

  ConvParams params_;
  Region region_ = Region::whole;
  int split_m_ = 0, split_border_m_ = 0;  // the border split's variants (interior, border)
  std::unique_ptr<ConvWinograd> border_;  // the F(border_m, 3) instance of a split
  Isa isa_;
  int vlen_;
  int in_pack_, out_pack_;
  int m_, alpha_;
  int dh_, dw_;    // dilation: the sub-images' row and pixel steps in the tensors
  int ic_packs_;   // ceil(ic / vlen): V holds ic zero-padded to whole vectors
  int chunks_;     // ceil(oc / vlen)
  long group_floats_;
  int nr_max_;     // widest GEMM register block (tiles)
  std::unique_ptr<GemmKernelCache> kernels_;
  JitKernelPtr input_kernel_, output_kernel_;  // generated transforms (jit/winograd_gen.h)
  WinogradTransformConf input_conf_, output_conf_;  // the plain transforms'
  mutable std::mutex edge_mutex_;                   // guards edge_kernels_ and tile_plans_
  mutable std::map<int, JitKernelPtr> edge_kernels_;  // transforms of edge tiles, by key (kOutputEdge: output)
  mutable std::vector<std::shared_ptr<const TilePlan>> tile_plans_;  // the most recently used first
  mutable long tile_plans_built_ = 0;
  int prepared_h_ = 0, prepared_w_ = 0;  // the input shape prepare() last saw: describe() shows its plans
  Mat weights_;    // U: [alpha^2][group][ic_packs * vlen][chunks in group][vlen]
  Mat bias_;       // chunks * vlen, zero-padded
};

}  // namespace jitconv
