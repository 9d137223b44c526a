#include "runtime/conv_depthwise_grouped.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <sstream>

#include "loader/model_bin.h"
#include "runtime/error.h"
#include "runtime/layers/convolution.h"

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
                         int in_pack, int out_pack, const std::string& algo, const Option& opt, int ih, int iw,
                         const GroupedInt8* int8)
    : params_(params), groups_(groups), isa_(isa), in_pack_(in_pack), out_pack_(out_pack) {
  if (groups < 1 || params.ic % groups != 0 || params.oc % groups != 0)
    fail("grouped convolution: ", groups, " groups do not divide ic ", params.ic, " and oc ", params.oc);
  if (params.ic % in_pack != 0 || params.oc % out_pack != 0)
    fail("grouped convolution: elempacks ", in_pack, "->", out_pack, " do not divide ic ", params.ic, " / oc ",
         params.oc);
  const int icg = params.ic / groups, ocg = params.oc / groups;
  const bool scalar_path = algo == "scalar" || isa == Isa::scalar;
  merged_ = scalar_path ? 1 : merged_groups(groups, icg, ocg, in_pack, out_pack);
  const int run_ic = icg * merged_, run_oc = ocg * merged_;
  run_in_pack_ = run_ic % in_pack == 0 ? in_pack : opt.use_packing_layout ? preferred_elempack(isa, run_ic) : 1;

  // A run's weights: [k * ocg][k * icg][kh * kw], group blocks on the diagonal.
  const int taps = params.kh * params.kw;
  const int run_weight_count = run_oc * run_ic * taps;
  Option run_opt = opt;
  run_opt.lightmode = true;  // the runs keep only their transformed weights
  if (int8) run_opt.use_int8_inference = true;
  if (int8 && static_cast<int>(int8->group_scales.size()) != groups)
    fail("grouped convolution: ", int8->group_scales.size(), " int8 weight scales for ", groups, " groups");
  const bool int8_weights = int8 && int8->weights;
  // Copies one run's group blocks onto the diagonal of a zeroed [run_oc][run_ic][taps].
  auto place = [&](auto* dst, const auto* w) {
    for (int gi = 0; gi < merged_; gi++)
      for (int o = 0; o < ocg; o++)
        for (int i = 0; i < icg; i++)
          std::copy_n(w + ((static_cast<long>(gi) * ocg + o) * icg + i) * taps, taps,
                      dst + ((static_cast<long>(gi) * ocg + o) * run_ic + gi * icg + i) * taps);
  };
  for (int r = 0; r < groups / merged_; r++) {
    const long first = static_cast<long>(r) * run_oc * icg * taps;
    Mat run_weights;
    if (int8_weights) {
      run_weights.create(run_weight_count, static_cast<size_t>(1), 1);
      run_weights.fill_bytes(0);
      place(static_cast<int8_t*>(run_weights.data), int8->weights + first);
    } else {
      run_weights.create(run_weight_count);
      run_weights.fill(0.f);
      place(static_cast<float*>(run_weights.data), weights + first);
    }
    std::vector<Mat> blobs = {run_weights};
    if (bias) {
      Mat run_bias(run_oc);
      std::copy_n(bias + static_cast<long>(r) * run_oc, run_oc, static_cast<float*>(run_bias));
      blobs.push_back(run_bias);
    }
    if (int8) {  // ncnn's order after the bias: weight scales, bottom scale, top scale
      Mat scales(run_oc), bottom(1);
      for (int o = 0; o < run_oc; o++) scales[o] = int8->group_scales[r * merged_ + o / ocg];
      bottom[0] = int8->bottom;
      blobs.push_back(scales);
      blobs.push_back(bottom);
      if (int8->requantize) {
        Mat top(1);
        top[0] = int8->top;
        blobs.push_back(top);
      }
    }
    ParamDict pd;
    pd.set(0, run_oc);
    pd.set(1, params.kw);
    pd.set(11, params.kh);
    pd.set(2, params.dw);
    pd.set(12, params.dh);
    pd.set(3, params.sw);
    pd.set(13, params.sh);
    pd.set(4, params.pad_left);
    pd.set(15, params.pad_right);
    pd.set(14, params.pad_top);
    pd.set(16, params.pad_bottom);
    pd.set(18, params.pad_value);
    pd.set(5, bias ? 1 : 0);
    pd.set(6, run_weight_count);
    pd.set(9, static_cast<int>(params.act.type));
    pd.set(10, std::vector<float>{params.act.alpha, params.act.beta});
    if (int8) pd.set(8, int8->requantize ? 101 : 1);  // per-output-channel weight scales
    auto conv = std::make_unique<layers::Convolution>();
    conv->name = "group run " + std::to_string(r);
    conv->load_param(pd);
    conv->load_model(ModelBinFromMatArray(blobs));
    conv->forced_algo = int8 ? std::string() : algo;
    conv->force_isa = true;
    conv->forced_isa = isa;
    // The owning layer checked the ISA (or generates only), and its forward refuses to run
    // kernels this CPU lacks.
    conv->generate_only = !isa_supported(isa);
    conv->hint_w = iw;
    conv->hint_h = ih;
    conv->create_pipeline(run_opt);
    runs_.push_back(std::move(conv));
  }
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
  const int runs = static_cast<int>(runs_.size());
  const int run_ic = params_.ic / runs, run_oc = params_.oc / runs;
  Mat gathered, run_out;
  for (int r = 0; r < runs; r++) {
    Mat in;
    if (run_in_pack_ == in_pack_) {
      in = bottom.channel_range(r * run_ic / in_pack_, run_ic / in_pack_);
    } else {
      gathered.create(bottom.w, bottom.h, run_ic / run_in_pack_, static_cast<size_t>(run_in_pack_) * 4,
                      run_in_pack_, opt.workspace_allocator);
      copy_channels(bottom, r * run_ic, gathered, 0, run_ic, opt.num_threads);
      in = gathered;
    }
    runs_[r]->forward(in, run_out, work_opt);
    if (run_out.w != ow || run_out.h != oh || run_out.c * run_out.elempack != run_oc)
      fail("grouped convolution: run ", r, " produced ", run_out.c * run_out.elempack, "x", run_out.h, "x",
           run_out.w, ", expected ", run_oc, "x", oh, "x", ow);
    if (run_out.elempack == out_pack_ && run_out.cstep == top.cstep) {
      // The run's planes are one contiguous block of the output.
      memcpy(static_cast<unsigned char*>(top.data) + top.cstep * top.elemsize * (r * run_oc / out_pack_),
             run_out.data, run_out.cstep * run_out.elemsize * run_out.c);
    } else {
      copy_channels(run_out, 0, top, r * run_oc, run_oc, opt.num_threads);
    }
  }
}

std::string ConvGrouped::describe() const {
  std::ostringstream os;
  os << "grouped g" << groups_ << " " << isa_name(isa_) << " elempack " << in_pack_ << "->" << out_pack_
     << ", per group " << params_.ic / groups_ << "->" << params_.oc / groups_ << " channels";
  if (merged_ > 1) os << ", merged " << merged_ << " groups per run (zero weights between them)";
  if (run_in_pack_ != in_pack_) os << ", input gathered per run";
  if (!runs_.empty()) {
    os << "\n  run 0: ";
    for (char ch : runs_.front()->describe()) os << ch << (ch == '\n' ? "  " : "");
  }
  return os.str();
}

size_t ConvGrouped::weight_bytes() const {
  size_t bytes = 0;
  for (const auto& run : runs_) bytes += run->weight_bytes();
  return bytes;
}

}  // namespace jitconv
