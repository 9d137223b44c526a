// jitconv dump: the path a convolution takes and why, its elempacks, and every kernel it
// generated with its size and Intel-syntax disassembly.
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "jit/asm_dump.h"
#include "jit/kernel_registry.h"
#include "runtime/conv_runner.h"
#include "tools/cli_args.h"
#include "tools/conv_cases.h"

namespace jitconv {

int cmd_dump(const std::vector<std::string>& args) {
  CliArgs cli("dump", "--conv DESC [--algo ALGO] [--isa ISA] [--act ACT] [--no-asm]",
              "Show the path a convolution takes and why, its elempacks, and the name, size and disassembly of "
              "every kernel it generates. JITCONV_JIT_DUMP=DIR also writes each kernel's bytes to DIR/NAME.bin.",
              {{"conv", "DESC", "problem in benchdnn notation"},
               {"algo", "ALGO", std::string("path: ") + conv_algo_names() + " (default auto)"},
               {"isa", "ISA", "avx512, avx2 or scalar (default: the ISA in use); one this CPU lacks is generated, not run"},
               {"act", "ACT", std::string("fused activation: ") + kActForms},
               {"no-asm", "", "list kernels without disassembly"}});
  if (!cli.parse(args)) {
    std::fputs(cli.help_text().c_str(), stdout);
    return 0;
  }
  if (!cli.has("conv")) cli.usage_error("--conv DESC is required");
  // Bad values are usage errors (exit 2), as in check and bench.
  ConvProblem problem;
  try {
    problem.desc = parse_conv_desc(cli.get("conv"));
  } catch (const Error& e) {
    cli.usage_error(std::string("--conv ") + e.what());
  }
  problem.act = act_option(cli);
  // An ISA this CPU lacks is shown without running: its kernels are generated for the
  // problem's shape at create_pipeline (see Convolution::generate_only).
  const Isa isa = isa_option(cli, true);
  const bool runnable = isa_supported(isa);
  const std::string algo = algo_option(cli, "auto");
  if (algo == "reference") cli.usage_error("--algo reference has no kernels to show: give a jitconv path");
  const ConvData data = make_random_conv_data(problem.desc, 1);
  std::unique_ptr<ConvRunner> runner;
  try {
    runner = make_conv_runner(problem, algo, isa, 1, data.weights.data(), data.bias.empty() ? nullptr : data.bias.data(),
                              !runnable);
  } catch (const NotApplicable& e) {
    std::printf("%s: %s does not apply: %s\n", to_string(problem.desc).c_str(), algo.c_str(), e.what());
    return 1;
  }
  if (runnable) {
    runner->set_input(data.src.data());
    runner->run();  // kernels for shapes unknown at create time are generated here
  }
  std::printf("problem  %s\nisa      %s\npath     %s\n", to_string(problem.desc).c_str(), isa_name(isa),
              runner->algo().c_str());
  if (!runnable) std::printf("note     this CPU lacks %s: kernels generated for the shape, not run\n", isa_name(isa));
  std::istringstream detail(runner->detail());
  std::string line;
  std::vector<std::string> kernels;
  while (std::getline(detail, line)) {
    const std::string tag = "  kernel ";
    if (line.compare(0, tag.size(), tag) == 0)
      kernels.push_back(line.substr(tag.size()));
    else
      std::printf("detail   %s\n", line.c_str());
  }
  for (const std::string& name : kernels) {
    const JitKernelPtr k = KernelRegistry::instance().find(name);
    if (!k) continue;
    std::printf("\nkernel %s  (%zu bytes)\n", name.c_str(), k->size());
    if (!cli.has("no-asm")) std::fputs(disassemble(k->code(), k->size()).c_str(), stdout);
  }
  return 0;
}

}  // namespace jitconv
