// The kernel registry: one kernel per name under concurrency, and W^X — no mapping is
// ever writable and executable, neither after generation (/proc/self/maps) nor while
// code is being emitted (strace of mprotect/mmap calls, when strace is available).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "jit/gemm_conf.h"
#include "jit/gemm_gen.h"
#include "jit/kernel_registry.h"
#include "tests/conv_tester.h"

using namespace jitconv;

namespace {

GemmConf unique_conf(int nr) {
  GemmConf c;
  c.isa = test::jit_isas().empty() ? Isa::avx2 : test::jit_isas()[0];
  c.vlen = c.out_pack = c.last_chunk_lanes = isa_lanes(c.isa);
  c.ur_oc = 1;
  c.nr = nr;
  c.k_pack = 4;
  c.b_pixel_stride = 16 + 4 * nr;  // a stride no other test uses: a fresh kernel name
  return c;
}

}  // namespace

TEST(KernelRegistry, OneKernelPerNameUnderEightThreads) {
  if (test::jit_isas().empty()) GTEST_SKIP() << "no JIT ISA on this CPU";
  const GemmConf conf = unique_conf(3);
  const size_t generated_before = KernelRegistry::instance().generated_count();
  std::atomic<int> factory_calls{0};
  std::vector<const JitKernel*> seen(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; t++)
    threads.emplace_back([&, t] {
      JitKernelPtr k = KernelRegistry::instance().get(conf.name(), [&] {
        factory_calls++;
        return std::make_unique<GemmGenerator>(conf);
      });
      seen[t] = k.get();
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(factory_calls.load(), 1);
  for (const JitKernel* k : seen) EXPECT_EQ(k, seen[0]);
  EXPECT_EQ(KernelRegistry::instance().generated_count(), generated_before + 1);
  ASSERT_NE(KernelRegistry::instance().find(conf.name()), nullptr);
  EXPECT_EQ(KernelRegistry::instance().find(conf.name()).get(), seen[0]);
}

TEST(KernelRegistry, NoWritableExecutableMappingAfterGeneration) {
  if (test::jit_isas().empty()) GTEST_SKIP() << "no JIT ISA on this CPU";
  // Generate a few kernels of every family first.
  for (Isa isa : test::jit_isas()) {
    test::ConvTester().isa(isa).ic(16).oc(16).input(6, 6).kernel(3).pad(1).act("mish").test_direct();
    test::ConvTester().isa(isa).ic(16).oc(16).input(6, 6).kernel(1).test_gemm();
  }
  ASSERT_GT(KernelRegistry::instance().size(), 0u);
  std::ifstream maps("/proc/self/maps");
  ASSERT_TRUE(maps.good());
  std::string line;
  int executable = 0;
  while (std::getline(maps, line)) {
    std::istringstream in(line);
    std::string range, perms;
    in >> range >> perms;
    ASSERT_GE(perms.size(), 3u);
    EXPECT_FALSE(perms[1] == 'w' && perms[2] == 'x') << "writable and executable: " << line;
    if (perms[2] == 'x') executable++;
  }
  EXPECT_GT(executable, 0);
}

TEST(KernelRegistry, NeverRequestsWritableExecutablePages) {
  if (test::jit_isas().empty()) GTEST_SKIP() << "no JIT ISA on this CPU";
  if (std::system("command -v strace >/dev/null 2>&1") != 0) GTEST_SKIP() << "strace is not installed";
  const std::string log = testing::TempDir() + "jitconv_mprotect.log";
  const std::string cmd = "strace -f -e trace=mprotect,mmap -o " + log + " " + JITCONV_CLI_PATH +
                          " dump --conv mb1ic16ih9oc32oh9kh3ph1 --algo direct --no-asm >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(log);
  std::string line;
  int protect_exec = 0;
  while (std::getline(in, line)) {
    const bool writes = line.find("PROT_WRITE") != std::string::npos;
    const bool executes = line.find("PROT_EXEC") != std::string::npos;
    EXPECT_FALSE(writes && executes) << line;
    if (line.find("mprotect") != std::string::npos && executes) protect_exec++;
  }
  EXPECT_GT(protect_exec, 0) << "expected the kernels to be switched to read+execute";
  std::remove(log.c_str());
}
