// Eltwise (ncnn): elementwise over N same-shaped inputs. Params: 0 = op_type (0 prod,
// 1 sum, 2 max), 1 = coeffs (sum only: out = sum coeffs[i] * in[i]; empty = plain sum).
#include <memory>
#include <vector>

#include "runtime/layers/elementwise_kernels.h"
#include "runtime/layers/math_util.h"

namespace jitconv {
namespace layers {

namespace {
enum EltwiseOp { kProd = 0, kSum = 1, kMax = 2 };
constexpr long kChunk = 16384;  // floats per parallel work item
}  // namespace

class Eltwise final : public Layer {
 public:
  Eltwise() {
    one_blob_only = false;
    support_inplace = false;
    support_packing = true;
  }

  void load_param(const ParamDict& pd) override {
    op_type_ = pd.get(0, 0);
    coeffs_ = pd.get_floats(1);
    if (op_type_ < kProd || op_type_ > kMax)
      fail(layer_label(*this), ": op_type (param 0) must be 0 (prod), 1 (sum) or 2 (max), got ", op_type_);
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    if (bottoms.size() < 2) fail(layer_label(*this), ": needs at least two inputs, got ", bottoms.size());
    if (!coeffs_.empty() && op_type_ == kSum && coeffs_.size() != bottoms.size())
      fail(layer_label(*this), ": ", coeffs_.size(), " coeffs for ", bottoms.size(), " inputs");
    const Mat& first = bottoms[0];
    check_fp32_blob(*this, first, "input 0");
    std::vector<Mat> inputs(bottoms.size());
    inputs[0] = first;
    for (size_t i = 1; i < bottoms.size(); i++) {
      const Mat& b = bottoms[i];
      check_fp32_blob(*this, b, "input");
      if (b.dims != first.dims || b.w != first.w || b.h != first.h || b.d != first.d ||
          packed_axis_scalars(b) != packed_axis_scalars(first))
        fail(layer_label(*this), ": input ", i, " is ", b.dims, "-D ", b.w, "x", b.h, "x", b.d, "x",
             packed_axis_scalars(b), ", input 0 is ", first.dims, "-D ", first.w, "x", first.h, "x", first.d, "x",
             packed_axis_scalars(first));
      inputs[i] = b.elempack == first.elempack ? b : repack_workspace(b, first.elempack, opt);
    }

    Mat out;
    out.create_like(first, opt.blob_allocator);
    const long n = static_cast<long>(plane_elements(first)) * first.elempack;
    const long chunks = (n + kChunk - 1) / kChunk;
    const long items = channel_count(first) * chunks;
#pragma omp parallel for num_threads(thread_count(opt, static_cast<size_t>(items) * kChunk))
    for (long item = 0; item < items; item++) {
      const int q = static_cast<int>(item / chunks);
      const long begin = item % chunks * kChunk;
      const long len = n - begin < kChunk ? n - begin : kChunk;
      float* dst = channel_ptr(out, q) + begin;
      for (size_t i = 0; i < inputs.size(); i++) {
        const float* src = channel_ptr(inputs[i], q) + begin;
        if (op_type_ == kSum && !coeffs_.empty()) {
          JITCONV_SIMD_CALL(axpy_row, dst, src, coeffs_[i], i == 0, len);
        } else if (i > 0) {
          const BinaryKind kind = op_type_ == kProd ? BinaryKind::mul : op_type_ == kSum ? BinaryKind::add : BinaryKind::max;
          const float* lhs = i == 1 ? channel_ptr(inputs[0], q) + begin : dst;
          JITCONV_SIMD_CALL(binary_row, kind, lhs, RowMode::contiguous, src, RowMode::contiguous, dst, len);
        }
      }
    }
    tops.assign(1, out);
  }

 private:
  int op_type_ = kProd;
  std::vector<float> coeffs_;
};

std::unique_ptr<Layer> make_Eltwise() { return std::make_unique<Eltwise>(); }

}  // namespace layers
}  // namespace jitconv
