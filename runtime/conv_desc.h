// A 2-D convolution problem, read from and written in oneDNN benchdnn's notation:
//
//   mb1ic64ih56oc64oh56kh3ph1n"resnet:3x3_64"
//   g2mb1_ic96ih27iw27_oc256oh27ow27_kh5kw5_sh1sw1_ph2pw2_dh0dw0_n"alexnet:conv2"
//
// benchdnn's rules apply: mb defaults to 2 and g to 1; missing w values copy the h
// values (square), missing h values make a 1-D problem (ih = kh = oh = 1); oh/ow are
// derived when absent; a missing ph with a given oh gets benchdnn's trivial padding;
// dh/dw are dilation - 1; the bottom/right padding is implied by the sizes, so an oh/ow
// larger than derived pads the bottom/right. Inside jitconv dilation is stored 1-based
// (as ncnn does).
#pragma once
#include <string>
#include <vector>

namespace jitconv {

struct ConvDesc {
  std::string name;  // without quotes and without the *N suffix
  int repeat = 1;    // the *N suffix of the name: how often the layer occurs in its network
  int mb = 2;
  int g = 1;
  int ic = 0, ih = 0, iw = 0;
  int oc = 0, oh = 0, ow = 0;
  int kh = 0, kw = 0;
  int sh = 1, sw = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int dilation_h = 1, dilation_w = 1;
  bool has_groups = false;  // g written explicitly (kept when printing)

  // 2 * mb * oc * oh * ow * ic/g * kh * kw (padding taps counted, as oneDNN's perf
  // report does for `flops`).
  double flops() const;
  bool is_depthwise() const { return g > 1 && g == ic && g == oc; }
};

// Throws jitconv::Error naming the offending field (3-D problems, zero channels,
// ic/oc not divisible by g, non-positive output, negative implied padding).
ConvDesc parse_conv_desc(const std::string& text);
// benchdnn's normalized form (all spatial fields, pasteable into benchdnn --conv).
std::string to_string(const ConvDesc& desc);

struct ShapeFileEntry {
  int line = 0;
  std::string text;
  ConvDesc desc;
  std::string error;  // non-empty when the line could not be parsed
};

// One descriptor per line; '#' starts a comment; blank lines skipped. Lines that fail
// to parse are returned with `error` set so callers can report or skip them.
std::vector<ShapeFileEntry> read_shape_file(const std::string& path);
std::vector<ShapeFileEntry> parse_shape_text(const std::string& text);

}  // namespace jitconv
