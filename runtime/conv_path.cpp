#include "runtime/conv_path.h"

namespace jitconv {

bool conv_path_applies(const std::string& algo, const ConvParams& p, Isa isa, std::string* why) {
  auto no = [why](const char* reason) {
    if (why) *why = reason;
    return false;
  };
  if (algo == "scalar") return true;
  if (isa == Isa::scalar) return no("JIT paths need AVX2 or AVX-512");
  if (algo == "direct" || algo == "gemm" || algo == "brgemm") return true;
  if (algo == "winograd23" || algo == "winograd43" || algo == "winograd63") {
    if (p.kh != 3 || p.kw != 3) return no("Winograd needs a 3x3 kernel");
    if (p.sh != 1 || p.sw != 1) return no("Winograd needs stride 1");
    if (p.dh != 1 || p.dw != 1) return no("Winograd needs dilation 1");
    return true;
  }
  return no("unknown algorithm");
}

std::vector<std::string> applicable_conv_paths(const ConvParams& p, Isa isa, const Option& opt) {
  std::vector<std::string> paths;
  for (const char* algo : {"direct", "gemm", "brgemm", "winograd23", "winograd43", "winograd63"}) {
    if (!conv_path_applies(algo, p, isa)) continue;
    if (std::string(algo) == "gemm" && !opt.use_sgemm_convolution) continue;
    paths.push_back(algo);
  }
  return paths;
}

PathChoice choose_conv_path(const ConvParams& p, Isa isa, const Option& opt, int ih, int iw) {
  if (isa == Isa::scalar) return {"scalar", "no AVX2: portable loops"};
  const bool pointwise = p.kh == 1 && p.kw == 1;
  if (pointwise && opt.use_sgemm_convolution)
    return {"gemm", "1x1: the packed input already is the GEMM's B"};
  return {"direct", "k x k: direct kernel skips padding taps"};
}

}  // namespace jitconv
