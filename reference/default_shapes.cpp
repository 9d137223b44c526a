#include "reference/default_shapes.h"

namespace jitconv {

const std::vector<std::string>& default_shape_texts() {
  // Square problems: the w fields copy the h fields.
  static const std::vector<std::string> kShapes = {
      "mb1_ic3ih224_oc64oh112_kh7sh2ph3_n\"resnet:conv1_7x7s2\"",
      "mb1_ic64ih56_oc64oh56_kh3ph1_n\"resnet:3x3_64\"",
      "mb1_ic64ih56_oc256oh56_kh1ph0_n\"resnet:1x1_64to256\"",
      "mb1_ic256ih56_oc64oh56_kh1ph0_n\"resnet:1x1_256to64\"",
      "mb1_ic128ih28_oc128oh28_kh3ph1_n\"resnet:3x3_128\"",
      "mb1_ic256ih14_oc256oh14_kh3ph1_n\"resnet:3x3_256\"",
      "mb1_ic512ih7_oc512oh7_kh3ph1_n\"resnet:3x3_512\"",
      "mb1_ic1024ih14_oc256oh14_kh1ph0_n\"resnet:1x1_1024to256\"",
      "mb1_ic256ih56_oc128oh28_kh1sh2ph0_n\"resnet:1x1s2_256to128\"",
      "mb1_ic3ih224_oc64oh112_kh3sh2ph1_n\"squeezenet:conv1_3x3s2\"",
      "mb1_ic64ih56_oc64oh56_kh3ph2dh1_n\"dilated:3x3d2_64\"",
      "mb1_ic32ih112_oc64oh112_kh1ph0_n\"mobilenet:1x1_32to64\"",
      "mb1_ic24ih56_oc72oh56_kh1ph0_n\"mobilenetv2:1x1_24to72\"",
      "mb1_ic40ih28_oc120oh28_kh5ph2_n\"odd:5x5_40to120\"",
      "mb1_ic96ih35_oc96oh35_kh3ph1_n\"odd:3x3_96_35x35\"",
      "mb1_ic128ih28_oc128oh14_kh3sh2ph1_n\"resnet:3x3s2_128\"",
  };
  return kShapes;
}

std::vector<ConvDesc> default_shapes() {
  std::vector<ConvDesc> shapes;
  for (const std::string& text : default_shape_texts()) shapes.push_back(parse_conv_desc(text));
  return shapes;
}

}  // namespace jitconv
