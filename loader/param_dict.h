// The key=value parameters of one layer line in a .param file (ncnn's ParamDict).
//
// Values are ints, floats, int/float arrays or short strings. Unlike ncnn, asking for a
// float from a value written as an int (or the reverse) converts it instead of
// reinterpreting the bits, so `1=1` and `1=1.0` mean the same to a float parameter.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "runtime/mat.h"

namespace jitconv {

class ParamDict {
 public:
  enum class Type { none, int_value, float_value, int_array, float_array, string_value };

  Type type(int id) const;
  bool has(int id) const { return type(id) != Type::none; }

  int get(int id, int def) const;
  float get(int id, float def) const;
  // Arrays come back as 1-D fp32 Mats (int arrays hold their values as int32 bits, as ncnn does).
  Mat get(int id, const Mat& def) const;
  std::string get(int id, const std::string& def) const;
  std::vector<int> get_ints(int id, const std::vector<int>& def = {}) const;
  std::vector<float> get_floats(int id, const std::vector<float>& def = {}) const;

  void set(int id, int value);
  void set(int id, float value);
  void set(int id, const std::vector<int>& values);
  void set(int id, const std::vector<float>& values);
  void set(int id, const std::string& value);
  void erase(int id) { values_.erase(id); }
  void clear() { values_.clear(); }

  // Ids in ascending order (what a writer emits).
  std::vector<int> ids() const;

 private:
  struct Value {
    Type type = Type::none;
    int i = 0;
    float f = 0.f;
    std::vector<int> ints;
    std::vector<float> floats;
    std::string s;
  };
  std::map<int, Value> values_;
};

}  // namespace jitconv
