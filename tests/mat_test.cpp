#include <gtest/gtest.h>

#include "runtime/mat.h"

using namespace jitconv;

TEST(Mat, CstepAligned) {
  Mat m(5, 3, 7);
  EXPECT_EQ(m.cstep * 4 % 64, 0u);
}
