// ConvInt8's forward: quantize into the padded image, then the rows or im2col driver.
#include <omp.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <sstream>

#include "runtime/conv_int8_impl.h"
#include "runtime/conv_int8_quantize.h"
#include "runtime/conv_int8_scalar.h"
#include "runtime/error.h"
#include "runtime/option.h"
#include "runtime/task_ranges.h"

namespace jitconv {

namespace {
constexpr long kRangePixels = 192;  // rows form over contiguous rows: pixels per task
constexpr long kPanelPixels = 96;   // im2col: pixels per panel
constexpr long kCopySlack = 64;     // bytes after images and panels for 16-byte copies

// Copies n bytes in 16-byte pieces; may read and write up to 15 bytes past the end.
inline void copy_overshoot(uint8_t* dst, const uint8_t* src, long n) {
  for (long i = 0; i < n; i += 16) memcpy(dst + i, src + i, 16);
}

void fill_elems(uint8_t* dst, long count, int elem_bytes, int value) {
  if (elem_bytes == 1) {
    memset(dst, value, count);
    return;
  }
  const int16_t v = static_cast<int16_t>(value);
  for (long i = 0; i < count; i++) memcpy(dst + i * 2, &v, 2);
}

// A workspace of `bytes` bytes (Mats are sized in int elements).
void create_bytes(Mat& m, long bytes, const char* what, const Option& opt) {
  if (bytes > INT_MAX) fail("int8 convolution: the ", what, " would take ", bytes, " bytes (more than 2 GiB)");
  m.create(static_cast<int>(bytes), 1u, 1, opt.workspace_allocator);
}

// im2col: pixels per panel for `total` output pixels on `threads` threads (every chunk
// group of a panel runs in its task; see panel_length).
long panel_pixels(long total, int threads) { return panel_length(total, kPanelPixels, threads, 1); }

}  // namespace

void ConvInt8::prepare(int ih, int iw) {
  int oh, ow;
  params_.output_size(ih, iw, oh, ow);
  const long total = static_cast<long>(oh) * ow;
  kernels_for(static_cast<int>(ow % blocking_.nr));
  for (int threads : {1, default_num_threads()}) {
    const long range = form_ == Form::rows ? std::min(kRangePixels, total) : panel_pixels(total, threads);
    kernels_for(static_cast<int>(range % blocking_.nr));
    kernels_for(static_cast<int>((total - (total - 1) / range * range) % blocking_.nr));
  }
}

void ConvInt8::run_group(const Kernels& k, int g, const uint8_t* b, const long* offsets, long segments, int pixels,
                         float* c, long c_plane_stride) const {
  const bool last = g == groups_ - 1;
  const long lane0 = static_cast<long>(g) * blocking_.ur_oc * vlen_;
  GemmInt8Args args{};
  args.a = static_cast<const uint8_t*>(weights_.data) + g * group_bytes_;
  args.b = b;
  args.b_offsets = offsets;
  args.c = c;
  args.acc_init = static_cast<const int32_t*>(acc_init_.data) + lane0;
  args.scale = static_cast<const float*>(scale_.data) + lane0;
  args.bias = params_.bias ? static_cast<const float*>(bias_.data) + lane0 : nullptr;
  args.requant = requant_;
  args.segments = segments;
  args.k_groups = k_groups_;
  args.n_blocks = pixels / blocking_.nr;
  args.c_plane_stride = c_plane_stride;
  if (isa_ == Isa::scalar)
    gemm_int8_scalar(last ? k.conf_last : k.conf_main, args);
  else
    (last ? k.last : k.main)->entry<GemmInt8KernelFn>()(&args);
}

void ConvInt8::quantize_input(const Mat& bottom, const Geometry& geo, Mat& image, const Option& opt) const {
  const long row_bytes = geo.wp * geo.pixel_bytes;
  const long image_bytes = geo.hp * row_bytes;
  create_bytes(image, image_bytes + kCopySlack, "quantized input", opt);
  uint8_t* img = static_cast<uint8_t*>(image.data);
  memset(img + image_bytes, 0, kCopySlack);
  const ConvPads& pads = geo.pads;
  if (pads.any()) {
    for (int y = 0; y < geo.hp; y++) {
      uint8_t* row = img + y * row_bytes;
      if (y < pads.top || y >= pads.top + geo.ih) {
        fill_elems(row, geo.wp * pixel_elems_, elem_bytes_, pad_elem_);
      } else {
        fill_elems(row, pads.left * pixel_elems_, elem_bytes_, pad_elem_);
        fill_elems(row + (pads.left + geo.iw) * geo.pixel_bytes, pads.right * pixel_elems_, elem_bytes_, pad_elem_);
      }
    }
  }
  Int8QuantizeJob job;
  job.src = static_cast<const float*>(bottom.data);
  job.in_pack = in_pack_;
  job.src_channel_stride = static_cast<long>(bottom.cstep) * in_pack_;
  job.src_w = geo.iw;
  job.x_step = subsample_ ? params_.sw : 1;
  job.y_step = subsample_ ? params_.sh : 1;
  job.w = subsample_ ? geo.ow : geo.iw;
  job.h = subsample_ ? geo.oh : geo.ih;
  job.ic = params_.ic;
  job.scale = bottom_scale_;
  job.dst = img + pads.top * row_bytes + pads.left * geo.pixel_bytes;
  job.elem_bytes = elem_bytes_;
  job.offset = zero_elem_;
  job.pixel_elems = pixel_elems_;
  job.dst_row_stride = geo.wp * pixel_elems_;
  job.fill = zero_elem_;
  job.num_threads = opt.num_threads;
  run_quantize_to_image(isa_, job);
}

void ConvInt8::forward_rows(const Geometry& geo, const Mat& image, Mat& top, const Option& opt) const {
  const ConvParams& p = params_;
  const long total = static_cast<long>(geo.oh) * geo.ow;
  // Output rows that follow each other in the image (1 x k kernels at stride 1) form one
  // pixel sequence; otherwise every output row is a task.
  const bool contiguous = static_cast<long>(step_h_) * geo.wp == static_cast<long>(geo.ow) * step_w_ || geo.oh == 1;
  const long range_len = contiguous ? std::min(kRangePixels, total) : geo.ow;
  const long ranges = contiguous ? (total + range_len - 1) / range_len : geo.oh;
  const long last_len = contiguous ? total - (ranges - 1) * range_len : geo.ow;
  std::vector<long> offsets(segments_);
  for (int ky = 0; ky < p.kh; ky++)
    for (int kx = 0; kx < p.kw; kx++)
      offsets[ky * p.kw + kx] =
          (static_cast<long>(ky) * p.dh * geo.wp + static_cast<long>(kx) * p.dw) * geo.pixel_bytes;
  const Kernels& k_full = kernels_for(static_cast<int>(range_len % blocking_.nr));
  const Kernels& k_last = kernels_for(static_cast<int>(last_len % blocking_.nr));
  const long c_plane_stride = static_cast<long>(top.cstep) * out_pack_ * 4;
  const long group_stride = static_cast<long>(blocking_.ur_oc) * vlen_ / out_pack_ * c_plane_stride;
  const uint8_t* img = static_cast<const uint8_t*>(image.data);
  char* out = static_cast<char*>(top.data);
  const long tasks = groups_ * ranges;
#pragma omp parallel for num_threads(opt.num_threads) schedule(static)
  for (long task = 0; task < tasks; task++) {
    const int g = static_cast<int>(task / ranges);
    const long r = task % ranges;
    long n, b_offset, c_offset;
    if (contiguous) {
      const long p0 = r * range_len;
      n = std::min(range_len, total - p0);
      b_offset = p0 * step_w_ * geo.pixel_bytes;
      c_offset = p0 * out_pack_ * 4;
    } else {
      n = geo.ow;
      b_offset = r * step_h_ * geo.wp * geo.pixel_bytes;
      c_offset = r * geo.ow * out_pack_ * 4;
    }
    run_group(n == range_len ? k_full : k_last, g, img + b_offset, offsets.data(), segments_, static_cast<int>(n),
              reinterpret_cast<float*>(out + c_offset + g * group_stride), c_plane_stride);
  }
}

void ConvInt8::forward_im2col(const Geometry& geo, const Mat& image, Mat& top, const Option& opt) const {
  const ConvParams& p = params_;
  const long total = static_cast<long>(geo.oh) * geo.ow;
  const long panel_pixel_bytes = k_groups_ * 4;
  // dst = [pixel][ky][kx][ic]: with dw == 1 a kernel row is one contiguous run of the image.
  std::vector<long> run_offsets;
  long run_bytes;
  if (p.dw == 1) {
    run_bytes = static_cast<long>(p.kw) * p.ic * elem_bytes_;
    for (int ky = 0; ky < p.kh; ky++) run_offsets.push_back(static_cast<long>(ky) * p.dh * geo.wp * geo.pixel_bytes);
  } else {
    run_bytes = static_cast<long>(p.ic) * elem_bytes_;
    for (int ky = 0; ky < p.kh; ky++)
      for (int kx = 0; kx < p.kw; kx++)
        run_offsets.push_back((static_cast<long>(ky) * p.dh * geo.wp + static_cast<long>(kx) * p.dw) * geo.pixel_bytes);
  }
  const long range_len = panel_pixels(total, opt.num_threads);
  const long ranges = (total + range_len - 1) / range_len;
  const long last_len = total - (ranges - 1) * range_len;
  const Kernels& k_full = kernels_for(static_cast<int>(range_len % blocking_.nr));
  const Kernels& k_last = kernels_for(static_cast<int>(last_len % blocking_.nr));
  const long panel_bytes = range_len * panel_pixel_bytes + kCopySlack;
  Mat work;
  create_bytes(work, panel_bytes * opt.num_threads, "im2col panels", opt);
  const long c_plane_stride = static_cast<long>(top.cstep) * out_pack_ * 4;
  const long group_stride = static_cast<long>(blocking_.ur_oc) * vlen_ / out_pack_ * c_plane_stride;
  const uint8_t* img = static_cast<const uint8_t*>(image.data);
  char* out = static_cast<char*>(top.data);
  const long no_offset = 0;
  const int runs = static_cast<int>(run_offsets.size());
#pragma omp parallel for num_threads(opt.num_threads) schedule(static)
  for (long r = 0; r < ranges; r++) {
    uint8_t* panel = static_cast<uint8_t*>(work.data) + panel_bytes * omp_get_thread_num();
    const long p0 = r * range_len;
    const long n = std::min(range_len, total - p0);
    for (long j = 0; j < n; j++) {
      const long pix = p0 + j;
      const long oy = pix / geo.ow, ox = pix % geo.ow;
      const uint8_t* src = img + (oy * p.sh * geo.wp + ox * p.sw) * geo.pixel_bytes;
      uint8_t* dst = panel + j * panel_pixel_bytes;
      for (int run = 0; run < runs; run++) copy_overshoot(dst + run * run_bytes, src + run_offsets[run], run_bytes);
    }
    for (int g = 0; g < groups_; g++)
      run_group(n == range_len ? k_full : k_last, g, panel, &no_offset, 1, static_cast<int>(n),
                reinterpret_cast<float*>(out + p0 * out_pack_ * 4 + g * group_stride), c_plane_stride);
  }
}

void ConvInt8::forward(const Mat& bottom, Mat& top, const Option& opt) const {
  const ConvParams& p = params_;
  if (bottom.dims != 3 || bottom.elempack != in_pack_ || bottom.c * bottom.elempack != p.ic ||
      bottom.elemsize != 4u * in_pack_)
    fail("int8 convolution expects an fp32 (c, h, w) input of ", p.ic, " channels packed by ", in_pack_, ", got dims ",
         bottom.dims, " channels ", bottom.c * bottom.elempack, " elempack ", bottom.elempack, " elemsize ",
         bottom.elemsize);
  Geometry geo;
  geo.ih = bottom.h;
  geo.iw = bottom.w;
  p.output_size(geo.ih, geo.iw, geo.oh, geo.ow);
  geo.pads = p.pads_for(geo.ih, geo.iw);
  geo.hp = subsample_ ? geo.oh : geo.ih + geo.pads.top + geo.pads.bottom;
  geo.wp = subsample_ ? geo.ow : geo.iw + geo.pads.left + geo.pads.right;
  geo.pixel_bytes = pixel_elems_ * elem_bytes_;
  top.create(geo.ow, geo.oh, p.oc / out_pack_, static_cast<size_t>(out_pack_) * 4, out_pack_, opt.blob_allocator);
  Mat image;
  quantize_input(bottom, geo, image, opt);
  if (form_ == Form::rows)
    forward_rows(geo, image, top, opt);
  else
    forward_im2col(geo, image, top, opt);
}

std::string ConvInt8::describe() const {
  std::ostringstream os;
  os << "int8 " << isa_name(isa_) << " " << int8_dot_name(dot_) << " " << (form_ == Form::rows ? "rows" : "im2col")
     << " elempack " << in_pack_ << "->" << out_pack_ << " tile " << blocking_.ur_oc << "x" << blocking_.nr << " "
     << segments_ << " segment(s) of " << k_groups_ << " k groups" << (requantize_ ? " requantized" : "");
  std::lock_guard<std::mutex> lock(mutex_);
  for (const std::string& n : kernel_names_) os << "\n  kernel " << n;
  return os.str();
}

size_t ConvInt8::weight_bytes() const {
  return weights_.bytes() + acc_init_.bytes() + scale_.bytes() + bias_.bytes();
}

}  // namespace jitconv
