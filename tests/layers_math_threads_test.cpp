// Blobs large enough that every math layer splits its work over several threads (small
// blobs run on the calling thread), on every elempack and ISA.
#include <gtest/gtest.h>

#include "tests/layers_math_util.h"

namespace jitconv {
namespace test {
namespace {

TEST(MathThreads, LargeBlobsMatchReference) {
  const Mat big = make_input(3, 48, 40, 1, 16, 1);
  LayerTester("Swish").input(big).threads(4).test();
  LayerTester("BatchNorm")
      .param(0, 16)
      .weight(random_mat(16, 2u))
      .weight(random_mat(16, 3u))
      .weight(make_input(1, 16, 1, 1, 1, 4, 0.5f, 1.f))
      .weight(random_mat(16, 5u))
      .input(big)
      .threads(4)
      .test();
  LayerTester("BinaryOp").param(0, 2).input(big).input(make_input(3, 48, 40, 1, 1, 6)).threads(4).test();
  LayerTester("BinaryOp").param(0, 0).input(big).input(make_input(3, 1, 40, 1, 16, 7)).threads(4).test();
  LayerTester("Pooling").param(0, 0).param(1, 3).param(2, 1).param(3, 1).input(big).threads(4).test();
  LayerTester("Pooling").param(0, 1).param(7, 1).param(8, 5).param(18, 4).input(big).threads(4).test();
  LayerTester("Padding").param(0, 1).param(1, 2).param(2, 3).param(3, 1).param(4, 2).input(big).threads(4).test();
  LayerTester("Softmax").param(0, 1).param(1, 1).input(big).threads(4).test();
  LayerTester("Reduction").param(0, 0).param(1, 0).param(3, std::vector<int>{0}).param(5, 1).input(big).threads(4).test();
  LayerTester("LRN").param(0, 0).input(big).threads(4).test();
  LayerTester("LRN").param(0, 1).input(big).threads(4).test();
  LayerTester("Interp").param(0, 1).param(1, 2.f).param(2, 2.f).input(big).threads(4).test();
  LayerTester("DeconvolutionDepthWise")
      .param(0, 16)
      .param(1, 3)
      .param(3, 2)
      .param(6, 16 * 9)
      .param(7, 16)
      .weight(random_mat(16 * 9, 8u))
      .input(big)
      .threads(4)
      .test();
}

}  // namespace
}  // namespace test
}  // namespace jitconv
