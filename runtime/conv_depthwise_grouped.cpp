#include "runtime/conv_depthwise_grouped.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <sstream>

#include "runtime/conv_direct.h"
#include "runtime/conv_gemm.h"
#include "runtime/conv_path.h"
#include "runtime/conv_scalar.h"
#include "runtime/error.h"

namespace jitconv {

namespace {

// Groups whose channels straddle packs are merged, k at a time, into one convolution
// whose weights are zero between groups, so every run reads and writes whole packs: k
// times the FMAs, but full vectors and no gather/scatter pass. Worth it while the merged
// run stays small (a few hundred MACs per output: such layers are bound by memory and
// by half-empty vectors); bigger groups are gathered and scattered instead.
constexpr int kMaxMergedGroups = 8;
constexpr int kMaxMergedInputChannels = 32;

int merged_groups(int groups, int icg, int ocg, int in_pack, int out_pack) {
  auto needed = [](int channels, int pack) { return pack / std::gcd(channels, pack); };
  const int k = std::lcm(needed(icg, in_pack), needed(ocg, out_pack));
  if (k <= 1 || k > kMaxMergedGroups || groups % k != 0 || k * icg > kMaxMergedInputChannels) return 1;
  return k;
}

}  // namespace

void copy_channels(const Mat& src, int src_c0, Mat& dst, int dst_c0, int count, int num_threads) {
  const int sp = src.elempack, dp = dst.elempack;
  // Runs of channels that are consecutive lanes in both blobs.
  struct Run {
    int src_c, dst_c, lanes;
  };
  std::vector<Run> runs;
  for (int c = 0; c < count;) {
    const int s = src_c0 + c, d = dst_c0 + c;
    const int lanes = std::min({sp - s % sp, dp - d % dp, count - c});
    runs.push_back({s, d, lanes});
    c += lanes;
  }
  const long pixels = static_cast<long>(src.w) * src.h;
#pragma omp parallel for num_threads(num_threads) schedule(static)
  for (long r = 0; r < static_cast<long>(runs.size()); r++) {
    const Run run = runs[r];
    const float* s = static_cast<const float*>(src.data) + (run.src_c / sp) * src.cstep * sp + run.src_c % sp;
    float* d = static_cast<float*>(dst.data) + (run.dst_c / dp) * dst.cstep * dp + run.dst_c % dp;
    for (long i = 0; i < pixels; i++)
      for (int l = 0; l < run.lanes; l++) d[i * dp + l] = s[i * sp + l];
  }
}

ConvGrouped::ConvGrouped(const ConvParams& params, int groups, const float* weights, const float* bias, Isa isa,
                         int in_pack, int out_pack, const std::string& algo, const Option& opt, int ih, int iw)
    : params_(params), groups_(groups), isa_(isa), in_pack_(in_pack), out_pack_(out_pack) {
  if (groups < 1 || params.ic % groups != 0 || params.oc % groups != 0)
    fail("grouped convolution: ", groups, " groups do not divide ic ", params.ic, " and oc ", params.oc);
  if (params.ic % in_pack != 0 || params.oc % out_pack != 0)
    fail("grouped convolution: elempacks ", in_pack, "->", out_pack, " do not divide ic ", params.ic, " / oc ",
         params.oc);
  const int icg = params.ic / groups, ocg = params.oc / groups;
  const bool scalar_path = algo == "scalar" || (algo.empty() && isa == Isa::scalar);
  merged_ = scalar_path ? 1 : merged_groups(groups, icg, ocg, in_pack, out_pack);
  runs_ = groups / merged_;
  ConvParams pg = params;  // one run
  pg.ic = icg * merged_;
  pg.oc = ocg * merged_;
  group_algo_ = algo;
  if (group_algo_.empty()) {
    const PathChoice choice = choose_conv_path(pg, isa, opt, ih, iw);
    group_algo_ = choice.algo;
    reason_ = choice.reason;
  } else {
    reason_ = "forced";
  }
  std::string why;
  if (!conv_path_applies(group_algo_, pg, isa, &why))
    fail("grouped convolution: path '", group_algo_, "' does not apply: ", why);
  const bool scalar = group_algo_ == "scalar";
  auto pack_for = [&](int group_channels, int blob_pack) {
    if (scalar) return 1;
    if (group_channels % blob_pack == 0) return blob_pack;
    return opt.use_packing_layout ? preferred_elempack(isa, group_channels) : 1;
  };
  group_in_pack_ = pack_for(pg.ic, in_pack);
  group_out_pack_ = pack_for(pg.oc, out_pack);

  // A run's weights: [k * ocg][k * icg][kh * kw], group blocks on the diagonal.
  const int taps = params.kh * params.kw;
  std::vector<float> run_weights(static_cast<size_t>(pg.oc) * pg.ic * taps);
  for (int r = 0; r < runs_; r++) {
    const float* w = weights + static_cast<long>(r) * pg.oc * icg * taps;
    if (merged_ > 1) {
      std::fill(run_weights.begin(), run_weights.end(), 0.f);
      for (int gi = 0; gi < merged_; gi++)
        for (int o = 0; o < ocg; o++)
          for (int i = 0; i < icg; i++)
            std::copy_n(w + ((static_cast<long>(gi) * ocg + o) * icg + i) * taps, taps,
                        run_weights.begin() + ((static_cast<long>(gi) * ocg + o) * pg.ic + gi * icg + i) * taps);
      w = run_weights.data();
    }
    const float* b = bias ? bias + static_cast<long>(r) * pg.oc : nullptr;
    std::unique_ptr<ConvImpl> impl;
    if (group_algo_ == "direct") {
      ConvDirect::Tuning tuning;
      if (ih > 0 && iw > 0) {
        int oh = 0;
        pg.output_size(ih, iw, oh, tuning.expected_ow);
      }
      impl = std::make_unique<ConvDirect>(pg, w, b, isa, group_in_pack_, group_out_pack_, tuning);
    } else if (group_algo_ == "gemm" || group_algo_ == "brgemm") {
      impl = std::make_unique<ConvGemm>(pg, w, b, isa, group_in_pack_, group_out_pack_,
                                        group_algo_ == "gemm" ? "" : group_algo_);
    } else if (scalar) {
      impl = std::make_unique<ConvScalar>(pg, w, b);
    } else {
      fail("grouped convolution: unknown path '", group_algo_, "'");
    }
    impls_.push_back(std::move(impl));
  }
}

void ConvGrouped::prepare(int ih, int iw) {
  // Equal groups share their generated kernels through the registry.
  for (auto& impl : impls_) impl->prepare(ih, iw);
}

void ConvGrouped::forward(const Mat& bottom, Mat& top, const Option& opt) const {
  if (bottom.dims != 3) fail("grouped convolution expects a 3-D input, got dims ", bottom.dims);
  if (bottom.elempack != in_pack_ || bottom.c * bottom.elempack != params_.ic)
    fail("grouped convolution expects ", params_.ic, " channels packed by ", in_pack_, ", got ",
         bottom.c * bottom.elempack, " packed by ", bottom.elempack);
  int oh, ow;
  params_.output_size(bottom.h, bottom.w, oh, ow);
  top.create(ow, oh, params_.oc / out_pack_, static_cast<size_t>(out_pack_) * 4, out_pack_, opt.blob_allocator);
  Option work_opt = opt;
  work_opt.blob_allocator = opt.workspace_allocator;
  const int icg = params_.ic / runs_, ocg = params_.oc / runs_;  // per run
  Mat gathered, group_out;
  for (int g = 0; g < runs_; g++) {
    Mat in;
    if (group_in_pack_ == in_pack_) {
      in = bottom.channel_range(g * icg / in_pack_, icg / in_pack_);
    } else {
      gathered.create(bottom.w, bottom.h, icg / group_in_pack_, static_cast<size_t>(group_in_pack_) * 4,
                      group_in_pack_, opt.workspace_allocator);
      copy_channels(bottom, g * icg, gathered, 0, icg, opt.num_threads);
      in = gathered;
    }
    impls_[g]->forward(in, group_out, work_opt);
    if (group_out_pack_ == out_pack_) {
      // Same w, h and elempack: the group's planes are one contiguous block of the output.
      const size_t bytes = group_out.cstep * group_out.elemsize * group_out.c;
      if (group_out.cstep != top.cstep) fail("grouped convolution: output plane strides differ");
      memcpy(static_cast<unsigned char*>(top.data) + top.cstep * top.elemsize * (g * ocg / out_pack_),
             group_out.data, bytes);
    } else {
      copy_channels(group_out, 0, top, g * ocg, ocg, opt.num_threads);
    }
  }
}

std::string ConvGrouped::describe() const {
  std::ostringstream os;
  os << "grouped g" << groups_ << " " << isa_name(isa_) << " elempack " << in_pack_ << "->" << out_pack_
     << ", per group " << params_.ic / groups_ << "->" << params_.oc / groups_ << " channels";
  if (merged_ > 1) os << ", merged " << merged_ << " groups per run (zero weights between them)";
  os << ", runs on " << group_algo_ << " (" << reason_ << ") elempack " << group_in_pack_ << "->" << group_out_pack_;
  if (group_in_pack_ != in_pack_) os << ", input gathered per group";
  if (group_out_pack_ != out_pack_) os << ", output scattered per group";
  if (!impls_.empty()) {
    os << "\n  run 0: ";
    for (char ch : impls_.front()->describe()) os << ch << (ch == '\n' ? "  " : "");
  }
  return os.str();
}

size_t ConvGrouped::weight_bytes() const {
  size_t bytes = 0;
  for (const auto& impl : impls_) bytes += impl->weight_bytes();
  return bytes;
}

}  // namespace jitconv
