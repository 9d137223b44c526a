// Decodes weight buffers from a .bin byte stream (ncnn's ModelBinFromDataReader).
//
// load(w, 0): a 4-byte storage flag (see loader/model_bin.h), then
//   fp16 tag      w halves (converted to fp32), padded to 4 bytes
//   int8 tag      w int8 values kept as int8 (elemsize 1, elempack 1), padded to 4 bytes
//   fp32 tag      w raw fp32
//   four zeros    w raw fp32
//   other         256 fp32 table entries, then w uint8 indices (padded), decoded to fp32
// load(w, 1): w raw fp32 with no flag.
//
// Raw fp32 is referenced in place (zero copy) when the reader can reference memory and
// the data is 4-byte aligned: the returned Mat then points into the caller's buffer or
// the MappedFile, which must outlive it (the Net keeps its MappedFile for this). Such
// Mats are external (no refcount) and must be treated as read-only. Any other case
// copies.
//
// Truncated or inconsistent data throws a jitconv::Error naming the context (the layer
// the Net is loading), the weight's position in that layer and the byte offset.
#pragma once
#include <string>

#include "loader/data_reader.h"
#include "loader/model_bin.h"

namespace jitconv {

class ModelBinFromDataReader final : public ModelBin {
 public:
  // The reader must outlive this object.
  explicit ModelBinFromDataReader(DataReader& reader);

  Mat load(int w, int type) const override;
  using ModelBin::load;

  // Names what is being loaded in error messages (e.g. "layer 'conv1' (Convolution)")
  // and restarts the per-context weight count.
  void set_context(const std::string& context);
  const std::string& context() const { return context_; }
  // Zero copy on/off (on by default); off always copies.
  void set_allow_reference(bool allow) { allow_reference_ = allow; }

 private:
  Mat load_raw_fp32(int w, size_t start) const;
  Mat load_16bit(int w, size_t start, bool bf16) const;  // fp16 or bf16, widened to fp32
  Mat load_int8(int w, size_t start) const;
  Mat load_table(int w, size_t start) const;
  void read_exact(void* buf, size_t size, size_t start, const char* what) const;
  void skip_padding(size_t data_bytes, size_t start) const;
  void check_available(size_t size, size_t start, const char* what) const;
  Mat allocate(int w, size_t elemsize, size_t start) const;
  [[noreturn]] void fail_at(size_t start, const std::string& message) const;

  DataReader& reader_;
  std::string context_;
  bool allow_reference_ = true;
  mutable int weight_index_ = 0;
  mutable int current_w_ = 0;
  mutable const char* current_storage_ = "";
};

}  // namespace jitconv
