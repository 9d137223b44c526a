#include "runtime/activation.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "runtime/error.h"

namespace jitconv {

Activation Activation::from_ncnn(int type, const std::vector<float>& params) {
  Activation a;
  if (type < 0 || type > 6) fail("activation_type ", type, " is not one of ncnn's 0..6");
  a.type = static_cast<ActivationType>(type);
  auto param = [&](size_t i, float def) { return i < params.size() ? params[i] : def; };
  switch (a.type) {
    case ActivationType::leaky_relu: a.alpha = param(0, 0.f); break;
    case ActivationType::clip:
      a.alpha = param(0, -3.402823466e+38f);
      a.beta = param(1, 3.402823466e+38f);
      break;
    case ActivationType::hardswish:
      a.alpha = param(0, 0.2f);
      a.beta = param(1, 0.5f);
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
    if (end == parts[i].c_str() || *end) fail("activation '", text, "': '", parts[i], "' is not a number");
    params.push_back(v);
  }
  const std::string& kind = parts[0];
  if (kind == "none" || kind.empty()) return from_ncnn(0, params);
  if (kind == "relu") return from_ncnn(1, params);
  if (kind == "leaky" || kind == "leakyrelu") {
    if (params.empty()) params.push_back(0.1f);
    return from_ncnn(2, params);
  }
  if (kind == "clip") {
    if (params.size() < 2) params = {0.f, 6.f};
    return from_ncnn(3, params);
  }
  if (kind == "sigmoid") return from_ncnn(4, params);
  if (kind == "mish") return from_ncnn(5, params);
  if (kind == "hardswish") {
    if (params.size() < 2) params = {1.f / 6.f, 0.5f};
    return from_ncnn(6, params);
  }
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
