#include "runtime/innerproduct_gemm.h"

#include <cstring>
#include <sstream>

#include "runtime/error.h"
#include "runtime/packing.h"

namespace jitconv {

namespace {
constexpr int kKPack = 16;  // K lanes per group of the input vector
}

InnerProductGemm::InnerProductGemm(const float* weights, const float* bias, int num_output, int num_input,
                                   const Activation& act, Isa isa, bool fp16_weights)
    : num_output_(num_output), num_input_(num_input), isa_(isa), vlen_(isa_lanes(isa)), fp16_(fp16_weights) {
  if (isa == Isa::scalar) fail("InnerProduct on the GEMM kernel needs AVX2 or AVX-512");
  if (fp16_weights && !cpu_info().f16c) fail("fp16 InnerProduct weights need F16C");
  k16_ = (static_cast<long>(num_input) + kKPack - 1) / kKPack * kKPack;
  GemmConf base;
  base.isa = isa;
  base.vlen = vlen_;
  // A GEMV streams every weight once: a wide group keeps many weight loads in flight
  // per broadcast of x; one pixel.
  base.ur_oc = isa == Isa::avx512 ? 8 : 4;
  base.nr = 1;
  base.k_pack = kKPack;
  base.b_pixel_stride = kKPack * 4;
  base.out_pack = 1;  // y is a dense row: "plane" = one output value
  base.explicit_bcast = true;
  base.bias = bias != nullptr;
  base.act = act;
  base.a_fp16 = fp16_weights;
  kernels_ = std::make_unique<GemmKernelCache>(base, num_output);
  const int groups = kernels_->groups(), chunks = kernels_->chunks();
  const int elem = fp16_weights ? 2 : 4;
  group_bytes_ = k16_ * base.ur_oc * vlen_ * elem;
  weights_.create(static_cast<int>(group_bytes_ * groups / 4), static_cast<size_t>(4), 1);
  std::memset(weights_.data, 0, group_bytes_ * groups);
  // Per group: transpose into an fp32 panel, then store it (as fp16 through the
  // vectorized F16C cast when asked).
  const long panel_floats = k16_ * base.ur_oc * vlen_;
  Mat panel(static_cast<int>(panel_floats));
  Option cast_opt;
  cast_opt.num_threads = 1;
  for (int g = 0; g < groups; g++) {
    panel.fill(0.f);
    float* p = panel;
    const int here = kernels_->chunks_in(g);
    for (int c = 0; c < here; c++)
      for (int lane = 0; lane < vlen_; lane++) {
        const int o = (g * base.ur_oc + c) * vlen_ + lane;
        if (o >= num_output) break;
        const float* row = weights + static_cast<long>(o) * num_input;
        for (int k = 0; k < num_input; k++) p[(static_cast<long>(k) * here + c) * vlen_ + lane] = row[k];
      }
    unsigned char* dst = static_cast<unsigned char*>(weights_.data) + g * group_bytes_;
    if (fp16_weights) {
      Mat half;
      cast_float32_to_float16(panel, half, cast_opt);
      std::memcpy(dst, half.data, panel_floats * 2);
    } else {
      std::memcpy(dst, panel.data, panel_floats * 4);
    }
  }
  if (bias) {
    bias_.create(chunks * vlen_);
    bias_.fill(0.f);
    std::memcpy(bias_.data, bias, num_output * sizeof(float));
  }
}

void InnerProductGemm::forward(const float* x, long x_stride, int rows, float* y, long y_stride,
                               const Option& opt) const {
  // Rows padded to whole K groups (zeros meet the zero weight rows).
  const bool pad = k16_ != num_input_;
  Mat padded;
  if (pad) {
    padded.create(static_cast<int>(k16_), rows, 4u, 1, opt.workspace_allocator);
    for (int r = 0; r < rows; r++) {
      float* dst = padded.row(r);
      std::memcpy(dst, x + r * x_stride, num_input_ * sizeof(float));
      std::memset(dst + num_input_, 0, (k16_ - num_input_) * sizeof(float));
    }
  }
  const int groups = kernels_->groups();
  const long tasks = static_cast<long>(rows) * groups;
  // Small layers stay on one thread: a parallel region costs more than their work.
  const bool parallel = opt.num_threads > 1 && tasks > 1 && k16_ * num_output_ * rows >= (1L << 16);
#pragma omp parallel for num_threads(opt.num_threads) schedule(static) if (parallel)
  for (long task = 0; task < tasks; task++) {
    const int r = static_cast<int>(task / groups), g = static_cast<int>(task % groups);
    const GemmKernelCache::Kernel kernel = kernels_->get(g, 0, 1);
    GemmArgs args{};
    args.a = reinterpret_cast<const float*>(static_cast<const unsigned char*>(weights_.data) + g * group_bytes_);
    args.b = pad ? static_cast<const float*>(padded.row(r)) : x + r * x_stride;
    args.c = y + r * y_stride + static_cast<long>(g) * kernels_->group_size() * vlen_;
    args.bias = bias_.empty() ? nullptr
                              : static_cast<const float*>(bias_.data) + static_cast<long>(g) * kernels_->group_size() * vlen_;
    args.k_groups = k16_ / kKPack;
    args.n_blocks = 1;
    args.b_k_stride = kKPack * 4;
    args.c_plane_stride = 4;
    args.flags = kGemmFinal;
    kernel.fn(&args);
  }
}

std::string InnerProductGemm::describe() const {
  std::ostringstream os;
  os << "gemv " << isa_name(isa_) << (fp16_ ? " fp16 weights" : " fp32 weights") << " group "
     << kernels_->group_size() << "x" << vlen_;
  for (const std::string& n : kernels_->names()) os << "\n  kernel " << n;
  return os.str();
}

}  // namespace jitconv
