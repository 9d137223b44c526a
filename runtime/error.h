// Error reporting: every failure the user can cause (bad file, impossible shape,
// unsupported ISA) is a jitconv::Error carrying a message that names what was wrong.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace jitconv {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

namespace detail {
inline void append_all(std::ostringstream&) {}
template <typename T, typename... Rest>
void append_all(std::ostringstream& os, T&& first, Rest&&... rest) {
  os << std::forward<T>(first);
  append_all(os, std::forward<Rest>(rest)...);
}
}  // namespace detail

// Concatenates its arguments with operator<< into one message.
template <typename... Args>
std::string str_cat(Args&&... args) {
  std::ostringstream os;
  detail::append_all(os, std::forward<Args>(args)...);
  return os.str();
}

template <typename... Args>
[[noreturn]] void fail(Args&&... args) {
  throw Error(str_cat(std::forward<Args>(args)...));
}

// An extent (width, height, channels) computed in 64 bits from int parameters and int
// input extents: pads, strides or dilations near INT_MAX carry a sum or product past int,
// where int arithmetic would wrap (undefined, and a wrong size). Throws, naming `what`,
// when the value does not fit.
inline int checked_extent(long long value, const char* what) {
  if (value > 2147483647LL || value < -2147483647LL - 1) fail(what, " ", value, " does not fit in int");
  return static_cast<int>(value);
}

}  // namespace jitconv
