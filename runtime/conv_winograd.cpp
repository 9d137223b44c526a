#include "runtime/conv_winograd.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "runtime/cpu.h"
#include "runtime/error.h"
#include "runtime/packing.h"
#include "runtime/winograd_kernels.h"
#include "runtime/winograd_weights.h"

namespace jitconv {

ConvWinograd::ConvWinograd(const ConvParams& params, const float* weights, const float* bias, Isa isa, int in_pack,
                           int out_pack, int m)
    : params_(params), isa_(isa), vlen_(isa_lanes(isa)), in_pack_(in_pack), out_pack_(out_pack), m_(m), alpha_(m + 2) {
  if (isa == Isa::scalar) fail("Winograd convolution needs AVX2 or AVX-512");
  if (params.kh != 3 || params.kw != 3 || params.sh != 1 || params.sw != 1 || params.dh != 1 || params.dw != 1)
    fail("Winograd F(", m, ",3) needs a 3x3 stride-1 undilated kernel, got ", params.to_string());
  if (m != 2 && m != 4 && m != 6) fail("Winograd F(", m, ",3) is not supported (2, 4 or 6)");
  if (params.oc % out_pack != 0 || out_pack > vlen_) fail("Winograd: bad output elempack ", out_pack);
  ic_packs_ = (params.ic + vlen_ - 1) / vlen_;
  chunks_ = (params.oc + vlen_ - 1) / vlen_;

  // The activation runs in the output transform, so the GEMM kernels carry none.
  const GemmBlocking blocking = choose_gemm_blocking_for_k(isa, chunks_, static_cast<long>(ic_packs_) * vlen_,
                                                           static_cast<long>(cpu_info().l1d_bytes), Activation());
  GemmConf base;
  base.isa = isa;
  base.vlen = vlen_;
  base.ur_oc = blocking.ur_oc;
  base.nr = blocking.nr;
  base.k_pack = vlen_;
  base.b_pixel_stride = vlen_ * 4L;
  base.out_pack = vlen_;
  base.explicit_bcast = blocking.explicit_bcast;
  kernels_ = std::make_unique<GemmKernelCache>(base, chunks_ * vlen_);

  const int positions = alpha_ * alpha_;
  const int groups = kernels_->groups();
  const long k = static_cast<long>(ic_packs_) * vlen_;
  group_floats_ = k * kernels_->group_size() * vlen_;
  // dst = position - group - [k][chunk in group][vlen]
  weights_.create(static_cast<int>(group_floats_ * groups * positions));
  weights_.fill(0.f);
  std::vector<double> u(positions);
  for (int o = 0; o < params.oc; o++) {
    const int chunk = o / vlen_, lane = o % vlen_;
    const int g = chunk / kernels_->group_size(), c = chunk % kernels_->group_size();
    const int here = kernels_->chunks_in(g);
    for (int i = 0; i < params.ic; i++) {
      winograd_transform_filter(m, weights + (static_cast<long>(o) * params.ic + i) * 9, u.data());
      for (int p = 0; p < positions; p++) {
        float* dst = static_cast<float*>(weights_.data) + (static_cast<long>(p) * groups + g) * group_floats_;
        dst[(static_cast<long>(i) * here + c) * vlen_ + lane] = static_cast<float>(u[p]);
      }
    }
  }
  if (params.bias) {
    bias_.create(chunks_ * vlen_);
    bias_.fill(0.f);
    memcpy(bias_.data, bias, params.oc * sizeof(float));
  }
}

ConvWinograd::Plan ConvWinograd::plan(long tiles, int threads) const {
  const int nr_max = kernels_->get(0, 0).conf->nr;
  const double l2 = static_cast<double>(cpu_info().l2_bytes);
  const double positions = static_cast<double>(alpha_) * alpha_;
  const double u_bytes = positions * ic_packs_ * vlen_ * chunks_ * vlen_ * 4;
  const double per_tile = positions * (ic_packs_ + chunks_) * vlen_ * 4;  // V and M of one tile
  auto spread = [nr_max](long n) {  // equal register blocks: no short tail paying a full K pass
    const long blocks = (n + nr_max - 1) / nr_max;
    return static_cast<int>((n + blocks - 1) / blocks);
  };
  // Bytes moved beyond L2 (measured here: L3 streams at about half of L2's rate). Every
  // block multiplies by all of U: once U outgrows half of L2 each block of a thread
  // re-streams it. A block's V and M that outgrow L2 are written out and read back.
  auto traffic = [&](long block) {
    const long blocks = (tiles + block - 1) / block;
    const long per_thread = (blocks + threads - 1) / threads;
    double bytes = u_bytes > l2 / 2 ? u_bytes * per_thread : 0.0;
    const double vm = per_tile * block;
    if (vm > 0.75 * l2) bytes += 2 * vm * per_thread;
    return bytes;
  };
  Plan best{true, static_cast<int>(tiles), spread(tiles)};  // one block of all tiles, phases split across threads
  double best_bytes = traffic(tiles);
  for (long t = nr_max; t < tiles; t += nr_max) {
    if ((tiles + t - 1) / t < threads) break;  // every thread needs a block
    const double bytes = traffic(t) * (1.0 + 0.02 * (tiles / t));  // small cost per block (call overheads)
    if (bytes < best_bytes * 0.999) {
      best_bytes = bytes;
      best = Plan{false, static_cast<int>(t), nr_max};
    }
  }
  if (best.phased && threads == 1) best.phased = false;  // one thread: the blocked loop is the same work
  return best;
}

void ConvWinograd::gemm_block(const float* v, float* mbuf, int tile_count, int nr, int p_begin, int p_end,
                              int group_begin, int group_end) const {
  const int groups = kernels_->groups();
  const long v_panel = static_cast<long>(ic_packs_) * tile_count * vlen_;
  const long m_panel = static_cast<long>(chunks_) * tile_count * vlen_;
  for (int p = p_begin; p < p_end; p++)
    for (int g = group_begin; g < group_end; g++) {
      const GemmKernelCache::Kernel kernel = kernels_->get(g, tile_count % nr, nr);
      GemmArgs args{};
      args.a = static_cast<const float*>(weights_.data) + (static_cast<long>(p) * groups + g) * group_floats_;
      args.b = v + p * v_panel;
      args.c = mbuf + p * m_panel + static_cast<long>(g) * kernels_->group_size() * tile_count * vlen_;
      args.k_groups = ic_packs_;
      args.n_blocks = tile_count / nr;
      args.b_k_stride = static_cast<long>(tile_count) * vlen_ * 4;
      args.c_plane_stride = static_cast<long>(tile_count) * vlen_ * 4;
      args.flags = kGemmFinal;
      kernel.fn(&args);
    }
}

void ConvWinograd::prepare(int ih, int iw) {
  int oh, ow;
  params_.output_size(ih, iw, oh, ow);
  const long tiles = static_cast<long>((oh + m_ - 1) / m_) * ((ow + m_ - 1) / m_);
  for (int threads : {1, default_num_threads()}) {
    const Plan p = plan(tiles, threads);
    for (int g = 0; g < kernels_->groups(); g++) {
      kernels_->get(g, p.block % p.nr, p.nr);
      kernels_->get(g, static_cast<int>((tiles % p.block) % p.nr), p.nr);
    }
  }
}

void ConvWinograd::forward(const Mat& bottom_in, Mat& top, const Option& opt) const {
  if (bottom_in.dims != 3 || bottom_in.c * bottom_in.elempack != params_.ic)
    fail("Winograd convolution expects a 3-D input with ", params_.ic, " channels");
  int oh, ow;
  params_.output_size(bottom_in.h, bottom_in.w, oh, ow);
  const ConvPads pads = params_.pads_for(bottom_in.h, bottom_in.w);
  top.create(ow, oh, params_.oc / out_pack_, static_cast<size_t>(out_pack_) * 4, out_pack_, opt.blob_allocator);

  // The transforms read whole vectors: repack to vlen lanes, zero-padding the channels.
  Mat bottom = bottom_in;
  if (bottom_in.elempack != vlen_) {
    Option ws = opt;
    ws.blob_allocator = opt.workspace_allocator;
    if (params_.ic % vlen_ == 0) {
      convert_packing(bottom_in, bottom, vlen_, ws);
    } else {
      Mat plain;
      convert_packing(bottom_in, plain, 1, ws);
      Mat padded(plain.w, plain.h, ic_packs_ * vlen_, 4u, 1, opt.workspace_allocator);
      for (int c = 0; c < padded.c; c++) {
        Mat dst = padded.channel(c);
        if (c < params_.ic)
          memcpy(dst.data, plain.channel(c).data, sizeof(float) * plain.w * plain.h);
        else
          dst.fill(0.f);
      }
      convert_packing(padded, bottom, vlen_, ws);
    }
  }

  const int tiles_w = (ow + m_ - 1) / m_, tiles_h = (oh + m_ - 1) / m_;
  const long tiles = static_cast<long>(tiles_w) * tiles_h;
  const int positions = alpha_ * alpha_;
  const int threads = std::max(1, opt.num_threads);
  const Plan plan_here = plan(tiles, threads);
  const int block = plan_here.block, nr = plan_here.nr;
  const long blocks = (tiles + block - 1) / block;

  WinogradInputJob in{};
  in.m = m_;
  in.src = bottom;
  in.src_cstep = static_cast<long>(bottom.cstep) * vlen_;
  in.ih = bottom.h;
  in.iw = bottom.w;
  in.pad_top = pads.top;
  in.pad_left = pads.left;
  in.pad_value = params_.pad_value;
  in.tiles_w = tiles_w;
  in.channel_packs = ic_packs_;
  in.pack_begin = 0;
  in.pack_end = ic_packs_;
  WinogradOutputJob out{};
  out.m = m_;
  out.chunks = chunks_;
  out.bias = params_.bias ? static_cast<const float*>(bias_) : nullptr;
  out.act = params_.act;
  out.dst = top;
  out.dst_plane_stride = static_cast<long>(top.cstep) * out_pack_;
  out.out_pack = out_pack_;
  out.oc = params_.oc;
  out.oh = oh;
  out.ow = ow;
  out.tiles_w = tiles_w;

  if (!plan_here.phased) {
    const long v_floats = static_cast<long>(positions) * ic_packs_ * block * vlen_;
    const long m_floats = static_cast<long>(positions) * chunks_ * block * vlen_;
    Mat work(static_cast<int>((v_floats + m_floats) * threads), 4u, 1, opt.workspace_allocator);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long b = 0; b < blocks; b++) {
      float* v = static_cast<float*>(work.data) + (v_floats + m_floats) * omp_get_thread_num();
      float* mbuf = v + v_floats;
      const int count = static_cast<int>(std::min<long>(block, tiles - b * block));
      WinogradInputJob job = in;
      job.tile_begin = b * block;
      job.tile_count = count;
      job.dst = v;
      JITCONV_SIMD_CALL_ISA(isa_, winograd_input_transform, job);
      gemm_block(v, mbuf, count, nr, 0, positions, 0, kernels_->groups());
      WinogradOutputJob o = out;
      o.src = mbuf;
      o.chunk_begin = 0;
      o.chunk_end = chunks_;
      o.tile_begin = b * block;
      o.tile_count = count;
      JITCONV_SIMD_CALL_ISA(isa_, winograd_output_transform, o);
    }
    return;
  }
  // One block of all tiles, each step split across threads; positions outermost in the
  // GEMM so each part of U is read once.
  const int count = static_cast<int>(tiles);
  Mat v(static_cast<int>(static_cast<long>(positions) * ic_packs_ * count * vlen_), 4u, 1, opt.workspace_allocator);
  Mat mbuf(static_cast<int>(static_cast<long>(positions) * chunks_ * count * vlen_), 4u, 1, opt.workspace_allocator);
#pragma omp parallel num_threads(threads)
  {
#pragma omp for schedule(static)
    for (int c = 0; c < ic_packs_; c++) {
      WinogradInputJob job = in;
      job.tile_begin = 0;
      job.tile_count = count;
      job.pack_begin = c;
      job.pack_end = c + 1;
      job.dst = v;
      JITCONV_SIMD_CALL_ISA(isa_, winograd_input_transform, job);
    }
    const int groups = kernels_->groups();
#pragma omp for schedule(static) collapse(2)
    for (int p = 0; p < positions; p++)
      for (int g = 0; g < groups; g++) gemm_block(v, mbuf, count, nr, p, p + 1, g, g + 1);
#pragma omp for schedule(static)
    for (int c = 0; c < chunks_; c++) {
      WinogradOutputJob o = out;
      o.src = mbuf;
      o.chunk_begin = c;
      o.chunk_end = c + 1;
      o.tile_begin = 0;
      o.tile_count = count;
      JITCONV_SIMD_CALL_ISA(isa_, winograd_output_transform, o);
    }
  }
}

std::string ConvWinograd::describe() const {
  std::ostringstream os;
  os << "winograd" << m_ << "3 F(" << m_ << ",3) " << isa_name(isa_) << " elempack " << in_pack_ << "->" << out_pack_
     << " gemm tile " << kernels_->group_size() << "x" << kernels_->get(0, 0).conf->nr;
  for (const std::string& n : kernels_->names()) os << "\n  kernel " << n;
  return os.str();
}

}  // namespace jitconv
