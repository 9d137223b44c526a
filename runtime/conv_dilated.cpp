#include "runtime/conv_dilated.h"

#include <type_traits>

#include "runtime/error.h"
#include "runtime/layers/convolution.h"

namespace jitconv {

namespace {

// Sub-image gather and output scatter, one pixel (P floats) at a time: P is a constant so
// the copies compile to a few vector moves instead of a libc call per pixel (measured: the
// per-pixel memcpy calls and the padded copy took ~30% of 3x3 d2 64@56).
template <int P>
void gather_sub_image(const Mat& bottom, const ConvPads& pads, float pad_value, int d, int ry, int rx, Mat& sub,
                      int q) {
  const float* src = static_cast<const float*>(bottom.channel(q).data);
  float* dst = static_cast<float*>(sub.channel(q).data);
  for (int i = 0; i < sub.h; i++) {
    const int y = d * i + ry - pads.top;
    for (int j = 0; j < sub.w; j++, dst += P) {
      const int x = d * j + rx - pads.left;
      if (y < 0 || y >= bottom.h || x < 0 || x >= bottom.w) {
        for (int l = 0; l < P; l++) dst[l] = pad_value;
      } else {
        const float* pixel = src + (static_cast<long>(y) * bottom.w + x) * P;
        for (int l = 0; l < P; l++) dst[l] = pixel[l];
      }
    }
  }
}

template <int P>
void scatter_part(const Mat& part, int d, int ry, int rx, Mat& top, int q) {
  const float* src = static_cast<const float*>(part.channel(q).data);
  float* dst = static_cast<float*>(top.channel(q).data);
  for (int i = 0; i < part.h; i++)
    for (int j = 0; j < part.w; j++, src += P) {
      float* pixel = dst + (static_cast<long>(d * i + ry) * top.w + d * j + rx) * P;
      for (int l = 0; l < P; l++) pixel[l] = src[l];
    }
}

template <typename Fn>
void by_pack(int pack, Fn fn) {
  switch (pack) {
    case 1: fn(std::integral_constant<int, 1>()); break;
    case 4: fn(std::integral_constant<int, 4>()); break;
    case 8: fn(std::integral_constant<int, 8>()); break;
    case 16: fn(std::integral_constant<int, 16>()); break;
    default: fail("dilated split: unsupported elempack ", pack);
  }
}

}  // namespace

bool ConvDilatedSplit::applies(const ConvParams& p) {
  return p.kh == p.kw && p.dh == p.dw && p.dh > 1 && p.sh == 1 && p.sw == 1;
}

ConvDilatedSplit::ConvDilatedSplit(const ConvParams& params, std::unique_ptr<layers::Convolution> inner, int in_pack,
                                   int out_pack)
    : params_(params), inner_(std::move(inner)), in_pack_(in_pack), out_pack_(out_pack) {
  if (!applies(params)) fail("dilated split needs stride 1 and an equal dilation > 1 on a square kernel");
}

ConvDilatedSplit::~ConvDilatedSplit() = default;

std::string ConvDilatedSplit::name() const { return "dilated"; }

void ConvDilatedSplit::forward(const Mat& bottom, Mat& top, const Option& opt) const {
  const ConvParams& p = params_;
  const int d = p.dh;
  int oh, ow;
  p.output_size(bottom.h, bottom.w, oh, ow);
  const ConvPads pads = p.pads_for(bottom.h, bottom.w);
  if (bottom.elempack != in_pack_ || bottom.elemsize != 4u * in_pack_)
    fail("dilated split: expects fp32 input packed by ", in_pack_);
  Option ws = opt;
  ws.blob_allocator = opt.workspace_allocator;
  top.create(ow, oh, p.oc / out_pack_, 4u * out_pack_, out_pack_, opt.blob_allocator);
  for (int ry = 0; ry < d && ry < oh; ry++)
    for (int rx = 0; rx < d && rx < ow; rx++) {
      // Sub-image (ry, rx): rows ry, ry + d, ... and columns rx, rx + d, ... of the input
      // as padded (the padding filled in here: no padded copy of the whole input).
      const int out_h = (oh - ry + d - 1) / d, out_w = (ow - rx + d - 1) / d;
      const int sub_h = out_h + p.kh - 1, sub_w = out_w + p.kw - 1;
      Mat sub(sub_w, sub_h, bottom.c, bottom.elemsize, bottom.elempack, opt.workspace_allocator);
      by_pack(in_pack_, [&](auto pack) {
#pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < bottom.c; q++)
          gather_sub_image<decltype(pack)::value>(bottom, pads, p.pad_value, d, ry, rx, sub, q);
      });
      Mat part;
      inner_->forward(sub, part, ws);
      if (part.w != out_w || part.h != out_h || part.elempack != out_pack_)
        fail("dilated split: inner convolution produced ", part.w, "x", part.h, " packed by ", part.elempack,
             ", expected ", out_w, "x", out_h, " packed by ", out_pack_);
      by_pack(out_pack_, [&](auto pack) {
#pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < top.c; q++) scatter_part<decltype(pack)::value>(part, d, ry, rx, top, q);
      });
    }
}

std::string ConvDilatedSplit::describe() const {
  return "dilated split d" + std::to_string(params_.dh) + " x" + std::to_string(params_.dh * params_.dh) +
         " into: " + inner_->describe();
}

size_t ConvDilatedSplit::weight_bytes() const { return inner_->weight_bytes(); }

}  // namespace jitconv
