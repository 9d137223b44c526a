// oneDNN's convolution as a ConvRunner: the yardstick `jitconv check`, `jitconv bench`,
// bench/ and the tests hold jitconv against. Compiled only with JITCONV_WITH_ONEDNN.
//
// Weights and bias are reordered into the primitive's layout once, in the constructor;
// set_input()/get_output() reorder between the user's NCHW and the primitive's layout
// (untimed); run() executes the convolution primitive alone, which is what is timed.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "runtime/conv_runner.h"
#include "runtime/cpu.h"

namespace jitconv {

enum class OnednnVariant {
  // convolution_direct, format_tag::any for src, weights and dst: oneDNN picks layouts.
  direct_any,
  // convolution_auto with src/dst in nChw16c (avx512) or nChw8c (avx2), weights any.
  auto_blocked,
};

const char* onednn_variant_name(OnednnVariant variant);

// "2.6.3 (cpu runtime OpenMP)".
std::string onednn_version();

// Caps the ISA oneDNN generates code for (dnnl::set_max_cpu_isa): avx2 -> avx2,
// scalar -> sse41, avx512 -> no cap. oneDNN fixes its ISA when it generates its first
// kernel and ignores later caps, so call this right after parsing the command line,
// before any OnednnConv exists. A cap that can no longer take effect throws
// jitconv::Error (unless oneDNN already runs at or below it, e.g. ONEDNN_MAX_CPU_ISA).
void onednn_cap_isa(Isa isa);

class OnednnConv final : public ConvRunner {
 public:
  // weights: g x oc/g x ic/g x kh x kw (ncnn order); bias: oc values or nullptr.
  // Throws NotApplicable when oneDNN cannot run the problem the way jitconv does
  // (pad_value != 0, an activation oneDNN lacks, no optimized implementation, or an ISA
  // above oneDNN's cap), jitconv::Error on a oneDNN failure.
  OnednnConv(const ConvProblem& problem, const float* weights, const float* bias, int num_threads,
             OnednnVariant variant, Isa isa);
  ~OnednnConv() override;

  // "onednn_direct_any" / "onednn_auto_blocked".
  std::string algo() const override;
  // The primitive's impl_info_str(), e.g. "brg:avx512_core".
  std::string detail() const override { return impl_name(); }
  std::string impl_name() const;

  void set_input(const float* src_nchw) override;
  void run() override;
  void get_output(float* dst_nchw) const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Both variants, each where it applies; `why_not` (optional) collects the NotApplicable
// reasons of the others.
std::vector<std::unique_ptr<OnednnConv>> make_onednn_variants(const ConvProblem& problem, const float* weights,
                                                              const float* bias, int num_threads, Isa isa,
                                                              std::string* why_not);

}  // namespace jitconv
