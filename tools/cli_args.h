// A small option parser for the jitconv subcommands:
//   --name value   --name=value   --flag   (repeatable)   positional arguments   --
// Unknown options, a missing value, a value given to a flag, or too many positional
// arguments throw UsageError (exit status 2). Every command gets --help.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "runtime/error.h"

namespace jitconv {

class UsageError : public Error {
 public:
  explicit UsageError(const std::string& what) : Error(what) {}
};

struct OptionSpec {
  std::string name;   // without the dashes
  std::string value;  // placeholder shown in help ("N", "FILE"); empty for a flag
  std::string help;
};

class CliArgs {
 public:
  // usage: the synopsis after "jitconv COMMAND", e.g. "(--conv DESC | --shapes FILE) [options]".
  CliArgs(std::string command, std::string usage, std::string description, std::vector<OptionSpec> options,
          int max_positional = 0);

  // Returns false when --help was given (the caller prints help_text() and exits 0).
  bool parse(const std::vector<std::string>& args);
  std::string help_text() const;

  bool has(const std::string& name) const;
  // The last value given, or `fallback`.
  std::string get(const std::string& name, const std::string& fallback = std::string()) const;
  std::vector<std::string> get_all(const std::string& name) const;
  // Parsed numbers; a malformed or out-of-range value is a UsageError naming the option.
  int get_int(const std::string& name, int fallback, int min_value) const;
  double get_double(const std::string& name, double fallback, double min_value) const;
  const std::vector<std::string>& positional() const { return positional_; }

  // "jitconv COMMAND: MESSAGE" as a UsageError.
  [[noreturn]] void usage_error(const std::string& message) const;

 private:
  const OptionSpec* find(const std::string& name) const;

  std::string command_, usage_, description_;
  std::vector<OptionSpec> options_;
  int max_positional_;
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
};

}  // namespace jitconv
