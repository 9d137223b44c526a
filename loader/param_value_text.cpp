#include "loader/param_value_text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <system_error>
#include <vector>

#include "loader/param_graph.h"
#include "runtime/error.h"

namespace jitconv {

namespace {

struct Number {
  bool is_float = false;
  int i = 0;
  float f = 0.f;
};

bool equals_ignore_case(std::string_view a, const char* b) {
  if (a.size() != strlen(b)) return false;
  for (size_t k = 0; k < a.size(); k++)
    if (std::tolower(static_cast<unsigned char>(a[k])) != b[k]) return false;
  return true;
}

bool is_nonfinite_word(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  return equals_ignore_case(s, "nan") || equals_ignore_case(s, "inf") || equals_ignore_case(s, "infinity");
}

// A float whose decimal value is out of float range: an error when too large, a signed
// zero when too small for the smallest subnormal.
bool underflows(std::string_view s) {
  double d = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), d);
  if (r.ec == std::errc()) return std::fabs(d) < 1.0;
  const size_t e = s.find_first_of("eE");
  return e != std::string_view::npos && e + 1 < s.size() && s[e + 1] == '-';
}

// Parses a whole number token; returns an empty string or the reason it is not one.
std::string parse_number(std::string_view s, Number& out) {
  std::string_view body = s;
  if (!body.empty() && body[0] == '+') {
    body.remove_prefix(1);
    if (!body.empty() && (body[0] == '+' || body[0] == '-')) return "not a number";
  }
  if (body.empty()) return "empty number";
  const char* first = body.data();
  const char* last = body.data() + body.size();
  out.is_float = body.find_first_of(".eE") != std::string_view::npos || is_nonfinite_word(body);
  if (out.is_float) {
    if (std::isalpha(static_cast<unsigned char>(body[body[0] == '-' ? 1 : 0])) && !is_nonfinite_word(body))
      return "not a number";
    auto r = std::from_chars(first, last, out.f);
    if (r.ec == std::errc::invalid_argument || r.ptr != last) return "not a number";
    if (r.ec == std::errc::result_out_of_range) {
      if (!underflows(body)) return "out of float range";
      out.f = body[0] == '-' ? -0.f : 0.f;
    }
    return std::string();
  }
  auto r = std::from_chars(first, last, out.i);
  if (r.ec == std::errc::invalid_argument || r.ptr != last) return "not a number";
  if (r.ec == std::errc::result_out_of_range) return "out of int range";
  return std::string();
}

std::vector<std::string_view> split_commas(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  for (;;) {
    const size_t comma = s.find(',', begin);
    parts.push_back(s.substr(begin, comma == std::string_view::npos ? std::string_view::npos : comma - begin));
    if (comma == std::string_view::npos) return parts;
    begin = comma + 1;
  }
}

void set_array(ParamDict& pd, int id, const std::vector<Number>& elements) {
  bool all_int = true;
  for (const Number& n : elements) all_int = all_int && !n.is_float;
  if (all_int) {
    std::vector<int> ints;
    for (const Number& n : elements) ints.push_back(n.i);
    pd.set(id, ints);
  } else {
    std::vector<float> floats;
    for (const Number& n : elements) floats.push_back(n.is_float ? n.f : static_cast<float>(n.i));
    pd.set(id, floats);
  }
}

void check_string(const std::string& s, const std::string& where, const std::string& token) {
  if (s.size() > kMaxParamStringLength)
    fail(where, ": parameter '", token.substr(0, 40), "...': string longer than ", kMaxParamStringLength, " bytes");
}

float word_to_float(uint32_t word) {
  float f;
  memcpy(&f, &word, 4);
  return f;
}

bool word_reads_as_int(uint32_t word) {
  const int v = static_cast<int>(word);
  return (v > -(1 << 24) && v < (1 << 24)) || std::isnan(word_to_float(word));
}

std::string format_float(float f) {
  if (std::isnan(f)) return "nan";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), f, std::chars_format::scientific);
  return std::string(buf, r.ptr);
}

}  // namespace

bool looks_like_param(const std::string& token) {
  size_t k = 0;
  if (k < token.size() && (token[k] == '-' || token[k] == '+')) k++;
  const size_t digits_start = k;
  while (k < token.size() && std::isdigit(static_cast<unsigned char>(token[k]))) k++;
  return k > digits_start && k < token.size() && token[k] == '=';
}

void parse_param_token(const std::string& token, ParamDict& pd, const std::string& where) {
  if (!looks_like_param(token)) fail(where, ": expected key=value, got '", token, "'");
  const size_t eq = token.find('=');
  const std::string key_text = token.substr(token[0] == '+' ? 1 : 0, eq - (token[0] == '+' ? 1 : 0));
  const std::string_view value = std::string_view(token).substr(eq + 1);
  long long key = 0;
  auto kr = std::from_chars(key_text.data(), key_text.data() + key_text.size(), key);
  if (kr.ec != std::errc() || kr.ptr != key_text.data() + key_text.size())
    fail(where, ": parameter '", token, "': key out of range");
  const bool explicit_array = key <= -kArrayKeyBase;
  const long long id = explicit_array ? -key - kArrayKeyBase : key;
  if (id < 0 || id >= kParamIdCount)
    fail(where, ": parameter '", token, "': id ", id, " outside 0..", kParamIdCount - 1);
  if (pd.has(static_cast<int>(id))) fail(where, ": parameter '", token, "': id ", id, " given twice");
  if (value.empty()) fail(where, ": parameter '", token, "': missing value");

  auto number_or_fail = [&](std::string_view text) {
    Number n;
    const std::string error = parse_number(text, n);
    if (!error.empty()) fail(where, ": parameter '", token, "': '", text, "' is ", error);
    return n;
  };

  if (explicit_array) {
    const std::vector<std::string_view> parts = split_commas(value);
    const Number count = number_or_fail(parts[0]);
    if (count.is_float || count.i < 0) fail(where, ": parameter '", token, "': bad element count '", parts[0], "'");
    if (static_cast<size_t>(count.i) != parts.size() - 1)
      fail(where, ": parameter '", token, "': count says ", count.i, " elements, found ", parts.size() - 1);
    std::vector<Number> elements;
    for (size_t k = 1; k < parts.size(); k++) elements.push_back(number_or_fail(parts[k]));
    set_array(pd, static_cast<int>(id), elements);
    return;
  }
  if (value[0] == '"') {
    if (value.size() < 2 || value.back() != '"' || value.substr(1, value.size() - 2).find('"') != std::string_view::npos)
      fail(where, ": parameter '", token, "': malformed quoted string");
    const std::string s(value.substr(1, value.size() - 2));
    check_string(s, where, token);
    pd.set(static_cast<int>(id), s);
    return;
  }
  if (std::isalpha(static_cast<unsigned char>(value[0])) && !is_nonfinite_word(value)) {
    if (value.find('"') != std::string_view::npos) fail(where, ": parameter '", token, "': stray quote in string");
    const std::string s(value);
    check_string(s, where, token);
    pd.set(static_cast<int>(id), s);
    return;
  }
  if (value.find(',') != std::string_view::npos) {
    std::vector<Number> elements;
    std::vector<std::string_view> parts = split_commas(value);
    // A trailing comma ends the array, as ncnn's scan stops there (`2=1,2,3,`).
    if (parts.size() > 1 && parts.back().empty()) parts.pop_back();
    for (std::string_view part : parts) elements.push_back(number_or_fail(part));
    set_array(pd, static_cast<int>(id), elements);
    return;
  }
  const Number n = number_or_fail(value);
  if (n.is_float)
    pd.set(static_cast<int>(id), n.f);
  else
    pd.set(static_cast<int>(id), n.i);
}

std::string format_param(const ParamDict& pd, int id) {
  if (id < 0 || id >= kParamIdCount) fail("parameter id ", id, " outside 0..", kParamIdCount - 1);
  using Type = ParamDict::Type;
  const Type type = pd.type(id);
  if (type == Type::none) fail("parameter ", id, " is not set");
  if (type == Type::string_value) {
    const std::string s = pd.get(id, std::string());
    if (s.size() > kMaxParamStringLength) fail("parameter ", id, ": string longer than ", kMaxParamStringLength, " bytes");
    if (s.find_first_of(std::string("\"\n\r\0", 4)) != std::string::npos)
      fail("parameter ", id, ": a string with quotes, line breaks or NUL cannot be written as text");
    return str_cat(id, "=\"", s, "\"");
  }
  const std::vector<uint32_t> words = pd.words(id);
  bool as_int = type == Type::int_value || type == Type::int_array;
  if (type == Type::raw_value || type == Type::raw_array) {
    // Int text keeps any word exactly; float text would lose NaN payloads, so floats
    // are chosen only when no word is a NaN and some word is not a small int.
    bool all_small = true, any_nan = false;
    for (uint32_t w : words) {
      all_small = all_small && word_reads_as_int(w);
      any_nan = any_nan || std::isnan(word_to_float(w));
    }
    as_int = all_small || any_nan;
  }
  std::string values;
  for (size_t k = 0; k < words.size(); k++) {
    if (k) values += ',';
    values += as_int ? std::to_string(static_cast<int>(words[k])) : format_float(word_to_float(words[k]));
  }
  if (!pd.is_array(id)) return str_cat(id, "=", values);
  return str_cat(-(kArrayKeyBase + id), "=", words.size(), words.empty() ? "" : ",", values);
}

}  // namespace jitconv
