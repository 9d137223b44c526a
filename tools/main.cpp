// jitconv COMMAND [options]: dispatches to the subcommands listed in commands.inc.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "tools/cli_args.h"

namespace jitconv {
#define JITCONV_COMMAND(name, summary) int cmd_##name(const std::vector<std::string>& args);
#include "tools/commands.inc"
#undef JITCONV_COMMAND
}  // namespace jitconv

namespace {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);
};

const Command kCommands[] = {
#define JITCONV_COMMAND(name, summary) {#name, summary, jitconv::cmd_##name},
#include "tools/commands.inc"
#undef JITCONV_COMMAND
};

void print_usage(FILE* out) {
  std::fprintf(out, "usage: jitconv COMMAND [options]   (jitconv COMMAND --help for its options)\n\ncommands:\n");
  for (const Command& c : kCommands) std::fprintf(out, "  %-10s %s\n", c.name, c.summary);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_usage(stderr);
    return 2;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage(stdout);
    return 0;
  }
  const std::vector<std::string> args(argv + 2, argv + argc);
  for (const Command& c : kCommands) {
    if (name != c.name) continue;
    try {
      return c.run(args);
    } catch (const jitconv::UsageError& e) {
      std::fprintf(stderr, "jitconv %s\n", e.what());
      return 2;
    } catch (const jitconv::Error& e) {
      std::fprintf(stderr, "jitconv: %s\n", e.what());
      return 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "jitconv: internal error: %s\n", e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "jitconv: unknown command '%s'\n", name.c_str());
  print_usage(stderr);
  return 2;
}
