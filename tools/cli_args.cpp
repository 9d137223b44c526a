#include "tools/cli_args.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace jitconv {

CliArgs::CliArgs(std::string command, std::string usage, std::string description, std::vector<OptionSpec> options,
                 int max_positional)
    : command_(std::move(command)),
      usage_(std::move(usage)),
      description_(std::move(description)),
      options_(std::move(options)),
      max_positional_(max_positional) {}

const OptionSpec* CliArgs::find(const std::string& name) const {
  for (const OptionSpec& o : options_)
    if (o.name == name) return &o;
  return nullptr;
}

void CliArgs::usage_error(const std::string& message) const {
  throw UsageError(command_ + ": " + message + " (see jitconv " + command_ + " --help)");
}

bool CliArgs::parse(const std::vector<std::string>& args) {
  bool options_done = false;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& arg = args[i];
    if (options_done || arg.size() < 2 || arg.compare(0, 2, "--") != 0) {
      if (static_cast<int>(positional_.size()) >= max_positional_) usage_error("unexpected argument '" + arg + "'");
      positional_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    if (name == "help") return false;
    const OptionSpec* spec = find(name);
    if (!spec) usage_error("unknown option '--" + name + "'");
    if (spec->value.empty()) {
      if (eq != std::string::npos) usage_error("option --" + name + " takes no value");
      values_[name].push_back(std::string());
    } else if (eq != std::string::npos) {
      values_[name].push_back(arg.substr(eq + 1));
    } else {
      if (i + 1 >= args.size()) usage_error("option --" + name + " needs a value (" + spec->value + ")");
      values_[name].push_back(args[++i]);
    }
  }
  return true;
}

std::string CliArgs::help_text() const {
  std::ostringstream os;
  os << "usage: jitconv " << command_ << " " << usage_ << "\n\n" << description_ << "\n\noptions:\n";
  size_t width = 6;  // "--help"
  for (const OptionSpec& o : options_)
    width = std::max(width, o.name.size() + 2 + (o.value.empty() ? 0 : o.value.size() + 1));
  auto line = [&](const std::string& left, const std::string& help) {
    os << "  " << left << std::string(width - left.size() + 2, ' ') << help << "\n";
  };
  for (const OptionSpec& o : options_) line("--" + o.name + (o.value.empty() ? "" : " " + o.value), o.help);
  line("--help", "show this help");
  return os.str();
}

bool CliArgs::has(const std::string& name) const { return values_.count(name) != 0; }

std::string CliArgs::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> CliArgs::get_all(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>() : it->second;
}

int CliArgs::get_int(const std::string& name, int fallback, int min_value) const {
  if (!has(name)) return fallback;
  const std::string text = get(name);
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || errno == ERANGE || value < min_value || value > INT_MAX)
    usage_error("--" + name + " needs an integer >= " + std::to_string(min_value) + ", got '" + text + "'");
  return static_cast<int>(value);
}

double CliArgs::get_double(const std::string& name, double fallback, double min_value) const {
  if (!has(name)) return fallback;
  const std::string text = get(name);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || !std::isfinite(value) || value < min_value) {
    std::ostringstream os;
    os << "--" << name << " needs a number >= " << min_value << ", got '" << text << "'";
    usage_error(os.str());
  }
  return value;
}

}  // namespace jitconv
