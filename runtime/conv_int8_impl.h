// The int8 convolution on the int8 GEMM microkernel (jit/gemm_int8_gen.h).
//
// forward: the fp32 input is quantized once with the bottom scale into a padded,
// channel-interleaved image (the border holds the quantized pad value), then
//   rows    each task runs one output row (or, when rows follow each other in the image,
//           a range of pixels) for one chunk group, batch-reducing over the kernel taps
//           straight from the image: B pixel stride = stride_w * pixel bytes, no copies
//           (a strided 1x1 quantizes only the sampled pixels and runs at stride 1);
//   im2col  for few input channels (a tap's k groups would be mostly padding): each
//           task gathers a pixel range into a [pixel][K] panel (K = kh*kw*ic dense, runs
//           of kw*ic contiguous values per kernel row) and runs every chunk group on it.
//
//   image  = [ih + pads][iw + pads][pixel_elems]      rows: ic rounded up to the k group
//   panel  = [pixels][K rounded up to the k group]
//   A      = group - [segment][k_group][ur_oc][vlen][4 bytes]   segment = tap (rows)
//
// Padding taps read float2int8(pad_value * bottom_scale), as the fp32 model means them
// (ncnn's int8 path pads its int8 blob with static_cast<signed char>(pad_value), unscaled;
// the two agree for the usual pad_value 0).
//
// Accumulation is exact in int32 (K is bounded so the sum cannot overflow); the result is
// sum / (bottom_scale * weight_scale[oc]) + bias, the activation, and with requantize the
// value the int8 output of ncnn would dequantize to (gemm_int8_gen.h).
#pragma once
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "jit/gemm_int8_conf.h"
#include "jit/kernel_registry.h"
#include "runtime/conv_impl.h"

namespace jitconv {

// The longest reduction whose int32 sum cannot overflow: |q_in * q_w| <= 128 * 128.
constexpr long kMaxInt8Reduction = (1L << 31) / (128 * 128);

struct Int8Scales {
  std::vector<float> weight;  // per output channel; 0 marks a channel whose weights are all 0
  float bottom = 1.f;
  bool requantize = false;  // ncnn's int8_scale_term > 100
  float top = 1.f;
};

class ConvInt8 final : public ConvImpl {
 public:
  enum class Form { rows, im2col };
  // Unset fields are chosen from the problem and the CPU.
  struct Tuning {
    std::optional<Form> form;
    std::optional<Int8Dot> dot;
    // An ISA this CPU lacks (Convolution::generate_only): generate its kernels without the
    // CPU check; the dot defaults to VNNI on AVX-512, which every AVX-512 target here has.
    bool generate_only = false;
  };

  // weights: oc x ic x kh x kw int8 (OIHW); bias: oc values or null. Throws
  // jitconv::Error naming the bad value for invalid scales, elempacks or sizes.
  ConvInt8(const ConvParams& params, const int8_t* weights, const Int8Scales& scales, const float* bias, Isa isa,
           int in_pack, int out_pack, const Tuning& tuning);
  ConvInt8(const ConvParams& params, const int8_t* weights, const Int8Scales& scales, const float* bias, Isa isa,
           int in_pack, int out_pack);  // default Tuning (a default argument cannot name it inside the class)

  int in_elempack() const override { return in_pack_; }
  int out_elempack() const override { return out_pack_; }
  void prepare(int ih, int iw) override;
  void forward(const Mat& bottom, Mat& top, const Option& opt) const override;
  std::string name() const override { return "int8"; }
  std::string describe() const override;
  size_t weight_bytes() const override;
  Form form() const { return form_; }
  Int8Dot dot() const { return dot_; }

 private:
  struct Kernels {
    GemmInt8Conf conf_main, conf_last;  // conf_last: the final chunk group
    JitKernelPtr main, last;            // null on Isa::scalar (portable kernel)
  };
  struct Geometry {
    int ih = 0, iw = 0, oh = 0, ow = 0;
    ConvPads pads;
    int hp = 0, wp = 0;    // padded image size
    long pixel_bytes = 0;  // image bytes per pixel
  };
  const Kernels& kernels_for(int n_tail) const;
  void pack_weights(const int8_t* weights);
  void quantize_input(const Mat& bottom, const Geometry& geo, Mat& image, const Option& opt) const;
  void forward_rows(const Geometry& geo, const Mat& image, Mat& top, const Option& opt) const;
  void forward_im2col(const Geometry& geo, const Mat& image, Mat& top, const Option& opt) const;
  // Runs chunk group g over `pixels` pixels of B.
  void run_group(const Kernels& k, int g, const uint8_t* b, const long* offsets, long segments, int pixels,
                 float* c, long c_plane_stride) const;

  ConvParams params_;
  Isa isa_;
  int vlen_;
  int in_pack_, out_pack_;
  Int8Dot dot_;
  Form form_;
  int group_elems_, elem_bytes_;
  GemmInt8Blocking blocking_;
  int chunks_, groups_;
  // Strided 1x1 without padding: the image holds only the sampled pixels, so the kernels
  // run at stride 1 over (oh, ow) and the quantizer skips what no output reads.
  bool subsample_ = false;
  int step_h_ = 1, step_w_ = 1;  // output pixel step in the image
  long pixel_elems_;  // image channels per pixel
  long segments_;     // A segments: taps (rows) or 1 (im2col)
  long k_groups_;     // 32-bit k groups per segment
  long group_bytes_;  // A bytes of a full chunk group
  int pad_elem_, zero_elem_;  // image elements for the pad value and for 0
  Mat weights_;   // uint8 bytes
  Mat acc_init_;  // int32, chunks * vlen
  Mat scale_;     // fp32, chunks * vlen
  Mat bias_;
  float bottom_scale_ = 1.f;
  bool requantize_ = false;
  float requant_[2] = {1.f, 1.f};  // top scale and its inverse

  mutable std::mutex mutex_;
  mutable std::map<int, Kernels> kernels_;
  mutable std::vector<std::string> kernel_names_;
};

}  // namespace jitconv
