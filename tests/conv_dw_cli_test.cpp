// `jitconv check --algo auto` on depthwise and grouped problems (the lines of
// ../shared/shapes/models_dev.txt and tails.txt, the largest ones scaled down), run as
// a separate process on a shape file this test writes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "runtime/cpu.h"
#include "tests/cli_runner.h"

namespace {

constexpr const char* kShapes = R"(# depthwise (models_dev.txt)
mb1g32ic32ih112iw112oc32oh112ow112kh3kw3sh1sw1ph1pw1dh0dw0n"mobilenet:conv2_1/dw"
mb1g64ic64ih112iw112oc64oh56ow56kh3kw3sh2sw2ph1pw1dh0dw0n"mobilenet:conv2_2/dw"
mb1g512ic512ih14iw14oc512oh7ow7kh3kw3sh2sw2ph1pw1dh0dw0n"mobilenet:conv5_6/dw"
mb1g1024ic1024ih7iw7oc1024oh7ow7kh3kw3sh1sw1ph1pw1dh0dw0n"mobilenet:conv6/dw"
mb1g96ic96ih112iw112oc96oh56ow56kh3kw3sh2sw2ph1pw1dh0dw0n"mobilenet_v2:conv2_2/dwise"
mb1g144ic144ih56iw56oc144oh56ow56kh3kw3sh1sw1ph1pw1dh0dw0n"mobilenet_v2:conv3_1/dwise"
mb1g24ic24ih56iw56oc24oh28ow28kh3kw3sh2sw2ph1pw1dh0dw0n"shufflenet_v2:branch1_1_conv1"
mb1g58ic58ih56iw56oc58oh28ow28kh3kw3sh2sw2ph1pw1dh0dw0n"shufflenet_v2:branch1_2_conv2"
mb1g116ic116ih14iw14oc116oh14ow14kh3kw3sh1sw1ph1pw1dh0dw0n"shufflenet_v2:branch6_2_conv2"
mb1g232ic232ih7iw7oc232oh7ow7kh3kw3sh1sw1ph1pw1dh0dw0n"shufflenet_v2:branch14_2_conv2"
mb1g72ic72ih56iw56oc72oh28ow28kh5kw5sh2sw2ph2pw2dh0dw0n"mobilenet_v3:347"
mb1g120ic120ih28iw28oc120oh28ow28kh5kw5sh1sw1ph2pw2dh0dw0n"mobilenet_v3:383"
mb1g200ic200ih14iw14oc200oh14ow14kh3kw3sh1sw1ph1pw1dh0dw0n"mobilenet_v3:480"
mb1g672ic672ih14iw14oc672oh7ow7kh5kw5sh2sw2ph2pw2dh0dw0n"mobilenet_v3:676"
# grouped (models_dev.txt)
mb1g2ic96ih27iw27oc256oh27ow27kh5kw5sh1sw1ph2pw2dh0dw0n"alexnet:conv2"
mb1g2ic384ih13iw13oc384oh13ow13kh3kw3sh1sw1ph1pw1dh0dw0n"alexnet:conv4"
# tails.txt g-lines (21 and 22 at 24x24 instead of 240x240)
g64ic512oc512_ih24oh12kh3sh2dh0ph1_n"tails_conv:21_small"
g128ic512oc512_ih24oh12kh3sh2dh0ph1_n"tails_conv:22_small"
g4ic20ih5oc20oh5kh3ph1_n"tails_conv:24"
g4ic16ih13oc16oh13kh3ph1n"tails_conv:25"
# depthwise edge cases: odd channels, dilation, asymmetric implied padding
mb2g19ic19ih17iw23oc19oh9ow12kh3kw3sh2sw2ph1pw1dh1dw1n"odd_dilated"
mb1g48ic48ih9iw30oc48oh9ow30kh5kw5ph2pw2n"wide_row"
mb1g3ic3ih8iw8oc6oh8ow8kh3kw3ph1pw1n"channel_multiplier"
)";

// `jitconv check --algo auto` on a shape file; out holds stdout then stderr.
jitconv::test::CliResult run_check(const std::string& shapes, const std::string& isa) {
  jitconv::test::CliResult r = jitconv::test::run_cli({"check", "--algo", "auto", "--shapes", shapes, "--threads", "2", "--isa", isa});
  r.out += r.err;
  return r;
}

}  // namespace

TEST(ConvDepthwiseCli, CheckPassesOnDepthwiseAndGroupedShapes) {
  char path[] = "/tmp/jitconv_dw_shapes_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  {
    std::ofstream f(path);
    f << kShapes;
  }
  std::vector<std::string> isas;
  for (jitconv::Isa isa : {jitconv::Isa::avx512, jitconv::Isa::avx2})
    if (jitconv::isa_supported(isa)) isas.push_back(jitconv::isa_name(isa));
  if (isas.empty()) isas.push_back("scalar");
  for (const std::string& isa : isas) {
    SCOPED_TRACE("isa " + isa);
    const jitconv::test::CliResult r = run_check(path, isa);
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("check: 23 passed, 0 failed, 0 skipped"), std::string::npos) << r.out;
    // The depthwise lines run on the depthwise path, the grouped ones group by group.
    EXPECT_NE(r.out.find("algo=depthwise"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("algo=grouped"), std::string::npos) << r.out;
  }
  std::remove(path);
}
