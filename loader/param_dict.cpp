#include "loader/param_dict.h"

#include <climits>
#include <cmath>
#include <cstring>

#include "runtime/error.h"

namespace jitconv {

namespace {

// Truncates toward zero, saturating at the int range; NaN gives 0 (a plain cast would
// be undefined behaviour for values a hostile file can hold).
int float_to_int(float f) {
  if (std::isnan(f)) return 0;
  if (f >= 2147483648.f) return INT_MAX;
  if (f <= -2147483648.f) return INT_MIN;
  return static_cast<int>(f);
}

float word_to_float(uint32_t word) {
  float f;
  memcpy(&f, &word, 4);
  return f;
}

uint32_t float_to_word(float f) {
  uint32_t word;
  memcpy(&word, &f, 4);
  return word;
}

Mat words_to_mat(const void* words, size_t count) {
  Mat m(static_cast<int>(count));
  if (count) memcpy(m.data, words, count * 4);
  return m;
}

}  // namespace

ParamDict::Type ParamDict::type(int id) const {
  auto it = values_.find(id);
  return it == values_.end() ? Type::none : it->second.type;
}

bool ParamDict::is_array(int id) const {
  const Type t = type(id);
  return t == Type::int_array || t == Type::float_array || t == Type::raw_array;
}

// A single number asked for where the file wrote a string or an array: an error, not the
// default (`9=relu` would otherwise run without the activation).
[[noreturn]] void ParamDict::not_a_number(int id) const {
  const Value& v = values_.at(id);
  if (v.type == Type::string_value) fail("parameter ", id, " must be a number, got the string '", v.s, "'");
  const size_t n = words(id).size();
  fail("parameter ", id, " must be a single number, got an array of ", n, " value", n == 1 ? "" : "s");
}

int ParamDict::get(int id, int def) const {
  auto it = values_.find(id);
  if (it == values_.end()) return def;
  const Value& v = it->second;
  if (v.type == Type::int_value) return v.i;
  if (v.type == Type::float_value) return float_to_int(v.f);
  if (v.type == Type::raw_value) {
    note_raw_read(id, false);
    return static_cast<int>(v.word);
  }
  not_a_number(id);
}

float ParamDict::get(int id, float def) const {
  auto it = values_.find(id);
  if (it == values_.end()) return def;
  const Value& v = it->second;
  if (v.type == Type::float_value) return v.f;
  if (v.type == Type::int_value) return static_cast<float>(v.i);
  if (v.type == Type::raw_value) {
    note_raw_read(id, true);
    return word_to_float(v.word);
  }
  not_a_number(id);
}

Mat ParamDict::get(int id, const Mat& def) const {
  auto it = values_.find(id);
  if (it == values_.end()) return def;
  const Value& v = it->second;
  if (v.type == Type::int_array) return words_to_mat(v.ints.data(), v.ints.size());
  if (v.type == Type::float_array) return words_to_mat(v.floats.data(), v.floats.size());
  if (v.type == Type::raw_array) return words_to_mat(v.raw_words.data(), v.raw_words.size());
  return def;
}

std::string ParamDict::get(int id, const std::string& def) const {
  auto it = values_.find(id);
  if (it == values_.end() || it->second.type != Type::string_value) return def;
  return it->second.s;
}

std::vector<int> ParamDict::get_ints(int id, const std::vector<int>& def) const {
  auto it = values_.find(id);
  if (it == values_.end()) return def;
  const Value& v = it->second;
  switch (v.type) {
    case Type::int_array: return v.ints;
    case Type::float_array: {
      std::vector<int> result(v.floats.size());
      for (size_t i = 0; i < result.size(); i++) result[i] = float_to_int(v.floats[i]);
      return result;
    }
    case Type::raw_array:
      note_raw_read(id, false);
      return std::vector<int>(v.raw_words.begin(), v.raw_words.end());
    case Type::int_value: return {v.i};
    case Type::float_value: return {float_to_int(v.f)};
    case Type::raw_value: note_raw_read(id, false); return {static_cast<int>(v.word)};
    default: return def;
  }
}

std::vector<float> ParamDict::get_floats(int id, const std::vector<float>& def) const {
  auto it = values_.find(id);
  if (it == values_.end()) return def;
  const Value& v = it->second;
  switch (v.type) {
    case Type::float_array: return v.floats;
    case Type::int_array: return std::vector<float>(v.ints.begin(), v.ints.end());
    case Type::raw_array: {
      note_raw_read(id, true);
      std::vector<float> result(v.raw_words.size());
      for (size_t i = 0; i < result.size(); i++) result[i] = word_to_float(v.raw_words[i]);
      return result;
    }
    case Type::float_value: return {v.f};
    case Type::int_value: return {static_cast<float>(v.i)};
    case Type::raw_value: note_raw_read(id, true); return {word_to_float(v.word)};
    default: return def;
  }
}

void ParamDict::settle_raw(const RawReads& log) {
  for (const auto& read : log) {
    auto it = values_.find(read.first);
    if (it == values_.end() || (read.second != 1 && read.second != 2)) continue;
    const int id = read.first;
    const bool as_float = read.second == 2;
    // The getters reinterpret raw words exactly as the layer read them.
    if (it->second.type == Type::raw_value) {
      if (as_float)
        set(id, get(id, 0.f));
      else
        set(id, get(id, 0));
    } else if (it->second.type == Type::raw_array) {
      if (as_float)
        set(id, get_floats(id));
      else
        set(id, get_ints(id));
    }
  }
}

ParamDict::Value& ParamDict::reset(int id, Type type) {
  Value& v = values_[id] = Value();
  v.type = type;
  return v;
}

void ParamDict::set(int id, int value) { reset(id, Type::int_value).i = value; }
void ParamDict::set(int id, float value) { reset(id, Type::float_value).f = value; }
void ParamDict::set(int id, const std::vector<int>& values) { reset(id, Type::int_array).ints = values; }
void ParamDict::set(int id, const std::vector<float>& values) { reset(id, Type::float_array).floats = values; }
void ParamDict::set(int id, const std::string& value) { reset(id, Type::string_value).s = value; }
void ParamDict::set_raw(int id, uint32_t word) { reset(id, Type::raw_value).word = word; }
void ParamDict::set_raw(int id, const std::vector<uint32_t>& words) { reset(id, Type::raw_array).raw_words = words; }

std::vector<uint32_t> ParamDict::words(int id) const {
  auto it = values_.find(id);
  if (it == values_.end()) return {};
  const Value& v = it->second;
  switch (v.type) {
    case Type::int_value: return {static_cast<uint32_t>(v.i)};
    case Type::float_value: return {float_to_word(v.f)};
    case Type::raw_value: return {v.word};
    case Type::int_array: return std::vector<uint32_t>(v.ints.begin(), v.ints.end());
    case Type::float_array: {
      std::vector<uint32_t> result(v.floats.size());
      for (size_t i = 0; i < result.size(); i++) result[i] = float_to_word(v.floats[i]);
      return result;
    }
    case Type::raw_array: return v.raw_words;
    default: return {};
  }
}

std::vector<int> ParamDict::ids() const {
  std::vector<int> result;
  for (const auto& kv : values_) result.push_back(kv.first);
  return result;
}

bool ParamDict::same_encoding(const ParamDict& other) const {
  if (ids() != other.ids()) return false;
  for (const auto& kv : values_) {
    const int id = kv.first;
    const bool string_here = kv.second.type == Type::string_value;
    if (string_here != (other.type(id) == Type::string_value)) return false;
    if (string_here) {
      if (kv.second.s != other.get(id, std::string())) return false;
      continue;
    }
    if (is_array(id) != other.is_array(id) || words(id) != other.words(id)) return false;
  }
  return true;
}

}  // namespace jitconv
