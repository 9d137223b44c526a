// Where a layer's load_model() gets its weights from (ncnn's ModelBin).
//
// type 0: a 4-byte storage flag, then the data (fp32, fp16, int8 or a 256-entry
//         quantization table + uint8 indices); type 1: raw fp32 with no flag.
// See loader/model_bin_reader.h for the .bin decoder.
#pragma once
#include <cstdint>
#include <vector>

#include "runtime/mat.h"

namespace jitconv {

// Storage flags of a type-0 weight buffer in a .bin file (the first 4 bytes, read as a
// little-endian word). A flag of four zero bytes also means raw fp32; any other flag
// means a 256-entry fp32 table followed by one uint8 index per value. Every buffer is
// padded to a multiple of 4 bytes.
constexpr uint32_t kModelBinFp16Tag = 0x01306B47;
constexpr uint32_t kModelBinBf16Tag = 0x01348B83;  // current ncnn (ncnnoptimize's storage type 2)
constexpr uint32_t kModelBinInt8Tag = 0x000D4B38;
constexpr uint32_t kModelBinFp32Tag = 0x0002C056;

class ModelBin {
 public:
  virtual ~ModelBin() = default;
  // w values as a 1-D Mat (fp32, or int8 with elemsize 1 when stored as int8). Throws
  // jitconv::Error on truncated or inconsistent data.
  virtual Mat load(int w, int type) const = 0;
  Mat load(int w, int h, int type) const;
  Mat load(int w, int h, int c, int type) const;
  Mat load(int w, int h, int d, int c, int type) const;
};

// Hands out a fixed list of Mats in order, ignoring the storage type: weights already in
// memory (tests, sub-layers created from another layer's weights).
class ModelBinFromMatArray final : public ModelBin {
 public:
  explicit ModelBinFromMatArray(std::vector<Mat> weights) : weights_(std::move(weights)) {}
  Mat load(int w, int type) const override;

 private:
  std::vector<Mat> weights_;
  mutable size_t next_ = 0;
};

}  // namespace jitconv
