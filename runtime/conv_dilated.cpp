#include "runtime/conv_dilated.h"

#include <cstring>

#include "runtime/border.h"
#include "runtime/error.h"
#include "runtime/layers/convolution.h"

namespace jitconv {

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
  Option ws = opt;
  ws.blob_allocator = opt.workspace_allocator;
  Mat padded = bottom;
  if (pads.any()) copy_make_border(bottom, padded, pads.top, pads.bottom, pads.left, pads.right, p.pad_value, ws);
  top.create(ow, oh, p.oc / out_pack_, 4u * out_pack_, out_pack_, opt.blob_allocator);
  const size_t in_elem = 4u * in_pack_, out_elem = 4u * out_pack_;
  for (int ry = 0; ry < d && ry < oh; ry++)
    for (int rx = 0; rx < d && rx < ow; rx++) {
      // Sub-image (ry, rx): input rows ry, ry + d, ... of the padded input.
      const int out_h = (oh - ry + d - 1) / d, out_w = (ow - rx + d - 1) / d;
      const int sub_h = out_h + p.kh - 1, sub_w = out_w + p.kw - 1;
      Mat sub(sub_w, sub_h, padded.c, padded.elemsize, padded.elempack, opt.workspace_allocator);
#pragma omp parallel for num_threads(opt.num_threads)
      for (int q = 0; q < padded.c; q++) {
        const unsigned char* src = static_cast<const unsigned char*>(padded.channel(q).data);
        unsigned char* dst = static_cast<unsigned char*>(sub.channel(q).data);
        for (int i = 0; i < sub_h; i++)
          for (int j = 0; j < sub_w; j++)
            std::memcpy(dst + (static_cast<size_t>(i) * sub_w + j) * in_elem,
                        src + (static_cast<size_t>(d * i + ry) * padded.w + d * j + rx) * in_elem, in_elem);
      }
      Mat part;
      inner_->forward(sub, part, ws);
      if (part.w != out_w || part.h != out_h || part.elempack != out_pack_)
        fail("dilated split: inner convolution produced ", part.w, "x", part.h, " packed by ", part.elempack,
             ", expected ", out_w, "x", out_h, " packed by ", out_pack_);
#pragma omp parallel for num_threads(opt.num_threads)
      for (int q = 0; q < top.c; q++) {
        const unsigned char* src = static_cast<const unsigned char*>(part.channel(q).data);
        unsigned char* dst = static_cast<unsigned char*>(top.channel(q).data);
        for (int i = 0; i < out_h; i++)
          for (int j = 0; j < out_w; j++)
            std::memcpy(dst + (static_cast<size_t>(d * i + ry) * ow + d * j + rx) * out_elem,
                        src + (static_cast<size_t>(i) * out_w + j) * out_elem, out_elem);
      }
    }
}

std::string ConvDilatedSplit::describe() const {
  return "dilated split d" + std::to_string(params_.dh) + " x" + std::to_string(params_.dh * params_.dh) +
         " into: " + inner_->describe();
}

size_t ConvDilatedSplit::weight_bytes() const { return inner_->weight_bytes(); }

}  // namespace jitconv
