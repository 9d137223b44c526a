// What `check` and `bench` share: the problems named on the command line, the common
// options (--isa, --threads, --algo), the oneDNN runners and progress on a terminal.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "reference/reference_runner.h"
#include "runtime/conv_runner.h"
#include "tools/cli_args.h"

namespace jitconv {

struct ConvCase {
  std::string origin;  // "--conv" or "FILE:LINE"
  std::string text;    // as written
  ConvDesc desc;
  std::string skip;    // non-empty: the line cannot run (a 3-D problem)
};

// Every --conv and every line of every --shapes file, in order. A bad --conv or a file
// line that does not parse is a usage error (naming FILE:LINE and why); a 3-D line
// becomes a case with `skip` set. With neither option, `defaults` (a usage error when
// there are none).
std::vector<ConvCase> collect_cases(const CliArgs& args, const std::vector<ConvDesc>& defaults);

// The name column: the descriptor's name, or "-".
std::string case_name(const ConvCase& c);
// to_string() of the descriptor without its name.
std::string shape_string(const ConvDesc& desc);

// --isa (default: the ISA in use), checked against the CPU (unless allow_unsupported:
// `dump` generates code it does not run); caps oneDNN to match.
Isa isa_option(const CliArgs& args, bool allow_unsupported = false);
// The forms --act accepts, for help texts.
extern const char kActForms[];
// --act (default none): each form takes no numbers or all it names, finite, clip MIN <= MAX;
// anything else is a usage error naming the value.
Activation act_option(const CliArgs& args);
// --threads (default: physical cores).
int threads_option(const CliArgs& args);
// --algo: "reference" or one of conv_algo_names(); anything else is a usage error.
std::string algo_option(const CliArgs& args, const std::string& fallback);

// jitconv's runner for `algo` ("reference" gives the scalar oracle). May throw NotApplicable.
std::unique_ptr<ConvRunner> make_runner(const ConvProblem& problem, const std::string& algo, Isa isa, int threads,
                                        const ConvData& data);

// Every oneDNN variant that applies, each set up with data.src already; `why_none` gets the
// reasons the others were left out (or "not built with oneDNN").
std::vector<std::unique_ptr<ConvRunner>> make_onednn_runners(const ConvProblem& problem, Isa isa, int threads,
                                                             const ConvData& data, std::string* why_none);
bool have_onednn();

// "[3/16] name" on stderr while it is a terminal; nothing otherwise. clear() before
// printing a result so the two do not share a terminal line.
class Progress {
 public:
  explicit Progress(size_t total);
  void show(size_t index, const std::string& name);
  void clear();

 private:
  size_t total_;
  bool enabled_;
};

}  // namespace jitconv
