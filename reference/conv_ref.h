// The oracle: a plain scalar 2-D convolution in NCHW with double accumulation.
#pragma once
#include "runtime/activation.h"
#include "runtime/conv_desc.h"

namespace jitconv {

// src:     mb x ic x ih x iw
// weights: g x (oc/g) x (ic/g) x kh x kw   (= OIHW per group, ncnn's weight_data order)
// bias:    oc values, or nullptr
// dst:     mb x oc x oh x ow
// Padding taps read `pad_value` (ncnn's Convolution pad_value; oneDNN pads with 0).
void reference_conv2d(const ConvDesc& desc, const float* src, const float* weights, const float* bias, float* dst,
                      const Activation& act = Activation(), float pad_value = 0.f, int num_threads = 1);

}  // namespace jitconv
