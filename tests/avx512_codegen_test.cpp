// AVX-512 code generation on every x86 machine, AVX-512 or not.
//
// The kernel testers run generated code against reference/, so on a host without AVX-512
// (CI's AMD Zen 3 since 2026-11-22) they cover AVX2 alone, and nothing generated the
// AVX-512 kernels at all: a generator change that throws, overflows the 32-vector register
// file, or emits an operand form Xbyak refuses would first fail on an AVX-512 user's
// machine. These tests generate every AVX-512 kernel family over a grid of
// specializations without running any of it: the convolution layers forced to AVX-512
// (create_pipeline with a shape hint generates the kernels their forward would call), and
// the GEMM / int8 GEMM / Winograd transform generators directly. Each kernel must come out
// of the registry non-empty, decode from its first byte to its first `ret`, and use zmm
// registers. Numerics stay with the per-family testers, which run AVX-512 where the CPU has it.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "jit/asm_dump.h"
#include "jit/gemm_gen.h"
#include "jit/gemm_int8_gen.h"
#include "jit/kernel_registry.h"
#include "jit/winograd_gen.h"
#include "loader/model_bin.h"
#include "runtime/conv_desc.h"
#include "runtime/conv_runner.h"
#include "runtime/error.h"
#include "runtime/layers/convolution.h"
#include "runtime/layers/convolution_depthwise.h"
#include "tests/layer_tester.h"
#include "tests/test_util.h"

namespace jitconv {
namespace test {
namespace {

// The instructions of a kernel up to its first ret (the constant tables some kernels
// append after the code are not instructions).
std::vector<std::string> code_lines(const JitKernel& kernel) {
  std::istringstream listing(disassemble(kernel.code(), kernel.size()));
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(listing, line)) {
    lines.push_back(line);
    if (line.find(" ret") != std::string::npos) break;
  }
  return lines;
}

// A generated AVX-512 kernel: registered, non-empty, decodes up to a ret, uses zmm.
void expect_avx512_kernel(const std::string& name) {
  SCOPED_TRACE("kernel " + name);
  const JitKernelPtr kernel = KernelRegistry::instance().find(name);
  ASSERT_TRUE(kernel) << "not in the registry";
  ASSERT_GT(kernel->size(), 0u);
  const std::vector<std::string> lines = code_lines(*kernel);
  ASSERT_FALSE(lines.empty());
  bool ret = false, zmm = false;
  for (const std::string& l : lines) {
    EXPECT_EQ(l.find(".byte"), std::string::npos) << "undecodable bytes inside the code: " << l;
    if (l.find(" ret") != std::string::npos) ret = true;
    if (l.find("zmm") != std::string::npos) zmm = true;
  }
  EXPECT_TRUE(ret) << "no ret";
  EXPECT_TRUE(zmm) << "no zmm register in an AVX-512 kernel";
}

std::vector<std::string> kernel_names(const std::string& describe) {
  std::istringstream text(describe);
  std::vector<std::string> names;
  std::string line;
  const std::string tag = "kernel ";
  while (std::getline(text, line)) {
    const size_t at = line.find_first_not_of(' ');
    if (at != std::string::npos && line.compare(at, tag.size(), tag) == 0) names.push_back(line.substr(at + tag.size()));
  }
  return names;
}

struct LayerCase {
  std::string desc;  // benchdnn notation; g > 1 builds a ConvolutionDepthWise
  std::string algo;  // forced path, or "auto"
  std::string act = "none";
};

// A Convolution (g == 1) or ConvolutionDepthWise layer forced to AVX-512 with
// generate_only and the problem's input shape as its hint, parameters and weights loaded.
std::unique_ptr<Layer> forced_avx512_layer(const ConvDesc& d, const ParamDict& pd, const std::vector<Mat>& weights) {
  auto forced = [&](auto conv) -> std::unique_ptr<Layer> {
    conv->force_isa = true;
    conv->forced_isa = Isa::avx512;
    conv->generate_only = true;
    conv->hint_w = d.iw;
    conv->hint_h = d.ih;
    return conv;
  };
  std::unique_ptr<Layer> layer = d.g == 1 ? forced(std::make_unique<layers::Convolution>())
                                          : forced(std::make_unique<layers::ConvolutionDepthWise>());
  layer->name = "avx512_codegen";
  layer->load_param(pd);
  layer->load_model(ModelBinFromMatArray(weights));
  return layer;
}

// Builds the layer of a problem, so create_pipeline generates every kernel its forward
// would call; nothing is run.
std::string generate_layer(const LayerCase& c) {
  ConvProblem problem;
  problem.desc = parse_conv_desc(c.desc);
  problem.act = Activation::parse(c.act);
  const ConvDesc& d = problem.desc;
  std::unique_ptr<Layer> layer = forced_avx512_layer(
      d, conv_layer_params(problem, true), {random_mat(conv_weight_count(d), 7u), random_mat(d.oc, 8u)});
  if (c.algo != "auto") {
    if (d.g == 1)
      static_cast<layers::Convolution&>(*layer).forced_algo = c.algo;
    else
      static_cast<layers::ConvolutionDepthWise&>(*layer).forced_algo = c.algo;
  }
  Option opt;
  opt.num_threads = 2;
  // Autotuning times the paths, which must not happen for an ISA this CPU lacks: the
  // layer's own choice is asked for with autotuning on (it used to run AVX-512 code here).
  opt.use_autotune = c.algo == "auto";
  layer->create_pipeline(opt);
  return layer->describe();
}

// Generates one kernel straight from its generator and checks it.
template <typename Generator, typename Conf>
bool generate_kernel(const Conf& c) {
  SCOPED_TRACE(c.name());
  try {
    KernelRegistry::instance().get(c.name(), [c] { return std::make_unique<Generator>(c); });
  } catch (const std::exception& e) {
    ADD_FAILURE() << "generation failed: " << e.what();
    return false;
  }
  expect_avx512_kernel(c.name());
  return true;
}

void expect_layer_generates(const LayerCase& c, const std::string& expected_path) {
  SCOPED_TRACE(c.desc + " --algo " + c.algo + " --act " + c.act);
  std::string describe;
  try {
    describe = generate_layer(c);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "generation failed: " << e.what();
    return;
  }
  SCOPED_TRACE(describe);
  EXPECT_EQ(describe.compare(0, expected_path.size(), expected_path), 0) << "expected the " << expected_path << " path";
  EXPECT_NE(describe.find("avx512"), std::string::npos);
  const std::vector<std::string> names = kernel_names(describe);
  EXPECT_FALSE(names.empty()) << "no kernel listed";
  for (const std::string& n : names) expect_avx512_kernel(n);
}

const char* const kActivations[] = {"none",          "relu",    "leaky:0.1", "clip:-0.5:0.7",
                                    "sigmoid",       "mish",    "hardswish:0.2:0.5"};

}  // namespace

TEST(Avx512Codegen, DirectKernelsOverTheGeometryGrid) {
  const std::vector<std::string> shapes = {
      "mb1ic16ih15oc32oh15kh3ph1",         // packed, odd width
      "mb1ic19ih13oc33oh13kh3ph1",         // channel tails both ways
      "mb1ic32ih15oc48oh8kh3sh2ph1",       // stride 2
      "mb1ic16ih17oc16oh17kh5ph2",         // 5x5
      "mb1ic3ih32oc64oh16kh7sh2ph3",       // RGB first layer, unpacked input
      "mb1ic32ih15oc32oh15kh3ph2dh1",      // dilation 2
      "mb1ic64ih9oc80oh9kh1ph0",           // 1x1
      "mb1ic24ih11oc40oh6kh1sh2ph0",       // 1x1 stride 2
      "mb1ic8ih10oc12oh11kh2ph1",          // even kernel, output wider than the input
  };
  for (const std::string& s : shapes) expect_layer_generates({s, "direct"}, "direct");
  for (const char* act : kActivations) expect_layer_generates({"mb1ic16ih15oc40oh15kh3ph1", "direct", act}, "direct");
  // The layer's own choice (autotuning on: ignored for an ISA this CPU lacks).
  const std::string chosen = isa_supported(Isa::avx512) ? "" : "winograd";
  expect_layer_generates({"mb1ic32ih13oc48oh13kh3ph1", "auto"}, chosen);
  expect_layer_generates({"mb1ic3ih32oc64oh16kh7sh2ph3", "auto"}, isa_supported(Isa::avx512) ? "" : "direct");
}

TEST(Avx512Codegen, GemmKernelsOfEveryForm) {
  const std::vector<std::string> shapes = {
      "mb1ic64ih14oc256oh14kh1ph0",     // pointwise
      "mb1ic256ih14oc64oh14kh1ph0",     // pointwise, long K
      "mb1ic40ih9oc58oh9kh1ph0",        // pointwise, tails
      "mb1ic64ih28oc128oh14kh1sh2ph0",  // strided 1x1 in place
      "mb1ic64ih14oc96oh7kh1sh2ph0",    // strided 1x1 through panels
      "mb1ic19ih13oc33oh13kh3ph1",      // k x k, tails
      "mb1ic3ih32oc64oh16kh7sh2ph3",    // RGB first layer
  };
  for (const std::string& s : shapes) {
    expect_layer_generates({s, "gemm"}, "gemm");
    expect_layer_generates({s, "brgemm"}, "gemm");
  }
  for (const char* act : kActivations) expect_layer_generates({"mb1ic32ih12oc48oh12kh1ph0", "gemm", act}, "gemm");
}

TEST(Avx512Codegen, WinogradVariantsEdgesAndDilations) {
  const std::vector<std::string> shapes = {
      "mb1ic16ih13oc32oh13kh3ph1",     // edge tiles on both sides
      "mb1ic19ih7oc33oh7kh3ph1",       // channel tails, a narrow output elempack
      "mb1ic32ih5oc16oh5kh3ph0",       // no padding
      "mb1ic16ih14oc16oh14kh3ph2dh1",  // dilation 2: sub-images in place
      "mb1ic64ih2oc64oh2kh3ph1",       // one tile, all edges
  };
  for (const char* algo : {"winograd23", "winograd43", "winograd53", "winograd63"}) {
    for (const std::string& s : shapes) expect_layer_generates({s, algo}, algo);
    for (const char* act : kActivations) expect_layer_generates({"mb1ic16ih11oc32oh11kh3ph1", algo, act}, algo);
  }
  expect_layer_generates({"mb1ic16ih14oc16oh14kh3ph2dh1", "dilated"}, "dilated");
}

TEST(Avx512Codegen, DepthwiseAndGroupedKernels) {
  const std::vector<std::string> shapes = {
      "mb1g32ic32ih15oc32oh15kh3ph1",      // depthwise 3x3
      "mb1g32ic32ih15oc32oh8kh3sh2ph1",    // stride 2
      "mb1g24ic24ih13oc24oh13kh5ph2",      // 5x5, channels not a multiple of 16
      "mb1g16ic16ih12oc16oh12kh3ph2dh1",   // dilation 2
      "mb1g4ic32ih11oc64oh11kh3ph1",       // grouped
  };
  for (const std::string& s : shapes) {
    const bool depthwise = s.find("g4") == std::string::npos;
    expect_layer_generates({s, "auto"}, depthwise ? "depthwise" : "grouped");
  }
  for (const char* act : kActivations)
    expect_layer_generates({"mb1g32ic32ih9oc32oh9kh3ph1", "auto", act}, "depthwise");
}

TEST(Avx512Codegen, GemmMicrokernelForms) {
  // The forms only AVX-512 has (embedded broadcasts) and the flags each driver sets.
  int generated = 0;
  for (int ur_oc = 1; ur_oc <= 4; ur_oc++)
    for (bool bcast : {true, false}) {
      for (int variant = 0; variant < 5; variant++) {
        const Activation act = Activation::parse(kActivations[(ur_oc + variant) % 7]);
        const int max_nr = gemm_max_nr(Isa::avx512, ur_oc, bcast, act);
        for (int nr : {1, max_nr}) {
          GemmConf c;
          c.isa = Isa::avx512;
          c.vlen = 16;
          c.ur_oc = ur_oc;
          c.nr = nr;
          c.n_tail = nr > 1 ? nr - 1 : 0;
          c.explicit_bcast = bcast;
          c.k_pack = variant == 1 ? 16 : 1;
          c.b_pixel_stride = c.k_pack * 4L;
          c.out_pack = variant == 2 ? 4 : 16;
          c.last_chunk_lanes = variant == 2 ? 12 : 16;
          c.bias = variant != 0;
          c.residual = variant == 3;
          c.batch_reduce = variant == 4;
          c.a_fp16 = variant == 1;
          c.prefetch_b = variant == 2;
          c.prefetch_a_lines = variant == 3 ? 2 : 0;
          c.act = act;
          if (generate_kernel<GemmGenerator>(c)) generated++;
        }
      }
    }
  EXPECT_EQ(generated, 4 * 2 * 5 * 2);
}

TEST(Avx512Codegen, Int8GemmKernels) {
  int generated = 0;
  for (Int8Dot dot : {Int8Dot::vnni, Int8Dot::madd16})
    for (int chunks : {1, 3, 4, 7})
      for (bool requantize : {false, true})
        for (const char* act_text : kActivations) {
          const Activation act = Activation::parse(act_text);
          const GemmInt8Blocking blocking = choose_gemm_int8_blocking(Isa::avx512, dot, chunks, act, requantize);
          const int ur_oc = std::min(chunks, blocking.ur_oc);
          const GemmInt8Conf c = init_gemm_int8_conf(Isa::avx512, dot, blocking, ur_oc, blocking.nr > 1 ? 1 : 0,
                                                     int8_dot_group_elems(dot) * int8_dot_elem_bytes(dot) * 4L,
                                                     chunks % 2 ? 8 : 16, chunks % 2 ? 8 : 16, true, requantize, act);
          if (generate_kernel<GemmInt8Generator>(c)) generated++;
        }
  EXPECT_EQ(generated, 2 * 4 * 2 * 7);
}

TEST(Avx512Codegen, WinogradTransformForms) {
  int generated = 0;
  for (int m : {2, 4, 6})
    for (bool input : {true, false})
      for (bool stack : {false, true})
        for (int step : {1, 2})
          for (const char* act_text : kActivations) {
            WinogradTransformConf c;
            c.isa = Isa::avx512;
            c.vlen = 16;
            c.m = m;
            c.input = input;
            c.stack_pass = stack;
            c.pixel_step = step;
            if (!input) {
              c.bias = true;
              c.residual = step == 2;
              c.act = Activation::parse(act_text);
            } else if (std::strcmp(act_text, "none") != 0) {
              continue;  // the input transform has no epilogue
            }
            if (generate_kernel<WinogradTransformGenerator>(c)) generated++;
          }
  EXPECT_EQ(generated, 3 * 2 * 2 * (1 + 7));
}

// int8 Convolution / ConvolutionDepthWise layers (ncnn2int8's form: int8 weights, per
// output channel scales, one input scale, a top scale when requantizing): the drivers'
// rows and im2col forms with VNNI, as an AVX-512 target runs them.
TEST(Avx512Codegen, Int8LayerKernels) {
  struct Int8Case {
    std::string desc;
    int scale_term;  // 1: dequantize, 101: requantize
    std::string act;
    std::string form;  // what describe() names
  };
  const std::vector<Int8Case> cases = {
      {"mb1ic3ih32oc32oh16kh7sh2ph3", 1, "none", "im2col"},  // under 16 input channels
      {"mb1ic11ih13oc33oh13kh3ph1", 101, "relu", "im2col"},
      {"mb1ic19ih13oc33oh13kh3ph1", 101, "relu", "rows"},
      {"mb1ic128ih9oc64oh9kh3ph1", 1, "leaky:0.1", "rows"},
      {"mb1ic64ih14oc96oh14kh1ph0", 101, "none", "rows"},
      {"mb1ic64ih14oc48oh7kh1sh2ph0", 1, "clip:-0.5:0.7", "rows"},
      {"mb1ic32ih11oc40oh11kh3ph1", 1, "sigmoid", "rows"},
      {"mb1ic8ih11oc40oh11kh3ph1", 1, "mish", "im2col"},
      {"mb1ic32ih11oc40oh11kh3ph1", 1, "hardswish:0.2:0.5", "rows"},
      {"mb1g4ic32ih11oc64oh11kh3ph1", 1, "relu", "grouped"},
  };
  for (const Int8Case& c : cases) {
    SCOPED_TRACE(c.desc + " scale term " + std::to_string(c.scale_term) + " --act " + c.act);
    ConvProblem problem;
    problem.desc = parse_conv_desc(c.desc);
    problem.act = Activation::parse(c.act);
    const ConvDesc& d = problem.desc;
    ParamDict pd = conv_layer_params(problem, true);
    pd.set(8, c.scale_term);
    const int weight_count = conv_weight_count(d);
    Mat weights(weight_count, static_cast<size_t>(1), 1);
    for (int i = 0; i < weight_count; i++) static_cast<int8_t*>(weights.data)[i] = static_cast<int8_t>(i % 255 - 127);
    Mat weight_scales(d.g == 1 ? d.oc : d.g);
    weight_scales.fill(60.f);
    Mat bottom_scale(1), top_scale(1);
    bottom_scale.fill(20.f);
    top_scale.fill(10.f);
    std::vector<Mat> blobs = {weights, random_mat(d.oc, 5u), weight_scales, bottom_scale};
    if (c.scale_term > 100) blobs.push_back(top_scale);
    std::string describe;
    try {
      std::unique_ptr<Layer> layer = forced_avx512_layer(d, pd, blobs);
      Option opt;
      opt.use_int8_inference = true;
      layer->create_pipeline(opt);
      describe = layer->describe();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "generation failed: " << e.what();
      continue;
    }
    SCOPED_TRACE(describe);
    EXPECT_NE(describe.find(c.form), std::string::npos);
    EXPECT_NE(describe.find("int8 avx512 vnni"), std::string::npos);
    const std::vector<std::string> names = kernel_names(describe);
    EXPECT_FALSE(names.empty()) << "no kernel listed";
    for (const std::string& n : names) {
      EXPECT_NE(n.find("gemm_int8_avx512_vnni"), std::string::npos) << n;
      expect_avx512_kernel(n);
    }
  }
}

// generate_only is what lets the layers above accept an ISA the CPU lacks: without it
// create_pipeline refuses, with it forward does (the kernels cannot run here).
TEST(Avx512Codegen, GenerateOnlyLayersRefuseToRun) {
  if (isa_supported(Isa::avx512)) GTEST_SKIP() << "this CPU runs AVX-512: nothing to refuse";
  for (bool depthwise : {false, true}) {
    SCOPED_TRACE(depthwise ? "ConvolutionDepthWise" : "Convolution");
    for (bool generate_only : {false, true}) {
      std::unique_ptr<Layer> layer;
      if (depthwise) {
        auto conv = std::make_unique<layers::ConvolutionDepthWise>();
        conv->force_isa = true;
        conv->forced_isa = Isa::avx512;
        conv->generate_only = generate_only;
        layer = std::move(conv);
      } else {
        auto conv = std::make_unique<layers::Convolution>();
        conv->force_isa = true;
        conv->forced_isa = Isa::avx512;
        conv->generate_only = generate_only;
        layer = std::move(conv);
      }
      layer->name = "conv_g";
      ParamDict pd;
      pd.set(0, 16);
      pd.set(1, 3);
      pd.set(4, 1);
      pd.set(6, 16 * (depthwise ? 1 : 16) * 9);
      if (depthwise) pd.set(7, 16);
      layer->load_param(pd);
      layer->load_model(ModelBinFromMatArray({random_mat(16 * (depthwise ? 1 : 16) * 9, 3u)}));
      Option opt;
      if (!generate_only) {
        EXPECT_THROW(layer->create_pipeline(opt), Error);
        continue;
      }
      layer->create_pipeline(opt);
      Mat in(9, 9, 16), out;
      in.fill(1.f);
      try {
        layer->forward(in, out, opt);
        ADD_FAILURE() << "forward ran kernels of an ISA this CPU lacks";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("generate_only for avx512, which this CPU cannot run"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("conv_g"), std::string::npos) << e.what();
      }
      std::vector<Mat> tops;
      EXPECT_THROW(layer->forward(std::vector<Mat>{in}, tops, opt), Error);
    }
  }
}

}  // namespace test
}  // namespace jitconv
