// Extractor behaviour: lazy evaluation, light mode (memory and recomputation), in-place
// layers never touching shared data, several extractors on one Net at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <thread>

#include "reference/reference_executor.h"
#include "runtime/allocator.h"
#include "runtime/layers/convolution.h"
#include "runtime/packing.h"
#include "tests/net_test_util.h"

namespace jitconv {
namespace test {
namespace {

// Two branches after a Split, each two layers long.
const char kTwoBranches[] = R"(7767517
6 7
Input            in       0 1 in 0=8 1=6 2=4
Split            split    1 2 in a b
ReLU             relu_a   1 1 a a1
Sigmoid          sig_a    1 1 a1 out_a
Clip             clip_b   1 1 b b1 0=-0.5 1=0.5
Swish            swish_b  1 1 b1 out_b
)";

class CountingObserver final : public LayerObserver {
 public:
  void layer_done(size_t index, const Layer& layer, double, double) override { runs[layer.name]++; }
  std::map<std::string, int> runs;
};

void load_text(Net& net, const char* text, uint32_t seed = 3) {
  net.load_param_mem(text);
  RandomWeights weights(net.graph(), seed);
  net.load_model(weights);
}

TEST(NetExtractor, RunsOnlyTheLayersTheBlobNeeds) {
  Net net;
  load_text(net, kTwoBranches);
  Extractor ex = net.create_extractor();
  CountingObserver counter;
  ex.set_observer(&counter);
  ex.input("in", seeded_input(net.input_shape(0), 1));
  Mat out;
  ex.extract("out_a", out);
  EXPECT_EQ(counter.runs, (std::map<std::string, int>{{"split", 1}, {"relu_a", 1}, {"sig_a", 1}}));
  ex.extract("out_b", out);
  EXPECT_EQ(counter.runs,
            (std::map<std::string, int>{{"split", 1}, {"relu_a", 1}, {"sig_a", 1}, {"clip_b", 1}, {"swish_b", 1}}));
  ex.extract("out_a", out);  // kept: nothing runs again
  EXPECT_EQ(counter.runs.at("sig_a"), 1);
  EXPECT_EQ(counter.runs.at("split"), 1);
}

TEST(NetExtractor, LightModeRecomputesReleasedBlobsExactly) {
  Net net;
  load_text(net, kTwoBranches);
  const Mat input = seeded_input(net.input_shape(0), 5);
  Extractor full = net.create_extractor();
  full.set_light_mode(false);
  full.input("in", input);
  Mat a1_full;
  full.extract("a1", a1_full);

  Extractor light = net.create_extractor();
  CountingObserver counter;
  light.set_observer(&counter);
  light.input("in", input);
  Mat out;
  light.extract("out_a", out);
  // a1 and a were released after their consumers ran: extracting a1 recomputes both.
  Mat a1_light;
  light.extract("a1", a1_light);
  EXPECT_EQ(counter.runs.at("relu_a"), 2);
  EXPECT_EQ(counter.runs.at("split"), 2);
  expect_outputs_equal({a1_light}, {a1_full});
}

// A chain of `blocks` diamonds without Split layers: x{i+1} = x{i}' ReLU + Sigmoid, x{i}
// read directly by both.
std::string diamond_chain(int blocks) {
  std::string body;
  for (int i = 0; i < blocks; i++) {
    const std::string x = "x" + std::to_string(i), next = "x" + std::to_string(i + 1);
    body += str_cat("ReLU r", i, " 1 1 ", x, " r", i, "\n");
    body += str_cat("Sigmoid s", i, " 1 1 ", x, " s", i, "\n");
    body += str_cat("Eltwise e", i, " 2 1 r", i, " s", i, " ", next, " 0=1\n");
  }
  return str_cat("7767517\n", 1 + 3 * blocks, " ", 1 + 3 * blocks, "\nInput in 0 1 x0 0=5 1=4 2=3\n", body);
}

TEST(NetExtractor, LightModeRecomputesBlobsReadTwiceOnce) {
  // A recomputed blob waits for all its readers again: counting down from zero, its first
  // reader released it and the second recomputed it, 3 * 2^k layers for x{k}.
  const int blocks = 12, k = 9;
  Net net;
  load_text(net, diamond_chain(blocks).c_str());
  const Mat input = seeded_input(net.input_shape(0), 7);
  Extractor full = net.create_extractor();
  full.set_light_mode(false);
  full.input("x0", input);
  Mat expected;
  full.extract("x" + std::to_string(k), expected);

  Extractor light = net.create_extractor();
  CountingObserver counter;
  light.set_observer(&counter);
  light.input("x0", input);
  Mat out;
  light.extract("x" + std::to_string(blocks), out);
  counter.runs.clear();
  light.extract("x" + std::to_string(k), out);
  int runs = 0;
  for (const auto& r : counter.runs) {
    EXPECT_EQ(r.second, 1) << r.first << " ran more than once";
    runs += r.second;
  }
  EXPECT_EQ(runs, 3 * k);
  expect_outputs_equal({out}, {expected});
}

TEST(NetExtractor, ClearReleasesThePoolsIdleBlocks) {
  Net net;
  load_text(net, kTwoBranches);
  {
    Extractor ex = net.create_extractor();
    ex.input("in", seeded_input(net.input_shape(0), 2));
    Mat out;
    ex.extract("out_b", out);
  }
  ASSERT_GT(net.local_blob_pool().idle_block_count(), 0u);
  net.clear();
  EXPECT_EQ(net.local_blob_pool().idle_block_count(), 0u);
  EXPECT_EQ(net.local_workspace_pool().idle_block_count(), 0u);
}

// Counts live and peak bytes of everything allocated through it.
class CountingAllocator final : public Allocator {
 public:
  void* fast_malloc(size_t size) override {
    void* p = aligned_malloc(size);
    std::lock_guard<std::mutex> lock(mutex_);
    sizes_[p] = size;
    live_ += size;
    peak_ = std::max(peak_, live_);
    return p;
  }
  void fast_free(void* p) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = sizes_.find(p);
      if (it != sizes_.end()) {
        live_ -= it->second;
        sizes_.erase(it);
      }
    }
    aligned_free(p);
  }
  size_t peak() const { return peak_; }
  size_t live() const { return live_; }

 private:
  std::mutex mutex_;
  std::map<void*, size_t> sizes_;
  size_t live_ = 0, peak_ = 0;
};

size_t peak_bytes(const Net& net, const std::vector<NamedMat>& inputs, bool light_mode, size_t* leaked) {
  CountingAllocator counter;
  {
    Extractor ex = net.create_extractor();
    ex.set_light_mode(light_mode);
    ex.set_blob_allocator(&counter);
    ex.set_workspace_allocator(&counter);
    for (const NamedMat& in : inputs) ex.input(in.blob, in.mat);
    for (const std::string& name : net.output_names()) {
      Mat out;
      ex.extract(name, out);
    }
  }
  *leaked = counter.live();
  return counter.peak();
}

// Eight 1x1 convolutions in a row: in light mode at most two intermediate blobs live at
// once, without it all eight stay (1x1 convolutions need no workspace that could hide the
// difference).
const char kPointwiseChain[] = R"(7767517
9 9
Input        in  0 1 in 0=32 1=24 2=16
Convolution  c1  1 1 in b1 0=16 1=1 5=1 6=256
Convolution  c2  1 1 b1 b2 0=16 1=1 5=1 6=256
Convolution  c3  1 1 b2 b3 0=16 1=1 5=1 6=256
Convolution  c4  1 1 b3 b4 0=16 1=1 5=1 6=256
Convolution  c5  1 1 b4 b5 0=16 1=1 5=1 6=256
Convolution  c6  1 1 b5 b6 0=16 1=1 5=1 6=256
Convolution  c7  1 1 b6 b7 0=16 1=1 5=1 6=256
Convolution  c8  1 1 b7 out 0=16 1=1 5=1 6=256
)";

TEST(NetExtractor, LightModeHoldsLessMemory) {
  Net net;
  load_text(net, kPointwiseChain);
  const std::vector<NamedMat> inputs = declared_inputs(net);
  const size_t blob_bytes = 32 * 24 * 16 * sizeof(float);
  size_t leaked_light = 1, leaked_full = 1;
  const size_t light = peak_bytes(net, inputs, true, &leaked_light);
  const size_t full = peak_bytes(net, inputs, false, &leaked_full);
  EXPECT_GE(full, 8 * blob_bytes);
  EXPECT_LT(light, full) << "light mode peak " << light << " bytes, full " << full;
  EXPECT_LE(light, 3 * blob_bytes + 4096) << "light mode should hold about two blobs at a time";
  EXPECT_EQ(leaked_light, 0u);
  EXPECT_EQ(leaked_full, 0u);
}

// A Net given its own pool as Option::*allocator runs on it (same outputs as `expected`)
// and leaves its local pool of that kind (`local`) unused.
void expect_own_pool_used(const char* text, const std::vector<NamedMat>& inputs, const std::vector<Mat>& expected,
                          Allocator* Option::*allocator, const PoolAllocator& (Net::*local)() const) {
  PoolAllocator mine;
  Net own;
  own.opt.*allocator = &mine;
  load_text(own, text);
  EXPECT_EQ(own.create_extractor().option().*allocator, &mine);
  expect_outputs_equal(run_outputs(own, inputs, 2), expected);
  EXPECT_GT(mine.idle_block_count(), 0u);
  EXPECT_EQ((own.*local)().idle_block_count(), 0u);
}

TEST(NetExtractor, ScratchComesFromTheNetsPool) {
  // Option::use_local_pool_allocator (default on): Extractors without a workspace
  // allocator take scratch (here Winograd's transformed tiles) from a pool the Net owns,
  // so a second forward reuses the first one's blocks; same results as plain malloc; a
  // user's allocator and the switch are honoured.
  const char* text = R"(7767517
3 3
Input        in  0 1 in 0=28 1=28 2=64
Convolution  c1  1 1 in b1 0=64 1=3 4=1 5=1 6=36864
Convolution  c2  1 1 b1 out 0=48 1=3 4=1 5=1 6=27648
)";
  Net pooled;
  load_text(pooled, text);
  const std::vector<NamedMat> inputs = declared_inputs(pooled);
  EXPECT_EQ(pooled.create_extractor().option().workspace_allocator, &pooled.local_workspace_pool());
  const std::vector<Mat> first = run_outputs(pooled, inputs, 2);
  const size_t blocks = pooled.local_workspace_pool().idle_block_count();
  EXPECT_GT(blocks, 0u);
  EXPECT_EQ(pooled.local_workspace_pool().used_block_count(), 0u);
  const std::vector<Mat> second = run_outputs(pooled, inputs, 2);
  EXPECT_EQ(pooled.local_workspace_pool().idle_block_count(), blocks);  // reused, none added
  expect_outputs_equal(second, first);

  Net plain;
  plain.opt.use_local_pool_allocator = false;
  load_text(plain, text);
  EXPECT_EQ(plain.create_extractor().option().workspace_allocator, nullptr);
  expect_outputs_equal(run_outputs(plain, inputs, 2), first);
  EXPECT_EQ(plain.local_workspace_pool().idle_block_count(), 0u);

  expect_own_pool_used(text, inputs, first, &Option::workspace_allocator, &Net::local_workspace_pool);
}

TEST(NetExtractor, BlobsComeFromTheNetsPoolButExtractedMatsDoNot) {
  // The blobs between layers come from the Net's blob pool (a second forward adds no
  // blocks: no fresh pages per inference), but what extract / extract_raw return is
  // copied out of it, so it stays valid after the Net is gone.
  const char* text = R"(7767517
4 4
Input        in  0 1 in 0=20 1=20 2=16
Convolution  c1  1 1 in b1 0=24 1=3 4=1 5=1 6=3456 9=1
Convolution  c2  1 1 b1 b2 0=16 1=1 5=1 6=384
ReLU         r   1 1 b2 out
)";
  Net reference;
  reference.opt.use_local_pool_allocator = false;
  load_text(reference, text);
  const std::vector<NamedMat> inputs = declared_inputs(reference);
  const std::vector<Mat> expected = run_outputs(reference, inputs, 2);
  EXPECT_EQ(reference.local_blob_pool().idle_block_count(), 0u);
  Mat expected_b1;
  {
    Extractor ex = reference.create_extractor();
    for (const NamedMat& in : inputs) ex.input(in.blob, in.mat);
    ex.extract("b1", expected_b1);
  }

  Mat plain, raw;
  {
    Net pooled;
    load_text(pooled, text);
    EXPECT_EQ(pooled.create_extractor().option().blob_allocator, &pooled.local_blob_pool());
    expect_outputs_equal(run_outputs(pooled, inputs, 2), expected);
    const size_t blocks = pooled.local_blob_pool().idle_block_count();
    EXPECT_GT(blocks, 0u);
    EXPECT_EQ(pooled.local_blob_pool().used_block_count(), 0u);
    expect_outputs_equal(run_outputs(pooled, inputs, 2), expected);
    EXPECT_EQ(pooled.local_blob_pool().idle_block_count(), blocks);  // reused, none added

    Extractor ex = pooled.create_extractor();
    for (const NamedMat& in : inputs) ex.input(in.blob, in.mat);
    ex.extract("out", plain);
    ex.extract_raw(pooled.find_blob("b1"), raw);  // packed: the blob itself
    EXPECT_NE(plain.allocator, &pooled.local_blob_pool());
    EXPECT_NE(raw.allocator, &pooled.local_blob_pool());
    ASSERT_NE(raw.refcount, nullptr);
    EXPECT_EQ(raw.refcount->load(), 1);  // a copy nobody else holds
  }
  expect_outputs_equal({plain}, expected);  // the Net and its pools are gone
  Mat raw_plain;
  convert_packing(raw, raw_plain, 1, Option());
  expect_outputs_equal({raw_plain}, {expected_b1});

  expect_own_pool_used(text, inputs, expected, &Option::blob_allocator, &Net::local_blob_pool);
}

TEST(NetExtractor, InPlaceLayersLeaveTheUsersInputAlone) {
  Net net;
  load_text(net, R"(7767517
2 2
Input   in    0 1 in 0=7 1=5 2=7
ReLU    relu  1 1 in out
)");
  const Mat input = seeded_input(net.input_shape(0), 9);
  const Mat copy = input.clone();
  for (bool light : {true, false}) {
    Extractor ex = net.create_extractor();
    ex.set_light_mode(light);
    ex.input("in", input);
    Mat out;
    ex.extract("out", out);
    expect_outputs_equal({input}, {copy});
    const std::vector<float> v = plain_values(out), x = plain_values(copy);
    for (size_t i = 0; i < v.size(); i++) ASSERT_EQ(v[i], std::max(x[i], 0.f));
  }
}

// A blob read directly by an in-place layer and by another one (no Split between): the
// in-place layer must work on a copy.
TEST(NetExtractor, InPlaceLayerCopiesABlobOthersStillRead) {
  const char text[] = R"(7767517
5 5
Input     in     0 1 in 0=9 1=4 2=8
Clip      clip   1 1 in c 0=-0.6 1=0.7
ReLU      relu   1 1 c r
Sigmoid   sig    1 1 c s
BinaryOp  add    2 1 r s out 0=0
)";
  ReferenceExecutor reference;
  prepare_reference(reference);
  load_text(reference, text);
  const std::vector<NamedMat> inputs = declared_inputs(reference);
  const std::vector<Mat> expected = run_outputs(reference, inputs);
  for (bool light : {true, false}) {
    Net net;
    load_text(net, text);
    expect_outputs_near(run_outputs(net, inputs, 1, light), expected, {"out"}, 1e-6);
  }
}

TEST(NetExtractor, ParallelExtractorsMatchOneRun) {
  for (const char* model : {"conv_chain.param", "branches.param", "head.param"}) {
    SCOPED_TRACE(model);
    Net net;
    load_random(net, test_model_path(model));
    const std::vector<NamedMat> inputs = declared_inputs(net);
    const std::vector<Mat> expected = run_outputs(net, inputs);
    std::vector<std::vector<Mat>> results[2];
    std::thread threads[2];
    for (int t = 0; t < 2; t++)
      threads[t] = std::thread([&, t] {
        for (int run = 0; run < 3; run++) results[t].push_back(run_outputs(net, inputs));
      });
    for (std::thread& t : threads) t.join();
    for (const auto& per_thread : results) {
      ASSERT_EQ(per_thread.size(), 3u);
      for (const std::vector<Mat>& got : per_thread) expect_outputs_equal(got, expected);
    }
  }
}

TEST(NetExtractor, NewInputInvalidatesComputedBlobs) {
  Net net;
  load_text(net, kTwoBranches);
  const Mat first = seeded_input(net.input_shape(0), 1), second = seeded_input(net.input_shape(0), 2);
  Extractor ex = net.create_extractor();
  ex.input("in", first);
  Mat stale;
  ex.extract("out_a", stale);
  ex.input("in", second);
  Mat fresh;
  ex.extract("out_a", fresh);
  Extractor clean = net.create_extractor();
  clean.input("in", second);
  Mat expected;
  clean.extract("out_a", expected);
  expect_outputs_equal({fresh}, {expected});
}

}  // namespace
}  // namespace test
}  // namespace jitconv

namespace jitconv {
namespace test {
namespace {

// Shape hints (or an Input's declared shape) reach the Convolution, which then generates
// its kernels at load time instead of at the first forward.
TEST(NetShapeHints, ConvolutionKernelsAreReadyAfterLoad) {
  if (current_isa() == Isa::scalar) GTEST_SKIP() << "no generated kernels on the scalar ISA";
  // The direct path, whose kernels depend on the input width.
  const std::string conv = "Convolution c 1 1 in out 0=24 1=3 5=1 6=1728\n";
  const std::string declared = "7767517\n2 2\nInput in 0 1 in 0=21 1=17 2=8\n" + conv;
  const std::string hinted = "7767517\n2 2\nInput in 0 1 in -23330=4,3,21,17,8\n" + conv;
  const std::string unknown = "7767517\n2 2\nInput in 0 1 in\n" + conv;
  for (const std::string* text : {&declared, &hinted, &unknown}) {
    Net net;
    net.load_param_mem(*text);
    static_cast<layers::Convolution&>(net.layer(1)).forced_algo = "direct";
    RandomWeights weights(net.graph(), 1);
    net.load_model(weights);
    const bool ready = net.layer(1).describe().find("kernel conv_") != std::string::npos;
    EXPECT_EQ(ready, text != &unknown) << *text << net.layer(1).describe();
    EXPECT_EQ(net.layer(1).bottom_shapes.at(0).w, text != &unknown ? 21 : 0);
  }
}

TEST(NetColdWeights, LargeModelsChooseTheColdPathTable) {
  if (current_isa() == Isa::scalar) GTEST_SKIP() << "no Winograd on the scalar ISA";
  // 3x3 256@12 (F(5,3) and F(6,3) cover 12 no better than F(4,3)): F(4,3) while weights stay
  // cached, F(2,3) once the model's weights (here an InnerProduct's 36864 x 224 floats,
  // 33 MB, or a Deconvolution's) exceed 32 MB: each layer type's weights must count before
  // create_pipeline.
  const std::string head =
      "Input in 0 1 in -23330=4,3,12,12,256 0=12 1=12 2=256\n"
      "Convolution c 1 1 in conv -23330=4,3,12,12,256 0=256 1=3 4=1 5=1 6=589824\n";
  const std::string small = "7767517\n3 3\n" + head + "InnerProduct fc 1 1 conv out 0=16 1=1 2=589824\n";
  const std::string big_ip = "7767517\n3 3\n" + head + "InnerProduct fc 1 1 conv out 0=224 1=1 2=8257536\n";
  const std::string big_deconv =
      "7767517\n3 3\n" + head + "Deconvolution d 1 1 conv out 0=1024 1=6 5=1 6=9437184\n";
  for (int threads : {1, 2})
    for (const std::string* text : {&small, &big_ip, &big_deconv}) {
      Net net;
      net.opt.num_threads = threads;
      net.load_param_mem(*text);
      RandomWeights weights(net.graph(), 1);
      net.load_model(weights);
      const std::string path = net.layer(1).describe();
      const bool cold = text != &small;
      EXPECT_NE(path.find(cold ? "winograd23" : "winograd43"), std::string::npos) << *text << path;
    }
}

}  // namespace
}  // namespace test
}  // namespace jitconv
