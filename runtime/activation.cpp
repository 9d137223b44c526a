#include "runtime/activation.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <sstream>
#include <string>

#include "runtime/error.h"

namespace jitconv {

Activation Activation::from_ncnn(int type, const std::vector<float>& params) {
  Activation a;
  if (type < 0 || type > 6) fail("activation_type ", type, " is not one of ncnn's 0..6");
  a.type = static_cast<ActivationType>(type);
  // ncnn reads these from activation_params (id 10) without a check; a short array here is
  // an error rather than a default nobody wrote.
  static const char* const kNames[] = {"none", "relu", "leaky relu", "clip", "sigmoid", "mish", "hardswish"};
  static const size_t kNeeded[] = {0, 0, 1, 2, 0, 0, 2};
  if (params.size() < kNeeded[type])
    fail("activation_type ", type, " (", kNames[type], ") needs ", kNeeded[type], " activation_params (id 10), got ",
         params.size());
  switch (a.type) {
    case ActivationType::leaky_relu: a.alpha = params[0]; break;
    case ActivationType::clip:
      a.alpha = params[0];
      a.beta = params[1];
      if (!(a.alpha <= a.beta)) fail("clip activation: min ", a.alpha, " is above max ", a.beta);
      break;
    case ActivationType::hardswish:
      a.alpha = params[0];
      a.beta = params[1];
      break;
    default: break;
  }
  return a;
}

Activation Activation::parse(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ':')) parts.push_back(part);
  if (parts.empty()) return Activation();
  std::vector<float> params;
  for (size_t i = 1; i < parts.size(); i++) {
    char* end = nullptr;
    const float v = std::strtof(parts[i].c_str(), &end);
    if (end == parts[i].c_str() || *end || !std::isfinite(v))
      fail("activation '", text, "': '", parts[i], "' is not a finite number");
    params.push_back(v);
  }
  const std::string& kind = parts[0];
  // Each form takes no numbers (its defaults) or exactly the ones it names.
  auto numbers = [&](std::initializer_list<float> defaults) {
    if (params.empty()) params.assign(defaults);
    if (params.size() != defaults.size())
      fail("activation '", text, "': ", kind, " takes ", defaults.size() == 0 ? "no" : "0 or " + std::to_string(defaults.size()),
           " numbers, got ", params.size(), kind == "relu" ? " (a negative slope is leaky:SLOPE)" : "");
    return params;
  };
  if (kind == "none" || kind.empty()) return from_ncnn(0, numbers({}));
  if (kind == "relu") return from_ncnn(1, numbers({}));
  if (kind == "leaky" || kind == "leakyrelu") return from_ncnn(2, numbers({0.1f}));
  if (kind == "clip") return from_ncnn(3, numbers({0.f, 6.f}));
  if (kind == "sigmoid") return from_ncnn(4, numbers({}));
  if (kind == "mish") return from_ncnn(5, numbers({}));
  if (kind == "hardswish") return from_ncnn(6, numbers({1.f / 6.f, 0.5f}));
  fail("unknown activation '", kind, "' (none, relu, leaky[:slope], clip[:min:max], sigmoid, mish, hardswish[:a:b])");
}

std::string Activation::name() const {
  switch (type) {
    case ActivationType::none: return "";
    case ActivationType::relu: return "relu";
    case ActivationType::leaky_relu: return "leaky";
    case ActivationType::clip: return "clip";
    case ActivationType::sigmoid: return "sigmoid";
    case ActivationType::mish: return "mish";
    case ActivationType::hardswish: return "hardswish";
  }
  return "";
}

std::string Activation::to_string() const {
  std::ostringstream os;
  switch (type) {
    case ActivationType::none: return "none";
    case ActivationType::leaky_relu: os << "leaky:" << alpha; return os.str();
    case ActivationType::clip: os << "clip:" << alpha << ":" << beta; return os.str();
    case ActivationType::hardswish: os << "hardswish:" << alpha << ":" << beta; return os.str();
    default: return name();
  }
}

}  // namespace jitconv

namespace jitconv {

std::string Activation::kernel_tag() const {
  char buf[96];
  switch (type) {
    case ActivationType::leaky_relu: snprintf(buf, sizeof(buf), "leaky%.9g", alpha); return buf;
    case ActivationType::clip: snprintf(buf, sizeof(buf), "clip%.9g_%.9g", alpha, beta); return buf;
    case ActivationType::hardswish: snprintf(buf, sizeof(buf), "hardswish%.9g_%.9g", alpha, beta); return buf;
    default: return name();
  }
}

}  // namespace jitconv
