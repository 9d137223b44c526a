// A tiny application built against the installed jitconv package.
#include <cmath>
#include <cstdio>

#include "jitconv.h"

int main() {
  jitconv::Mat m(5, 3, 20);
  m.fill(1.5f);
  jitconv::Option opt;
  jitconv::Mat packed;
  jitconv::convert_packing(m, packed, 4, opt);
  if (packed.elempack != 4 || packed.c != 5) return 1;
  // The README's one-layer example: a 3x3 convolution (ncnn parameter ids), all-ones
  // weights and bias 0.5, on a 4x4 input of ones: every output pixel is 0.5 plus the
  // number of in-image taps times 16 channels.
  jitconv::layers::Convolution conv;
  jitconv::ParamDict pd;
  pd.set(0, 8);            // num_output
  pd.set(1, 3);            // kernel
  pd.set(4, 1);            // pad
  pd.set(5, 1);            // bias_term
  pd.set(6, 8 * 16 * 9);   // weight_data_size
  pd.set(9, 1);            // relu
  conv.load_param(pd);
  jitconv::Mat weights(8 * 16 * 9), bias(8);
  weights.fill(1.f);
  bias.fill(0.5f);
  conv.load_model(jitconv::ModelBinFromMatArray({weights, bias}));
  conv.create_pipeline(opt);
  jitconv::Mat input(4, 4, 16), output, plain;
  input.fill(1.f);
  conv.forward(input, output, opt);
  jitconv::convert_packing(output, plain, 1, opt);
  const float corner = static_cast<const float*>(plain.data)[0], centre = static_cast<const float*>(plain.data)[5];
  // (3x3 with 16 inputs takes Winograd: exact to rounding, not to the bit.)
  if (plain.c != 8 || plain.w != 4 || std::fabs(corner - 64.5f) > 1e-3f || std::fabs(centre - 144.5f) > 1e-3f) return 2;
  std::printf("consumer ok: isa %s, %d channels packed by %d, convolution %g / %g\n",
              jitconv::isa_name(jitconv::current_isa()), packed.c, packed.elempack, corner, centre);
  return 0;
}
