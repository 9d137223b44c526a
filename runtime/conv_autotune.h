// Autotuned path choice (Option::use_autotune, JITCONV_AUTOTUNE=1): at create_pipeline,
// time every applicable path once on the real input shape and keep the fastest. The
// decision is cached per (problem, shape, ISA, threads, elempacks) for the process and,
// when JITCONV_TUNE_CACHE=FILE is set, in that file across processes: an entry found
// there is used without timing anything, so a cache file makes choices reproducible.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/conv_impl.h"
#include "runtime/conv_params.h"
#include "runtime/cpu.h"
#include "runtime/option.h"

namespace jitconv {

struct AutotuneResult {
  std::string algo;
  bool from_cache = false;
  std::vector<std::pair<std::string, double>> timings_ms;  // empty when cached
};

std::string autotune_key(const ConvParams& p, int ih, int iw, Isa isa, int threads, int in_pack, int out_pack);

// make(algo) builds a candidate (weights transformed); candidates that throw are skipped.
AutotuneResult autotune_conv_path(const ConvParams& p, int ih, int iw, Isa isa, int in_pack, int out_pack,
                                  const std::vector<std::string>& candidates, const Option& opt,
                                  const std::function<std::unique_ptr<ConvImpl>(const std::string&)>& make);

// Forget the in-process decisions (tests); the cache file is re-read on next use.
void autotune_reset_cache();

}  // namespace jitconv
