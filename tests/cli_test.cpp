// The jitconv command line, run as a separate process: output shape, exit statuses,
// usage errors, help texts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/conv_desc.h"
#include "runtime/cpu.h"
#include "tests/cli_runner.h"

using namespace jitconv;
using namespace jitconv::test;

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, sep)) parts.push_back(part);
  if (!text.empty() && text.back() == sep) parts.push_back("");
  return parts;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines = split(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

bool built_with_onednn() {
#ifdef JITCONV_WITH_ONEDNN
  return true;
#else
  return false;
#endif
}

double number(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  EXPECT_TRUE(!text.empty() && *end == '\0') << "'" << text << "' is not a number";
  return v;
}

const char kSmallConv[] = "mb1ic16ih13oc24kh3ph1n\"cli:small\"";

class Cli : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(access(JITCONV_CLI_PATH, X_OK), 0) << JITCONV_CLI_PATH << " is missing: build the jitconv_cli target";
  }
};

}  // namespace

TEST_F(Cli, InfoDescribesTheMachine) {
  const CliResult r = run_cli({"info"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* key : {"cpu:", "features:", "isa:", "caches:", "cpus:", "xbyak:", "onednn:"})
    EXPECT_TRUE(contains(r.out, key)) << key << " missing in\n" << r.out;
  EXPECT_TRUE(contains(r.out, std::string("isa:        ") + isa_name(current_isa()))) << r.out;
  EXPECT_EQ(contains(r.out, "not built with oneDNN"), !built_with_onednn()) << r.out;
  // With AVX-512, how zmm runs (CpuInfo::zmm_half_rate: the Zen 4 rules key on it).
  if (cpu_info().avx512f)
    EXPECT_TRUE(contains(r.out, cpu_info().zmm_half_rate ? "zmm on 256-bit halves" : "zmm full width")) << r.out;
  else
    EXPECT_FALSE(contains(r.out, "zmm ")) << r.out;
  EXPECT_EQ(contains(r.out, "ymm on 128-bit halves"), cpu_info().ymm_half_rate) << r.out;
  if (isa_supported(Isa::avx2)) {
    const CliResult capped = run_cli({"info"}, "JITCONV_ISA=avx2");
    ASSERT_EQ(capped.status, 0) << capped.err;
    EXPECT_TRUE(contains(capped.out, "isa:        avx2")) << capped.out;
    EXPECT_TRUE(contains(capped.out, "JITCONV_ISA=avx2")) << capped.out;
  }
}

TEST_F(Cli, PeakPrintsARowPerIsaAndThreadCount) {
  const CliResult r = run_cli({"peak", "--seconds", "0.05", "--threads", "2"});
  if (current_isa() == Isa::scalar) {
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "AVX2")) << r.err;
    return;
  }
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  const size_t isas = current_isa() == Isa::avx512 ? 2 : 1;
  ASSERT_EQ(lines.size(), 1 + 2 * isas) << r.out;
  EXPECT_TRUE(contains(lines[0], "GFLOP/s") && contains(lines[0], "FLOP/cycle")) << lines[0];
  for (size_t i = 1; i < lines.size(); i++) {
    std::istringstream row(lines[i]);
    std::string isa, vector;
    int threads = 0;
    double gflops = 0, per_core = 0, ghz = 0, per_cycle = 0;
    ASSERT_TRUE(row >> isa >> vector >> threads >> gflops >> per_core >> ghz >> per_cycle) << lines[i];
    EXPECT_EQ(vector, isa == "avx512" ? "zmm" : "ymm");
    EXPECT_EQ(threads, i % 2 ? 1 : 2) << lines[i];
    EXPECT_GT(gflops, 0) << lines[i];
    EXPECT_GT(ghz, 0) << lines[i];
    EXPECT_TRUE(std::isfinite(per_cycle) && per_cycle > 0) << lines[i];
  }
}

TEST_F(Cli, CheckReferencePasses) {
  std::vector<std::string> args = {"check", "--algo", "reference", "--conv", kSmallConv, "--threads", "1"};
  const CliResult r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_TRUE(contains(lines[0], "cli:small")) << lines[0];
  EXPECT_TRUE(contains(lines[0], to_string(parse_conv_desc("mb1ic16ih13oc24kh3ph1")))) << lines[0];
  EXPECT_TRUE(contains(lines[0], "algo=reference")) << lines[0];
  if (built_with_onednn()) {
    EXPECT_TRUE(contains(lines[0], "PASS")) << lines[0];
    EXPECT_TRUE(contains(lines[1], "1 passed, 0 failed")) << lines[1];
    // The same under AVX2, with an activation.
    if (isa_supported(Isa::avx2)) {
      args.insert(args.end(), {"--isa", "avx2", "--act", "clip:0:6"});
      const CliResult avx2 = run_cli(args);
      EXPECT_EQ(avx2.status, 0) << avx2.out << avx2.err;
      EXPECT_TRUE(contains(avx2.out, "isa=avx2") && contains(avx2.out, "PASS")) << avx2.out;
    }
  } else {
    EXPECT_TRUE(contains(lines[0], "SKIP") && contains(lines[0], "oneDNN")) << lines[0];
  }
}

TEST_F(Cli, CheckFailsWhenTheToleranceIsExceeded) {
  if (!built_with_onednn()) GTEST_SKIP() << "needs oneDNN to compare the reference with";
  // oneDNN accumulates in fp32, the reference in double: a zero tolerance must fail.
  const CliResult r = run_cli({"check", "--algo", "reference", "--conv", "mb1ic64ih9oc32kh3ph1", "--tol", "0"});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "FAIL") && contains(r.out, "onednn")) << r.out;
}

TEST_F(Cli, CheckOtherAlgorithmsPassOrSkipWithAReason) {
  const CliResult r = run_cli({"check", "--algo", "auto", "--conv", kSmallConv, "--threads", "1"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  const std::string line = lines_of(r.out).at(0);
  EXPECT_FALSE(contains(line, "FAIL")) << line;
  EXPECT_TRUE(contains(line, "PASS") || (contains(line, "SKIP") && line.size() > line.find("SKIP") + 6)) << line;
}

TEST_F(Cli, CheckShapeFileSkipsThreeDLines) {
  const std::string path = ::testing::TempDir() + "jitconv_cli_shapes.txt";
  std::ofstream(path) << "# a comment\n" << kSmallConv << "\nmb1ic3id5ih9oc5kh3kd3n\"volume\"\n";
  const CliResult r = run_cli({"check", "--algo", "reference", "--shapes", path});
  std::remove(path.c_str());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_TRUE(contains(lines[1], "SKIP") && contains(lines[1], "3-D problem")) << lines[1];
  EXPECT_TRUE(contains(lines[1], ":3")) << "names the line: " << lines[1];
  EXPECT_TRUE(contains(lines[2], built_with_onednn() ? "1 passed, 0 failed, 1 skipped" : "0 failed, 2 skipped"))
      << lines[2];
}

// A line that is no valid descriptor (a typo, a kernel wider than the padded input) is a
// mistake in the file, not a shape to skip: a CI run over it must not pass.
TEST_F(Cli, ShapeFileWithAnInvalidLineIsAUsageError) {
  const std::string path = ::testing::TempDir() + "jitconv_cli_bad_shapes.txt";
  std::ofstream(path) << kSmallConv << "\n# fine so far\nbogus\nmb1ic3ih2oc3kh5\nmb1ic3id5ih9oc5kh3kd3\n";
  for (const char* command : {"check", "bench"}) {
    SCOPED_TRACE(command);
    const CliResult r = run_cli({command, "--algo", "reference", "--shapes", path});
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(contains(r.err, path + ":3: 'bogus'")) << r.err;
    EXPECT_TRUE(contains(r.err, path + ":4: 'mb1ic3ih2oc3kh5': oh")) << r.err;
    EXPECT_FALSE(contains(r.err, path + ":5")) << "a 3-D line is a SKIP, not an error: " << r.err;
  }
  std::remove(path.c_str());
}

TEST_F(Cli, BenchCsvHasTheExactHeaderAndParseableRow) {
  std::vector<std::string> args = {"bench", "--algo", "reference", "--csv", "--conv", kSmallConv, "--min-time", "0.01",
                                   "--threads", "1"};
  std::vector<std::string> isas = {""};
  if (current_isa() == Isa::avx512) isas.push_back("avx2");
  for (const std::string& isa : isas) {
    SCOPED_TRACE(isa.empty() ? "default isa" : isa);
    std::vector<std::string> run_args = args;
    if (!isa.empty()) run_args.insert(run_args.end(), {"--isa", isa});
    const CliResult r = run_cli(run_args);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 2u) << r.out;
    EXPECT_EQ(lines[0],
              "name,desc,algo,isa,threads,jitconv_ms,onednn_ms,speedup,jitconv_gflops,peak_pct,jitconv_best_ms,"
              "onednn_best_ms,best_speedup,onednn_impl");
    const std::vector<std::string> f = split(lines[1], ',');
    ASSERT_EQ(f.size(), 14u) << lines[1];
    const ConvDesc desc = parse_conv_desc(kSmallConv);
    EXPECT_EQ(f[0], "cli:small");
    EXPECT_EQ(parse_conv_desc(f[1]).flops(), desc.flops());
    EXPECT_EQ(f[2], "reference");
    EXPECT_EQ(f[3], isa.empty() ? isa_name(current_isa()) : isa);
    EXPECT_EQ(f[4], "1");
    const double jit_ms = number(f[5]), jit_best_ms = number(f[10]);
    EXPECT_GT(jit_ms, 0);
    EXPECT_GT(jit_best_ms, 0);
    EXPECT_LE(jit_best_ms, jit_ms * 1.0005) << "the fastest run is slower than the median";
    EXPECT_NEAR(number(f[8]), desc.flops() / (jit_ms * 1e-3) * 1e-9, 0.01 * number(f[8]) + 0.006);
    if (current_isa() != Isa::scalar) {
      EXPECT_GT(number(f[9]), 0);
    }
    if (built_with_onednn()) {
      const double onednn_ms = number(f[6]);
      EXPECT_GT(onednn_ms, 0);
      EXPECT_NEAR(number(f[7]), onednn_ms / jit_ms, 0.002 * onednn_ms / jit_ms + 0.0006);
      const double onednn_best_ms = number(f[11]);
      EXPECT_GT(onednn_best_ms, 0);
      EXPECT_LE(onednn_best_ms, onednn_ms * 1.0005);
      EXPECT_NEAR(number(f[12]), onednn_best_ms / jit_best_ms, 0.002 * onednn_best_ms / jit_best_ms + 0.0006);
      EXPECT_TRUE(contains(f[13], "@")) << f[13];
      if (isa == "avx2") {
        EXPECT_FALSE(contains(f[13], "avx512")) << "oneDNN not capped: " << f[13];
      }
      EXPECT_TRUE(contains(r.err, "geomean speedup:") && contains(r.err, "(1 shapes); of the best runs:")) << r.err;
    } else {
      EXPECT_EQ(f[6], "");
      EXPECT_EQ(f[11], "");
      EXPECT_EQ(f[12], "");
      EXPECT_TRUE(contains(r.err, "(0 shapes)")) << r.err;
    }
  }
}

TEST_F(Cli, BenchTableHasTheSameColumns) {
  const CliResult r = run_cli({"bench", "--algo", "reference", "--conv", kSmallConv, "--min-time", "0.01"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  for (const char* col : {"name", "desc", "jitconv_ms", "onednn_ms", "speedup", "peak_pct", "jitconv_best_ms",
                          "onednn_best_ms", "best_speedup", "onednn_impl"})
    EXPECT_TRUE(contains(lines[0], col)) << lines[0];
  EXPECT_TRUE(contains(lines[1], "cli:small")) << lines[1];
}

TEST_F(Cli, UsageErrorsExitTwo) {
  const std::vector<std::vector<std::string>> cases = {
      {},
      {"frobnicate"},
      {"check"},
      {"check", "--conv"},
      {"check", "--bogus", "1"},
      {"check", "--conv", "ic8ih9oc8kh3", "--threads", "0"},
      {"check", "--conv", "ic8ih9oc8kh3", "--threads", "abc"},
      {"check", "--conv", "garbage"},
      {"check", "--conv", "ic8ih9oc8kh3", "--isa", "sse9"},
      {"check", "--conv", "ic8ih9oc8kh3", "--act", "swish"},
      {"check", "--conv", "ic8ih9oc8kh3", "--algo", "fft"},
      {"check", "--conv", "ic8ih9oc8kh3", "--tol", "-1"},
      {"bench", "--csv=yes"},
      {"bench", "--conv", "ic8ih9oc8kh3", "--min-time", "x"},
      {"peak", "--seconds", "-1"},
      {"info", "extra"},
  };
  for (const auto& args : cases) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.status, 2) << joined << "\n" << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "jitconv")) << joined << ": " << r.err;
    EXPECT_EQ(r.out, "") << joined;
  }
  EXPECT_TRUE(contains(run_cli({"frobnicate"}).err, "unknown command 'frobnicate'"));
  EXPECT_TRUE(contains(run_cli({"check", "--bogus", "1"}).err, "unknown option '--bogus'"));
  EXPECT_TRUE(contains(run_cli({"check", "--conv", "xyz"}).err, "unexpected 'xyz'"));
  EXPECT_TRUE(contains(run_cli({"info", "extra"}).err, "unexpected argument 'extra'"));
}

TEST_F(Cli, EmptyShapeSetsAreUsageErrors) {
  // A directory or an empty --shapes file reported "0 passed, 0 failed" and exit 0.
  char tmpl[] = "/tmp/jitconv_cli_empty_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl, empty = dir + "/empty.txt";
  { std::ofstream(empty) << "# comments only\n"; }
  for (const std::string& cmd : {"check", "bench"})
    for (const std::string& path : {dir, empty}) {
      const CliResult r = run_cli({cmd, "--shapes", path});
      EXPECT_EQ(r.status, 2) << cmd << " " << path << ": " << r.out << r.err;
      EXPECT_TRUE(contains(r.err, "no problems in it")) << r.err;
    }
  std::remove(empty.c_str());
  rmdir(dir.c_str());
}

TEST_F(Cli, FailuresExitOne) {
  const CliResult r = run_cli({"check", "--shapes", "/nonexistent/shapes.txt"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "jitconv: cannot open shape file '/nonexistent/shapes.txt'")) << r.err;
  const CliResult bad_env = run_cli({"info"}, "JITCONV_ISA=avx1024");
  EXPECT_EQ(bad_env.status, 1);
  EXPECT_TRUE(contains(bad_env.err, "JITCONV_ISA")) << bad_env.err;
}

TEST_F(Cli, EverySubcommandHasHelp) {
  const CliResult top = run_cli({"--help"});
  EXPECT_EQ(top.status, 0);
  for (const char* command : {"info", "peak", "check", "bench"}) {
    EXPECT_TRUE(contains(top.out, std::string("  ") + command)) << top.out;
    const CliResult r = run_cli({command, "--help"});
    EXPECT_EQ(r.status, 0) << command;
    EXPECT_TRUE(contains(r.out, std::string("usage: jitconv ") + command)) << r.out;
    EXPECT_TRUE(contains(r.out, "--help")) << r.out;
    EXPECT_EQ(r.err, "") << command;
  }
  const CliResult check = run_cli({"check", "--help"});
  for (const char* option : {"--conv", "--shapes", "--algo", "--isa", "--act", "--threads", "--tol"})
    EXPECT_TRUE(contains(check.out, option)) << option;
  const CliResult bench = run_cli({"bench", "--help"});
  for (const char* option : {"--csv", "--min-time", "--algo", "--isa", "--threads"})
    EXPECT_TRUE(contains(bench.out, option)) << option;
}

// --act takes each form with no numbers or exactly the ones it names, finite, clip's MIN at
// most its MAX; anything else is a usage error naming the value, in check and dump alike
// (a clip with MIN > MAX reached oneDNN as "internal error: could not append an
// elementwise post-op", exit 1; extra numbers were ignored).
TEST_F(Cli, ActOutsideItsFormsIsAUsageErrorNamingIt) {
  for (const char* act : {"clip:1:0", "clip:nan:1", "clip:-inf:inf", "clip:1", "clip:1:", "relu:5", "sigmoid:3",
                          "mish:1", "none:0", "hardswish:1:2:3", "hardswish:0.2", "leaky:0.1:2", "leaky:inf",
                          "leaky:x", "swish"}) {
    for (const char* command : {"check", "dump"}) {
      SCOPED_TRACE(std::string(command) + " --act " + act);
      const CliResult r = run_cli({command, "--conv", "mb1ic8ih9oc8kh3ph1", "--act", act});
      EXPECT_EQ(r.status, 2) << r.out << r.err;
      EXPECT_EQ(r.out, "");
      EXPECT_TRUE(contains(r.err, std::string("--act '") + act + "'")) << r.err;
      EXPECT_FALSE(contains(r.err, "internal error")) << r.err;
    }
  }
  EXPECT_TRUE(contains(run_cli({"check", "--conv", "ic8ih9oc8kh3", "--act", "clip:1:0"}).err, "MIN <= MAX"));
  for (const char* act : {"none", "relu", "leaky", "leaky:0.2", "clip", "clip:-1:6", "clip:0.5:0.5", "sigmoid", "mish",
                          "hardswish", "hardswish:0.2:0.5"}) {
    const CliResult r = run_cli({"dump", "--conv", "mb1ic8ih9oc8kh3ph1", "--act", act, "--no-asm"});
    EXPECT_EQ(r.status, 0) << act << ": " << r.err;
  }
}

// The error of a convolution grows with its sums, whatever a bounded activation leaves of
// them: with clip:-0.001:0.001 every output is at most 0.001 while the sums and their
// rounding error are as without it. rel is relative to the sums' scale, so a narrow clip
// passes where the unclipped run passes (it failed at 1e-2 relative to 0.001).
TEST_F(Cli, CheckRelativeErrorIsToTheSumsNotTheClippedOutputs) {
  auto errors = [](const std::string& act) {
    const CliResult r = run_cli({"check", "--algo", "direct", "--conv", "mb1ic64ih14oc64kh3ph1", "--act", act,
                                 "--threads", "2", "--isa", isa_name(current_isa())});
    EXPECT_EQ(r.status, 0) << act << ": " << r.out << r.err;
    const std::string line = lines_of(r.out).at(0);
    EXPECT_TRUE(contains(line, "PASS")) << line;
    const size_t abs_at = line.find("abs="), rel_at = line.find("rel=");
    EXPECT_TRUE(abs_at != std::string::npos && rel_at != std::string::npos) << line;
    std::istringstream abs_text(line.substr(abs_at + 4)), rel_text(line.substr(rel_at + 4));
    double abs = NAN, rel = NAN;
    abs_text >> abs;
    rel_text >> rel;
    return std::make_pair(abs, rel);
  };
  if (current_isa() == Isa::scalar) GTEST_SKIP() << "no direct path without AVX2";
  const auto plain = errors("none");
  const double sums_scale = plain.first / plain.second;  // the largest |sum|
  for (const char* act : {"clip:-0.001:0.001", "clip:-0.5:0.5", "sigmoid", "hardswish"}) {
    SCOPED_TRACE(act);
    const auto e = errors(act);
    EXPECT_NEAR(e.second, e.first / sums_scale, 0.01 * e.second) << "rel is abs over the largest |sum|";
  }
  EXPECT_TRUE(contains(run_cli({"check", "--help"}).out, "without --act")) << "the help says what rel is relative to";
}

// dump takes the same values as check, with the same exit statuses: usage errors 2.
TEST_F(Cli, DumpUsageErrorsExitTwo) {
  const std::vector<std::vector<std::string>> cases = {
      {"dump"},
      {"dump", "--conv", "mb1ic9ih6oc9kh3ph1dh63"},  // an impossible descriptor
      {"dump", "--conv", "garbage"},
      {"dump", "--conv", "ic8ih9oc8kh3", "--isa", "sse9"},
      {"dump", "--conv", "ic8ih9oc8kh3", "--algo", "fft"},
      {"dump", "--conv", "ic8ih9oc8kh3", "--algo", "reference"},
      {"bench", "--conv", "mb1ic9ih6oc9kh3ph1dh63"},
      {"check", "--conv", "mb1ic9ih6oc9kh3ph1dh63"},
  };
  for (const auto& args : cases) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.status, 2) << joined << "\n" << r.out << r.err;
    EXPECT_EQ(r.out, "") << joined;
  }
  EXPECT_TRUE(contains(run_cli(cases[1]).err, "output size -120 is not positive"));
}

// --isa takes scalar as well (the portable loops): the help texts say so.
TEST_F(Cli, IsaHelpNamesEveryAcceptedIsa) {
  for (const char* command : {"check", "dump", "bench", "benchmodel"}) {
    const std::string help = run_cli({command, "--help"}).out;
    const size_t isa = help.find("\n  --isa ISA");  // the option's line, not the synopsis
    ASSERT_NE(isa, std::string::npos) << help;
    const std::string line = help.substr(isa + 1, help.find('\n', isa + 1) - isa - 1);
    EXPECT_TRUE(contains(line, "avx512, avx2 or scalar")) << command << ": " << line;
  }
  const CliResult scalar = run_cli({"dump", "--conv", "mb1ic8ih9oc8kh3ph1", "--isa", "scalar", "--no-asm"});
  EXPECT_EQ(scalar.status, 0) << scalar.err;
  EXPECT_TRUE(contains(scalar.out, "isa      scalar")) << scalar.out;
}

// dump shows the kernels of an ISA this CPU lacks without running them (generated for the
// shape at create_pipeline); check and bench still refuse such an ISA.
TEST_F(Cli, DumpGeneratesAnIsaTheCpuLacksWithoutRunningIt) {
  for (const char* algo : {"auto", "direct", "gemm", "winograd63"}) {
    SCOPED_TRACE(algo);
    const CliResult r = run_cli({"dump", "--conv", "mb1ic32ih13oc48oh13kh3ph1", "--isa", "avx512", "--algo", algo});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "isa      avx512")) << r.out;
    EXPECT_TRUE(contains(r.out, "zmm")) << r.out;
    EXPECT_TRUE(contains(r.out, "\nkernel ")) << r.out;
    EXPECT_EQ(contains(r.out, "this CPU lacks avx512: kernels generated for the shape, not run"),
              !isa_supported(Isa::avx512))
        << r.out;
  }
  if (isa_supported(Isa::avx512)) return;
  for (const char* command : {"check", "bench"}) {
    const CliResult r = run_cli({command, "--conv", "mb1ic32ih13oc48oh13kh3ph1", "--isa", "avx512"});
    EXPECT_EQ(r.status, 1) << command << "\n" << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "this CPU does not support avx512")) << command << ": " << r.err;
  }
}
