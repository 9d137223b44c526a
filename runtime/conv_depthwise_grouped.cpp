#include "runtime/conv_depthwise_grouped.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "runtime/conv_direct.h"
#include "runtime/conv_gemm.h"
#include "runtime/conv_path.h"
#include "runtime/conv_scalar.h"
#include "runtime/error.h"

namespace jitconv {

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
  ConvParams pg = params;
  pg.ic = params.ic / groups;
  pg.oc = params.oc / groups;
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

  const long group_weights = static_cast<long>(pg.oc) * pg.ic * params.kh * params.kw;
  for (int g = 0; g < groups; g++) {
    const float* w = weights + g * group_weights;
    const float* b = bias ? bias + static_cast<long>(g) * pg.oc : nullptr;
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
  const int icg = params_.ic / groups_, ocg = params_.oc / groups_;
  Mat gathered, group_out;
  for (int g = 0; g < groups_; g++) {
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
     << ", per group " << params_.ic / groups_ << "->" << params_.oc / groups_ << " channels on " << group_algo_
     << " (" << reason_ << ") elempack " << group_in_pack_ << "->" << group_out_pack_;
  if (group_in_pack_ != in_pack_) os << ", input gathered per group";
  if (group_out_pack_ != out_pack_) os << ", output scattered per group";
  if (!impls_.empty()) {
    os << "\n  group 0: ";
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
