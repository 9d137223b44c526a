// What a Net says when the model or the caller is wrong: each message names the file,
// the line and the layer, or the blob, that is at fault.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>

#include "loader/model_writer.h"
#include "tests/net_test_util.h"

namespace jitconv {
namespace test {
namespace {

// The message of the jitconv::Error `f` throws ("" when it throws none).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_HAS(text, needle) EXPECT_NE(std::string(text).find(needle), std::string::npos) << (text)

std::string temp_path(const std::string& name) {
  return testing::TempDir() + "net_errors_" + std::to_string(getpid()) + "_" + name;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

const char kSmall[] = R"(7767517
3 3
Input        in     0 1 in 0=9 1=8 2=3
Convolution  conv   1 1 in c 0=5 1=3 5=1 6=135
InnerProduct fc     1 1 c out 0=4 1=1 2=840
)";

TEST(NetErrors, UnknownLayerTypeNamesTypeFileAndLine) {
  const std::string path = temp_path("unknown.param");
  write_text(path, "7767517\n3 3\nInput in 0 1 in 0=4 1=4 2=1\n\nFrobnicate frob1 1 1 in f\nReLU r 1 1 f out\n");
  Net net;
  const std::string message = error_of([&] { net.load_param(path); });
  EXPECT_HAS(message, path + ":5:");
  EXPECT_HAS(message, "unknown layer type 'Frobnicate'");
  EXPECT_HAS(message, "frob1");
  EXPECT_FALSE(net.ready());
  EXPECT_EQ(net.layer_count(), 0u);
  std::remove(path.c_str());
}

TEST(NetErrors, LayerParameterErrorsNameTheLayer) {
  Net net;
  const std::string message = error_of([&] {
    net.load_param_mem("7767517\n2 2\nInput in 0 1 in\nConvolution bad_conv 1 1 in out 0=0 1=3 6=27\n");
  });
  EXPECT_HAS(message, "<param>:4:");
  EXPECT_HAS(message, "layer 'bad_conv' (Convolution)");
  EXPECT_HAS(message, "num_output");

  // A word or an array where a number belongs: an error, not the parameter's default.
  Net words;
  const std::string word = error_of([&] {
    words.load_param_mem("7767517\n2 2\nInput in 0 1 in\nConvolution act 1 1 in out 0=4 1=3 6=108 9=relu\n");
  });
  EXPECT_HAS(word, "<param>:4:");
  EXPECT_HAS(word, "layer 'act' (Convolution)");
  EXPECT_HAS(word, "parameter 9 must be a number, got the string 'relu'");
  Net arrays;
  const std::string array = error_of([&] {
    arrays.load_param_mem("7767517\n2 2\nInput in 0 1 in\nConvolution pad 1 1 in out 0=4 1=3 6=108 -23304=2,1,1\n");
  });
  EXPECT_HAS(array, "layer 'pad' (Convolution)");
  EXPECT_HAS(array, "parameter 4 must be a single number, got an array of 2 values");
}

TEST(NetErrors, MissingInputNamesTheBlob) {
  Net net;
  load_random(net, test_model_path("conv_chain.param"));
  Extractor ex = net.create_extractor();
  Mat out;
  const std::string message = error_of([&] { ex.extract("out", out); });
  EXPECT_HAS(message, "input blob 'in' was not set");
  // An Input layer of two tops with the first set: the message names the second.
  Net two;
  two.load_param_mem("7767517\n2 3\nInput data 0 2 d0 d1\nBinaryOp b 2 1 d0 d1 y 0=0\n");
  two.load_model_mem(nullptr, 0);  // no layer has weights
  Extractor ex2 = two.create_extractor();
  ex2.input("d0", Mat(4, 3, 2));
  const std::string second = error_of([&] { ex2.extract("y", out); });
  EXPECT_HAS(second, "input blob 'd1' was not set");
}

TEST(NetErrors, BadBlobNamesAndIndices) {
  Net net;
  load_random(net, test_model_path("conv_chain.param"));
  Extractor ex = net.create_extractor();
  Mat out;
  EXPECT_HAS(error_of([&] { ex.extract("nope", out); }), "no blob named 'nope'");
  EXPECT_HAS(error_of([&] { ex.input("missing", Mat(3, 3, 3)); }), "no blob named 'missing'");
  EXPECT_HAS(error_of([&] { ex.extract(9999, out); }), "blob index 9999");
  EXPECT_HAS(error_of([&] { ex.input("in", Mat()); }), "input 'in': the Mat is empty");
  EXPECT_HAS(error_of([&] { ex.input("in", Mat(23, 17, 3, 2u, 1)); }), "expected fp32");
}

TEST(NetErrors, WrongInputShapeNamesTheLayer) {
  Net net;
  net.load_param_mem(kSmall);
  RandomWeights weights(net.graph(), 1);
  net.load_model(weights);
  Extractor ex = net.create_extractor();
  ex.input("in", seeded_input(Mat(9, 8, 5), 1));  // 5 channels, the convolution wants 3
  Mat out;
  const std::string message = error_of([&] { ex.extract("out", out); });
  EXPECT_HAS(message, "layer 'conv' (Convolution)");
  EXPECT_HAS(message, "<param>:4:");
}

TEST(NetErrors, ShortBinNamesTheLayer) {
  Net source;
  source.load_param_mem(kSmall);
  RandomWeights weights(source.graph(), 1);
  weights.record_weights(true);
  source.load_model(weights);
  ModelBinWriter writer;
  weights.write_bin(writer);
  // Four bytes short: the last buffer (fc's bias) cannot be read whole.
  const std::string path = temp_path("short.bin");
  save_bytes(writer.bytes().data(), writer.size() - 4, path);
  Net net;
  net.load_param_mem(kSmall);
  const std::string message = error_of([&] { net.load_model(path); });
  EXPECT_HAS(message, "layer 'fc' (InnerProduct)");
  EXPECT_HAS(message, path);
  EXPECT_HAS(message, "byte offset");
  EXPECT_FALSE(net.ready());
  std::remove(path.c_str());

  Net from_memory;
  from_memory.load_param_mem(kSmall);
  EXPECT_HAS(error_of([&] { from_memory.load_model_mem(writer.bytes().data(), 40); }), "layer 'conv' (Convolution)");
}

TEST(NetErrors, CallsOutOfOrder) {
  Net empty;
  EXPECT_HAS(error_of([&] { empty.load_param_mem("7767517\n0 0\n"); }), "<param>: the model has no layers");
  Net net;
  EXPECT_HAS(error_of([&] { net.create_extractor(); }), "no model loaded");
  RandomWeights none(net.graph(), 1);
  EXPECT_HAS(error_of([&] { net.load_model(none); }), "load_param first");
  net.load_param_mem(kSmall);
  EXPECT_HAS(error_of([&] { net.create_extractor(); }), "no model loaded");
  EXPECT_HAS(error_of([&] { Extractor direct(net); }), "no model loaded");  // the constructor checks too
  RandomWeights weights(net.graph(), 1);
  net.load_model(weights);
  EXPECT_HAS(error_of([&] { net.load_model(weights); }), "already loaded");
  Extractor ex = net.create_extractor();
  EXPECT_HAS(error_of([&] { ex.set_num_threads(0); }), "at least 1 thread");
  // The Net's own option is checked too (OpenMP would be asked for -1 threads).
  net.opt.num_threads = -1;
  EXPECT_HAS(error_of([&] { net.create_extractor(); }), "num_threads must be at least 1, got -1");
  Net negative;
  negative.opt.num_threads = 0;
  negative.load_param_mem(kSmall);
  RandomWeights more(negative.graph(), 1);
  EXPECT_HAS(error_of([&] { negative.load_model(more); }), "num_threads must be at least 1, got 0");
}

TEST(NetErrors, MissingFilesNameThePath) {
  Net net;
  EXPECT_HAS(error_of([&] { net.load_param(std::string("/nonexistent/x.param")); }), "/nonexistent/x.param");
  net.load_param_mem(kSmall);
  EXPECT_HAS(error_of([&] { net.load_model(std::string("/nonexistent/x.bin")); }), "/nonexistent/x.bin");
}

TEST(NetErrors, ReferenceExecutorNamesTypesWithoutReference) {
  Net net;
  net.set_layer_creator([](const std::string&) { return std::unique_ptr<Layer>(); }, "no scalar reference for layer type");
  EXPECT_HAS(error_of([&] { net.load_param_mem(kSmall); }), "no scalar reference for layer type 'Input'");
}

}  // namespace
}  // namespace test
}  // namespace jitconv
