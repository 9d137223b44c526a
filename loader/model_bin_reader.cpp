#include "loader/model_bin_reader.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

#include "runtime/error.h"
#include "runtime/option.h"
#include "runtime/packing.h"

// The .bin format is little-endian and so is every host this runtime targets (x86-64).
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the .bin decoder assumes a little-endian host");

namespace jitconv {

namespace {

constexpr int kTableEntries = 256;

size_t padded4(size_t bytes) { return (bytes + 3) / 4 * 4; }

}  // namespace

ModelBinFromDataReader::ModelBinFromDataReader(DataReader& reader) : reader_(reader) {}

void ModelBinFromDataReader::set_context(const std::string& context) {
  context_ = context;
  weight_index_ = 0;
}

void ModelBinFromDataReader::fail_at(size_t start, const std::string& message) const {
  fail(context_.empty() ? std::string("weights") : context_, ": weight #", weight_index_, " (", current_w_, " values, ",
       current_storage_, ") at byte offset ", start, ": ", message);
}

void ModelBinFromDataReader::check_available(size_t size, size_t start, const char* what) const {
  const size_t left = reader_.remaining();
  if (left != kUnknownSize && left < size)
    fail_at(start, str_cat("truncated: ", what, " needs ", size, " bytes at byte offset ", reader_.offset(), ", only ",
                           left, " left"));
}

void ModelBinFromDataReader::read_exact(void* buf, size_t size, size_t start, const char* what) const {
  const size_t at = reader_.offset();
  const size_t got = reader_.read(buf, size);
  if (got != size)
    fail_at(start, str_cat("truncated: ", what, " needs ", size, " bytes at byte offset ", at, ", only ", got, " left"));
}

void ModelBinFromDataReader::skip_padding(size_t data_bytes, size_t start) const {
  const size_t pad = padded4(data_bytes) - data_bytes;
  const size_t at = reader_.offset();
  if (pad && reader_.skip(pad) != pad)
    fail_at(start, str_cat("truncated: ", pad, " padding bytes expected at byte offset ", at));
}

Mat ModelBinFromDataReader::allocate(int w, size_t elemsize, size_t start) const {
  try {
    return Mat(w, elemsize, 1);
  } catch (const std::bad_alloc&) {
    fail_at(start, str_cat("cannot allocate ", static_cast<size_t>(w) * elemsize, " bytes"));
  }
}

Mat ModelBinFromDataReader::load(int w, int type) const {
  const size_t start = reader_.offset();
  current_w_ = w;
  current_storage_ = type == 1 ? "raw fp32" : "flagged";
  if (w < 0) fail_at(start, str_cat("negative value count ", w));
  if (type != 0 && type != 1) fail_at(start, str_cat("unknown load type ", type, " (0 = flagged, 1 = raw fp32)"));

  Mat result;
  if (type == 1) {
    result = load_raw_fp32(w, start);
  } else {
    unsigned char flag_bytes[4];
    read_exact(flag_bytes, 4, start, "the storage flag");
    uint32_t flag;
    memcpy(&flag, flag_bytes, 4);
    if (flag == kModelBinFp16Tag) {
      result = load_16bit(w, start, false);
    } else if (flag == kModelBinBf16Tag) {
      result = load_16bit(w, start, true);
    } else if (flag == kModelBinInt8Tag) {
      result = load_int8(w, start);
    } else if (flag == kModelBinFp32Tag || flag == 0) {
      current_storage_ = "fp32";
      result = load_raw_fp32(w, start);
    } else {
      result = load_table(w, start);
    }
  }
  weight_index_++;
  return result;
}

Mat ModelBinFromDataReader::load_raw_fp32(int w, size_t start) const {
  const size_t bytes = static_cast<size_t>(w) * 4;
  if (w == 0) return Mat();
  check_available(bytes, start, "fp32 data");
  const void* in_place = nullptr;
  if (allow_reference_ && reader_.reference(bytes, &in_place) == bytes) {
    if (reinterpret_cast<uintptr_t>(in_place) % 4 == 0) return Mat(w, const_cast<void*>(in_place), 4u, 1);
    Mat copy = allocate(w, 4u, start);
    memcpy(copy.data, in_place, bytes);
    return copy;
  }
  Mat m = allocate(w, 4u, start);
  read_exact(m.data, bytes, start, "fp32 data");
  return m;
}

// 16-bit values widened to fp32: fp16, or bf16 (the high halves of fp32); both padded to
// 4 bytes.
Mat ModelBinFromDataReader::load_16bit(int w, size_t start, bool bf16) const {
  const char* what = bf16 ? "bf16 data" : "fp16 data";
  current_storage_ = bf16 ? "bf16" : "fp16";
  const size_t bytes = static_cast<size_t>(w) * 2;
  check_available(padded4(bytes), start, what);
  if (w == 0) return Mat();
  Mat halves = allocate(w, 2u, start);
  read_exact(halves.data, bytes, start, what);
  skip_padding(bytes, start);
  Option opt;
  opt.num_threads = 1;
  Mat result;
  try {
    if (bf16)
      cast_bfloat16_to_float32(halves, result, opt);
    else
      cast_float16_to_float32(halves, result, opt);
  } catch (const std::bad_alloc&) {
    fail_at(start, str_cat("cannot allocate ", static_cast<size_t>(w) * 4, " bytes"));
  }
  return result;
}

Mat ModelBinFromDataReader::load_int8(int w, size_t start) const {
  current_storage_ = "int8";
  const size_t bytes = static_cast<size_t>(w);
  check_available(padded4(bytes), start, "int8 data");
  if (w == 0) return Mat();
  Mat m = allocate(w, 1u, start);
  read_exact(m.data, bytes, start, "int8 data");
  skip_padding(bytes, start);
  return m;
}

Mat ModelBinFromDataReader::load_table(int w, size_t start) const {
  current_storage_ = "quantized table";
  if (w == 0) return Mat();  // as ncnn: no table follows the flag of an empty buffer
  const size_t index_bytes = static_cast<size_t>(w);
  check_available(kTableEntries * 4 + padded4(index_bytes), start, "quantization table and indices");
  float table[kTableEntries];
  read_exact(table, sizeof(table), start, "the quantization table");
  Mat m = w ? allocate(w, 4u, start) : Mat();
  float* out = static_cast<float*>(m.data);
  unsigned char indices[4096];
  for (size_t done = 0; done < index_bytes;) {
    const size_t chunk = std::min(index_bytes - done, sizeof(indices));
    read_exact(indices, chunk, start, "quantization indices");
    for (size_t i = 0; i < chunk; i++) out[done + i] = table[indices[i]];
    done += chunk;
  }
  skip_padding(index_bytes, start);
  return m;
}

}  // namespace jitconv
