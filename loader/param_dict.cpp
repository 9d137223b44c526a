#include "loader/param_dict.h"

#include <cstring>

namespace jitconv {

ParamDict::Type ParamDict::type(int id) const {
  auto it = values_.find(id);
  return it == values_.end() ? Type::none : it->second.type;
}

int ParamDict::get(int id, int def) const {
  auto it = values_.find(id);
  if (it == values_.end()) return def;
  const Value& v = it->second;
  if (v.type == Type::int_value) return v.i;
  if (v.type == Type::float_value) return static_cast<int>(v.f);
  return def;
}

float ParamDict::get(int id, float def) const {
  auto it = values_.find(id);
  if (it == values_.end()) return def;
  const Value& v = it->second;
  if (v.type == Type::float_value) return v.f;
  if (v.type == Type::int_value) return static_cast<float>(v.i);
  return def;
}

Mat ParamDict::get(int id, const Mat& def) const {
  auto it = values_.find(id);
  if (it == values_.end()) return def;
  const Value& v = it->second;
  if (v.type == Type::int_array) {
    Mat m(static_cast<int>(v.ints.size()));
    if (!v.ints.empty()) memcpy(m.data, v.ints.data(), v.ints.size() * 4);
    return m;
  }
  if (v.type == Type::float_array) {
    Mat m(static_cast<int>(v.floats.size()));
    if (!v.floats.empty()) memcpy(m.data, v.floats.data(), v.floats.size() * 4);
    return m;
  }
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
  if (v.type == Type::int_array) return v.ints;
  if (v.type == Type::float_array) return std::vector<int>(v.floats.begin(), v.floats.end());
  if (v.type == Type::int_value) return {v.i};
  if (v.type == Type::float_value) return {static_cast<int>(v.f)};
  return def;
}

std::vector<float> ParamDict::get_floats(int id, const std::vector<float>& def) const {
  auto it = values_.find(id);
  if (it == values_.end()) return def;
  const Value& v = it->second;
  if (v.type == Type::float_array) return v.floats;
  if (v.type == Type::int_array) return std::vector<float>(v.ints.begin(), v.ints.end());
  if (v.type == Type::float_value) return {v.f};
  if (v.type == Type::int_value) return {static_cast<float>(v.i)};
  return def;
}

void ParamDict::set(int id, int value) {
  Value& v = values_[id] = Value();
  v.type = Type::int_value;
  v.i = value;
}

void ParamDict::set(int id, float value) {
  Value& v = values_[id] = Value();
  v.type = Type::float_value;
  v.f = value;
}

void ParamDict::set(int id, const std::vector<int>& values) {
  Value& v = values_[id] = Value();
  v.type = Type::int_array;
  v.ints = values;
}

void ParamDict::set(int id, const std::vector<float>& values) {
  Value& v = values_[id] = Value();
  v.type = Type::float_array;
  v.floats = values;
}

void ParamDict::set(int id, const std::string& value) {
  Value& v = values_[id] = Value();
  v.type = Type::string_value;
  v.s = value;
}

std::vector<int> ParamDict::ids() const {
  std::vector<int> result;
  for (const auto& kv : values_) result.push_back(kv.first);
  return result;
}

}  // namespace jitconv
