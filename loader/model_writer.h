// Writes ncnn models: a ParamGraph as text .param or binary .param.bin, and weight
// buffers as a .bin byte stream. What the writers emit, the parsers read back to an
// equal graph (ParamDict::same_encoding per layer) and equal weights.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "loader/param_graph.h"
#include "runtime/mat.h"

namespace jitconv {

// Text .param in ncnn's layout (type and name padded into columns). Parameters are
// written in ascending id order in the forms described in loader/param_value_text.h;
// shape hints (parameter 30) are left out when with_shape_hints is false. Throws when
// the graph is invalid (validate_graph) or a name cannot be written as one token
// (empty, white space, quotes, or shaped like key=value).
std::string write_param_text(const ParamGraph& graph, bool with_shape_hints = true);
// Binary .param.bin (layout in loader/param_parser.h). Names are not stored. Throws when
// the graph is invalid or a layer type has no ncnn built-in index.
std::vector<unsigned char> write_param_binary(const ParamGraph& graph, bool with_shape_hints = true);

// Write to a file; throws naming the path when it cannot be written.
void save_param_text(const ParamGraph& graph, const std::string& path, bool with_shape_hints = true);
void save_param_binary(const ParamGraph& graph, const std::string& path, bool with_shape_hints = true);
void save_bytes(const void* data, size_t size, const std::string& path);

// The flag written before quantized-table data: any non-zero flag that is not one of
// the tags in loader/model_bin.h selects that storage.
constexpr uint32_t kModelBinTableFlag = 0x00000100;

// Appends weight buffers in .bin format, each padded to a multiple of 4 bytes.
class ModelBinWriter {
 public:
  enum class Storage {
    fp32,             // type 0: four zero bytes then raw fp32; type 1: raw fp32, no flag
    fp32_tagged,      // type 0 only: the 0x0002C056 tag then raw fp32
    fp16,             // type 0 only: the fp16 tag then halves (round to nearest even)
    int8,             // type 0 only: the int8 tag then the bytes; the Mat must hold int8
    quantized_table,  // type 0 only: a 256-entry table then one uint8 index per value
  };

  // Writes the scalars of values (any shape and elempack; channel padding skipped) in
  // ncnn's order. Throws when the storage needs type 0 but type is 1, when int8 storage
  // gets a Mat that is not int8 (or the reverse), for an unknown type, and for a
  // quantized table over more than 256 distinct values that are not all finite.
  // quantized_table keeps values exactly when there are at most 256 distinct ones,
  // otherwise it quantizes uniformly between the smallest and largest value.
  void write(const Mat& values, int type = 0, Storage storage = Storage::fp32);

  const std::vector<unsigned char>& bytes() const { return bytes_; }
  size_t size() const { return bytes_.size(); }
  void clear() { bytes_.clear(); }
  void save(const std::string& path) const { save_bytes(bytes_.data(), bytes_.size(), path); }

 private:
  void append(const void* data, size_t size);
  void append_word(uint32_t word) { append(&word, 4); }
  void pad();
  std::vector<unsigned char> bytes_;
};

}  // namespace jitconv
