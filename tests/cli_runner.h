// Runs the jitconv command line (JITCONV_CLI_PATH) as a separate process, for the tests
// of its commands: exit status, stdout and stderr captured apart.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace jitconv {
namespace test {

struct CliResult {
  int status = -1;  // exit status, -1 when the process did not exit normally
  std::string out, err;
};

// A whole file's bytes ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `s` as one single-quoted shell word.
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `env JITCONV_CLI_PATH args...` (env: shell assignments such as "JITCONV_ISA=avx2").
inline CliResult run_cli(const std::vector<std::string>& args, const std::string& env = "") {
  char dir_template[] = "/tmp/jitconv_cli_XXXXXX";
  const char* dir = mkdtemp(dir_template);
  EXPECT_NE(dir, nullptr);
  const std::string out_path = std::string(dir) + "/out", err_path = std::string(dir) + "/err";
  std::string command = env + " " + shell_quote(JITCONV_CLI_PATH);
  for (const std::string& a : args) command += " " + shell_quote(a);
  command += " >" + out_path + " 2>" + err_path;
  const int raw = std::system(command.c_str());
  CliResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  rmdir(dir);
  return r;
}

}  // namespace test
}  // namespace jitconv
