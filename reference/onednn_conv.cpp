#include "reference/onednn_conv.h"

#include <omp.h>

#include <cmath>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>

#include "runtime/error.h"

namespace jitconv {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// oneDNN (Debian's build uses the OpenMP runtime) sizes its parallel regions from
// omp_get_max_threads(); this sets it for a scope, so creation (which balances work for
// the thread count it sees) and execution use the same count as jitconv.
class OmpThreadsScope {
 public:
  explicit OmpThreadsScope(int threads) : saved_(omp_get_max_threads()) { omp_set_num_threads(threads); }
  ~OmpThreadsScope() { omp_set_num_threads(saved_); }
  OmpThreadsScope(const OmpThreadsScope&) = delete;
  OmpThreadsScope& operator=(const OmpThreadsScope&) = delete;

 private:
  int saved_;
};

dnnl::cpu_isa onednn_isa_for(Isa isa) {
  switch (isa) {
    case Isa::avx512: return dnnl::cpu_isa::all;
    case Isa::avx2: return dnnl::cpu_isa::avx2;
    case Isa::scalar: return dnnl::cpu_isa::sse41;
  }
  return dnnl::cpu_isa::all;
}

// oneDNN's ISA values are bit sets: a lower ISA's bits are a subset of a higher one's.
bool within_cap(dnnl::cpu_isa effective, dnnl::cpu_isa cap) {
  if (cap == dnnl::cpu_isa::all) return true;
  return (static_cast<unsigned>(effective) & ~static_cast<unsigned>(cap)) == 0;
}

// oneDNN 2.6's hardswish is x * clamp(x / 6 + 1/2, 0, 1), with no parameters.
bool is_onednn_hardswish(const Activation& act) {
  return std::fabs(act.alpha - 1.f / 6.f) < 1e-7f && act.beta == 0.5f;
}

dnnl::post_ops activation_post_ops(const Activation& act) {
  using dnnl::algorithm;
  dnnl::post_ops ops;
  switch (act.type) {
    case ActivationType::none: break;
    case ActivationType::relu: ops.append_eltwise(1.f, algorithm::eltwise_relu, 0.f, 0.f); break;
    case ActivationType::leaky_relu: ops.append_eltwise(1.f, algorithm::eltwise_relu, act.alpha, 0.f); break;
    case ActivationType::clip: ops.append_eltwise(1.f, algorithm::eltwise_clip, act.alpha, act.beta); break;
    case ActivationType::sigmoid: ops.append_eltwise(1.f, algorithm::eltwise_logistic, 0.f, 0.f); break;
    case ActivationType::mish: ops.append_eltwise(1.f, algorithm::eltwise_mish, 0.f, 0.f); break;
    case ActivationType::hardswish:
      if (!is_onednn_hardswish(act))
        throw NotApplicable("oneDNN 2.6's hardswish has alpha 1/6 and beta 0.5, not " + act.to_string());
      ops.append_eltwise(1.f, algorithm::eltwise_hardswish, 0.f, 0.f);
      break;
  }
  return ops;
}

}  // namespace

const char* onednn_variant_name(OnednnVariant variant) {
  return variant == OnednnVariant::direct_any ? "direct_any" : "auto_blocked";
}

std::string onednn_version() {
  const dnnl_version_t* v = dnnl_version();
  const char* runtime = v->cpu_runtime == DNNL_RUNTIME_OMP          ? "OpenMP"
                        : v->cpu_runtime == DNNL_RUNTIME_TBB        ? "TBB"
                        : v->cpu_runtime == DNNL_RUNTIME_SEQ        ? "sequential"
                        : v->cpu_runtime == DNNL_RUNTIME_THREADPOOL ? "threadpool"
                                                                    : "unknown";
  return str_cat(v->major, ".", v->minor, ".", v->patch, " (cpu runtime ", runtime, ")");
}

void onednn_cap_isa(Isa isa) {
  const dnnl::cpu_isa cap = onednn_isa_for(isa);
  if (cap == dnnl::cpu_isa::all) return;
  if (dnnl::set_max_cpu_isa(cap) == dnnl::status::success) return;
  // Refused: oneDNN has generated code already. Fine if it was capped low enough.
  if (within_cap(dnnl::get_effective_cpu_isa(), cap)) return;
  fail("cannot cap oneDNN to ", isa_name(isa), ": it has generated code already (cap it before creating primitives)");
}

struct OnednnConv::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::convolution_forward conv;
  memory src, dst;  // in the primitive's layouts
  memory::desc user_src_md, user_dst_md;
  std::unordered_map<int, memory> args;
  std::string impl;
  OnednnVariant variant = OnednnVariant::direct_any;
  int num_threads = 1;

  // memory objects are handles: copies share the buffer.
  void reorder(memory from, memory to) {
    dnnl::reorder(from, to).execute(stream, from, to);
    stream.wait();
  }
};

OnednnConv::OnednnConv(const ConvProblem& problem, const float* weights, const float* bias, int num_threads,
                       OnednnVariant variant, Isa isa)
    : impl_(new Impl) {
  const ConvDesc& d = problem.desc;
  Impl& s = *impl_;
  s.variant = variant;
  s.num_threads = num_threads < 1 ? 1 : num_threads;
  if (problem.pad_value != 0.f)
    throw NotApplicable(str_cat("oneDNN pads with zeros, this problem with ", problem.pad_value));
  if (!isa_supported(isa)) fail("ISA ", isa_name(isa), " is not supported by this CPU");
  if (variant == OnednnVariant::auto_blocked && isa == Isa::scalar)
    throw NotApplicable("auto_blocked needs avx2 or avx512 blocking");
  const dnnl::post_ops ops = activation_post_ops(problem.act);
  OmpThreadsScope threads(s.num_threads);
  const dnnl::cpu_isa cap = onednn_isa_for(isa);
  if (cap != dnnl::cpu_isa::all && !within_cap(dnnl::get_effective_cpu_isa(), cap))
    throw NotApplicable(str_cat("oneDNN is not capped to ", isa_name(isa), " (onednn_cap_isa must run first)"));

  using dt = memory::data_type;
  const memory::dims src_dims = {d.mb, d.ic, d.ih, d.iw};
  const memory::dims dst_dims = {d.mb, d.oc, d.oh, d.ow};
  const bool grouped = d.g > 1;
  const memory::dims weight_dims =
      grouped ? memory::dims{d.g, d.oc / d.g, d.ic / d.g, d.kh, d.kw} : memory::dims{d.oc, d.ic, d.kh, d.kw};
  const Tag weight_tag = grouped ? Tag::goihw : Tag::oihw;
  const Tag act_tag = variant == OnednnVariant::direct_any ? Tag::any
                      : isa == Isa::avx512                 ? Tag::nChw16c
                                                           : Tag::nChw8c;
  const dnnl::algorithm algorithm = variant == OnednnVariant::direct_any ? dnnl::algorithm::convolution_direct
                                                                         : dnnl::algorithm::convolution_auto;
  s.user_src_md = memory::desc(src_dims, dt::f32, Tag::nchw);
  s.user_dst_md = memory::desc(dst_dims, dt::f32, Tag::nchw);
  const memory::desc bias_md = bias ? memory::desc({d.oc}, dt::f32, Tag::x) : memory::desc();
  dnnl::convolution_forward::primitive_desc pd;
  try {
    const dnnl::convolution_forward::desc conv_desc(
        dnnl::prop_kind::forward_inference, algorithm, memory::desc(src_dims, dt::f32, act_tag),
        memory::desc(weight_dims, dt::f32, Tag::any), bias_md, memory::desc(dst_dims, dt::f32, act_tag),
        {d.sh, d.sw}, {d.dilation_h - 1, d.dilation_w - 1}, {d.pad_top, d.pad_left}, {d.pad_bottom, d.pad_right});
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    pd = dnnl::convolution_forward::primitive_desc(conv_desc, attr, s.engine);
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_unimplemented) throw NotApplicable(str_cat("oneDNN has no implementation: ", e.what()));
    fail("oneDNN rejects ", to_string(d), ": ", e.what());
  }
  s.impl = pd.impl_info_str();
  if (s.impl.find("ref") != std::string::npos)
    throw NotApplicable("oneDNN has only its reference implementation here (" + s.impl + ")");
  s.conv = dnnl::convolution_forward(pd);

  s.src = memory(pd.src_desc(), s.engine);
  s.dst = memory(pd.dst_desc(), s.engine);
  memory weight_mem(pd.weights_desc(), s.engine);
  s.reorder(memory(memory::desc(weight_dims, dt::f32, weight_tag), s.engine, const_cast<float*>(weights)),
            weight_mem);
  s.args = {{DNNL_ARG_SRC, s.src}, {DNNL_ARG_WEIGHTS, weight_mem}, {DNNL_ARG_DST, s.dst}};
  if (bias) {
    memory bias_mem(pd.bias_desc(), s.engine);
    s.reorder(memory(bias_md, s.engine, const_cast<float*>(bias)), bias_mem);
    s.args[DNNL_ARG_BIAS] = bias_mem;
  }
}

OnednnConv::~OnednnConv() = default;

std::string OnednnConv::algo() const { return std::string("onednn_") + onednn_variant_name(impl_->variant); }

std::string OnednnConv::impl_name() const { return impl_->impl; }

void OnednnConv::set_input(const float* src_nchw) {
  OmpThreadsScope threads(impl_->num_threads);
  impl_->reorder(memory(impl_->user_src_md, impl_->engine, const_cast<float*>(src_nchw)), impl_->src);
}

void OnednnConv::run() {
  OmpThreadsScope threads(impl_->num_threads);
  impl_->conv.execute(impl_->stream, impl_->args);
  impl_->stream.wait();
}

void OnednnConv::get_output(float* dst_nchw) const {
  OmpThreadsScope threads(impl_->num_threads);
  impl_->reorder(impl_->dst, memory(impl_->user_dst_md, impl_->engine, dst_nchw));
}

std::vector<std::unique_ptr<OnednnConv>> make_onednn_variants(const ConvProblem& problem, const float* weights,
                                                              const float* bias, int num_threads, Isa isa,
                                                              std::string* why_not) {
  std::vector<std::unique_ptr<OnednnConv>> variants;
  std::string reasons;
  for (OnednnVariant variant : {OnednnVariant::direct_any, OnednnVariant::auto_blocked}) {
    try {
      variants.emplace_back(new OnednnConv(problem, weights, bias, num_threads, variant, isa));
    } catch (const NotApplicable& e) {
      reasons += str_cat(reasons.empty() ? "" : "; ", "oneDNN ", onednn_variant_name(variant), ": ", e.what());
    }
  }
  if (why_not) *why_not = reasons;
  return variants;
}

}  // namespace jitconv
