// The key=value parameters of one layer line in a .param file (ncnn's ParamDict).
//
// Values are ints, floats, int/float arrays, short strings, or raw 32-bit words. Unlike
// ncnn, asking for a float from a value written as an int (or the reverse) converts it
// instead of reinterpreting the bits, so `1=1` and `1=1.0` mean the same to a float
// parameter. Float-to-int conversion truncates toward zero and saturates (NaN gives 0).
//
// Raw values come from the binary .param format, which stores every scalar and array
// element as an untyped 4-byte word: get(id, int) returns the word as an int,
// get(id, float) reinterprets it as a float (what ncnn does for every value).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/mat.h"

namespace jitconv {

class ParamDict {
 public:
  enum class Type { none, int_value, float_value, int_array, float_array, string_value, raw_value, raw_array };

  ParamDict() = default;
  // Copies take the values, not a read log (see RawReads).
  ParamDict(const ParamDict& other) : values_(other.values_) {}
  ParamDict(ParamDict&& other) noexcept : values_(std::move(other.values_)) {}
  ParamDict& operator=(const ParamDict& other) {
    values_ = other.values_;
    return *this;
  }
  ParamDict& operator=(ParamDict&& other) noexcept {
    values_ = std::move(other.values_);
    return *this;
  }

  Type type(int id) const;
  bool has(int id) const { return type(id) != Type::none; }
  bool is_array(int id) const;

  // A single number; def when absent. A string or an array under the id is an error.
  int get(int id, int def) const;
  float get(int id, float def) const;
  // Arrays come back as 1-D fp32 Mats (int arrays hold their values as int32 bits, as
  // ncnn does; raw arrays hold their words unchanged).
  Mat get(int id, const Mat& def) const;
  std::string get(int id, const std::string& def) const;
  std::vector<int> get_ints(int id, const std::vector<int>& def = {}) const;
  std::vector<float> get_floats(int id, const std::vector<float>& def = {}) const;

  void set(int id, int value);
  void set(int id, float value);
  void set(int id, const std::vector<int>& values);
  void set(int id, const std::vector<float>& values);
  void set(int id, const std::string& value);
  void set(int id, const char* value) { set(id, std::string(value)); }
  void set_raw(int id, uint32_t word);
  void set_raw(int id, const std::vector<uint32_t>& words);
  void erase(int id) { values_.erase(id); }
  void clear() { values_.clear(); }

  // The 4-byte words the binary format stores for a number or array: ints as two's
  // complement, floats as IEEE-754 bits, raw words as they are. Empty for strings and
  // absent ids.
  std::vector<uint32_t> words(int id) const;

  // Ids in ascending order (what a writer emits).
  std::vector<int> ids() const;
  size_t size() const { return values_.size(); }

  // True when both dicts would be written identically in the binary format: the same
  // ids, scalar/array/string kind and 4-byte words (so an int 3 read from text equals a
  // raw word 3 read from binary).
  bool same_encoding(const ParamDict& other) const;

  // How a layer read the raw words under each id (bit 1: as ints, bit 2: as floats).
  // Writing a binary .param as text must choose int or float text for each raw word;
  // a layer's load_param on a dict with a log attached says which one it reads back
  // exactly (a weight count of 2^24 or more written as a float reads back as 0).
  using RawReads = std::map<int, int>;
  // Records raw reads into `log` until detached (nullptr). Copies never carry the log.
  void attach_raw_reads(RawReads* log) const { raw_reads_ = log; }
  // Raw values the log saw read one way only become ints or floats of the same bits.
  void settle_raw(const RawReads& log);

 private:
  struct Value {
    Type type = Type::none;
    int i = 0;
    float f = 0.f;
    uint32_t word = 0;
    std::vector<int> ints;
    std::vector<float> floats;
    std::vector<uint32_t> raw_words;
    std::string s;
  };
  Value& reset(int id, Type type);
  [[noreturn]] void not_a_number(int id) const;
  void note_raw_read(int id, bool as_float) const {
    if (raw_reads_) (*raw_reads_)[id] |= as_float ? 2 : 1;
  }
  std::map<int, Value> values_;
  mutable RawReads* raw_reads_ = nullptr;
};

}  // namespace jitconv
