#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "loader/model_bin.h"
#include "loader/model_writer.h"
#include "runtime/error.h"
#include "runtime/option.h"
#include "runtime/packing.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the .bin writer assumes a little-endian host");

namespace jitconv {

namespace {

// The scalars of m in ncnn order (channel by channel, padding skipped), lane_bytes each.
std::vector<unsigned char> flatten(const Mat& m, size_t lane_bytes) {
  if (m.dims == 0 || m.data == nullptr) return {};
  Mat unpacked = m;
  if (m.elempack != 1) {
    Option opt;
    opt.num_threads = 1;
    convert_packing(m, unpacked, 1, opt);
  }
  const size_t channels = unpacked.dims >= 3 ? static_cast<size_t>(unpacked.c) : 1;
  const size_t plane = static_cast<size_t>(unpacked.w) * unpacked.h * unpacked.d * (unpacked.dims >= 3 ? 1 : unpacked.c);
  std::vector<unsigned char> out(channels * plane * lane_bytes);
  for (size_t q = 0; q < channels; q++)
    memcpy(&out[q * plane * lane_bytes], static_cast<const unsigned char*>(unpacked.data) + q * unpacked.cstep * lane_bytes,
           plane * lane_bytes);
  return out;
}

void quantize_to_table(const std::vector<float>& values, float table[256], std::vector<unsigned char>& indices) {
  std::fill(table, table + 256, 0.f);
  indices.resize(values.size());
  // Exact when the distinct values fit in the table (keyed by bits so -0 and NaN survive).
  std::map<uint32_t, unsigned char> slot_of;
  for (float v : values) {
    uint32_t bits;
    memcpy(&bits, &v, 4);
    if (slot_of.count(bits)) continue;
    if (slot_of.size() == 256) break;
    const unsigned char slot = static_cast<unsigned char>(slot_of.size());
    slot_of.emplace(bits, slot);
    table[slot] = v;
  }
  bool exact = true;
  for (size_t i = 0; i < values.size() && exact; i++) {
    uint32_t bits;
    memcpy(&bits, &values[i], 4);
    auto it = slot_of.find(bits);
    if (it == slot_of.end()) exact = false;
    else indices[i] = it->second;
  }
  if (exact) return;
  float lo = values[0], hi = values[0];
  for (float v : values) {
    if (!std::isfinite(v)) fail("ModelBinWriter: quantized-table storage of more than 256 distinct values needs finite values");
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const double step = (static_cast<double>(hi) - lo) / 255.0;
  for (int k = 0; k < 256; k++) table[k] = static_cast<float>(lo + step * k);
  for (size_t i = 0; i < values.size(); i++) {
    const double slot = step > 0 ? std::round((values[i] - static_cast<double>(lo)) / step) : 0.0;
    indices[i] = static_cast<unsigned char>(std::clamp(slot, 0.0, 255.0));
  }
}

}  // namespace

void ModelBinWriter::append(const void* data, size_t size) {
  const size_t at = bytes_.size();
  bytes_.resize(at + size);
  if (size) memcpy(&bytes_[at], data, size);
}

void ModelBinWriter::pad() { bytes_.resize((bytes_.size() + 3) / 4 * 4, 0); }

void ModelBinWriter::write(const Mat& values, int type, Storage storage) {
  if (type != 0 && type != 1) fail("ModelBinWriter: unknown type ", type, " (0 = flagged, 1 = raw fp32)");
  if (type == 1 && storage != Storage::fp32) fail("ModelBinWriter: type 1 buffers carry no flag, so they must be fp32");
  const bool is_int8 = values.elempack > 0 && values.elemsize == static_cast<size_t>(values.elempack);
  if ((storage == Storage::int8) != is_int8 && !values.empty())
    fail(storage == Storage::int8 ? "ModelBinWriter: int8 storage needs an int8 Mat (elemsize 1 per lane)"
                                  : "ModelBinWriter: fp32/fp16/table storage needs an fp32 Mat");
  if (!values.empty() && !is_int8 && values.elemsize != 4u * values.elempack)
    fail("ModelBinWriter: expected fp32 values, got elemsize ", values.elemsize, " with elempack ", values.elempack);
  const std::vector<unsigned char> scalars = flatten(values, is_int8 ? 1 : 4);
  const size_t count = is_int8 ? scalars.size() : scalars.size() / 4;
  std::vector<float> floats(is_int8 ? 0 : count);
  if (!floats.empty()) memcpy(floats.data(), scalars.data(), scalars.size());

  switch (storage) {
    case Storage::fp32:
      if (type == 0) append_word(0);
      append(scalars.data(), scalars.size());
      break;
    case Storage::fp32_tagged:
      append_word(kModelBinFp32Tag);
      append(scalars.data(), scalars.size());
      break;
    case Storage::fp16: {
      append_word(kModelBinFp16Tag);
      std::vector<uint16_t> halves(count);
      for (size_t i = 0; i < count; i++) halves[i] = float32_to_float16(floats[i]);
      append(halves.data(), halves.size() * 2);
      break;
    }
    case Storage::int8:
      append_word(kModelBinInt8Tag);
      append(scalars.data(), scalars.size());
      break;
    case Storage::quantized_table: {
      append_word(kModelBinTableFlag);
      float table[256];
      std::vector<unsigned char> indices;
      quantize_to_table(floats, table, indices);
      append(table, sizeof(table));
      append(indices.data(), indices.size());
      break;
    }
  }
  pad();
}

}  // namespace jitconv
