// Which convolution path runs a given problem: ncnn's x86 create_pipeline order, with
// the thresholds as data (conv_path.cpp: kPathTable, measured on the machine named
// there). The autotuner (conv_autotune.h) may override the table by measurement.
#pragma once
#include <string>
#include <vector>

#include "runtime/conv_params.h"
#include "runtime/cpu.h"
#include "runtime/option.h"

namespace jitconv {

struct PathChoice {
  std::string algo;    // "direct", "gemm", "winograd23", "winograd43", "winograd53", "winograd63",
                       // "winograd63_43" (F(6,3) with F(4,3) borders), "scalar"
  std::string reason;  // why, for `jitconv dump` and profiles
};

// ih/iw: the input size when known at create_pipeline (0 when not: dynamic shapes choose
// from the channel counts alone, as ncnn does).
PathChoice choose_conv_path(const ConvParams& p, Isa isa, const Option& opt, int ih = 0, int iw = 0);

// The algorithms that can run a problem at all (for autotune and `check --algo`).
std::vector<std::string> applicable_conv_paths(const ConvParams& p, Isa isa, const Option& opt);
bool conv_path_applies(const std::string& algo, const ConvParams& p, Isa isa, std::string* why = nullptr);

}  // namespace jitconv
