// Whole models through the optimizer: the ncnn model graphs in JITCONV_SHARED_DIR/models
// (ncnnoptimize's own output, so they carry ncnn's -23330 shape hints) and the test
// models in tests/models, all with seeded random weights.
//
// For the ncnn graphs, optimizing them with their hints stripped must infer exactly the
// hints ncnn wrote, layer by layer; and the optimized model, saved and loaded back, must
// compute what the unoptimized one does. Tolerance as in the Net model tests: 1e-4 of an
// output's range covers Winograd layers at their worst (folds change no path choice).
#include <gtest/gtest.h>
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "tests/optimize_test_util.h"

namespace jitconv {
namespace test {
namespace {

constexpr double kModelTolerance = 1e-4;
constexpr uint32_t kWeightSeed = 7;

std::vector<std::string> param_files(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > 6 && name.compare(name.size() - 6, 6, ".param") == 0) names.push_back(dir + "/" + name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string hint_text(const std::vector<int>& ints) {
  std::string s;
  for (int v : ints) s += (s.empty() ? "" : ",") + std::to_string(v);
  return s;
}

// Optimizes `path` (hints stripped) with seeded weights; checks its hints against the
// file's when `compare_hints`, then saves, reloads and runs it against the original.
void check_model(const std::string& path, bool compare_hints) {
  SCOPED_TRACE(path);
  const ParamGraph original = load_param_file(path);
  ParamGraph stripped = original;
  for (ParamLayer& layer : stripped.layers) layer.params.erase(kShapeHintParamId);
  RandomWeights weights(stripped, kWeightSeed);
  ModelGraph graph = load_model_graph(stripped, weights, path);
  const OptimizeResult result = optimize_graph(graph);
  for (const std::string& line : result.lines) std::printf("  %s\n", line.c_str());
  ASSERT_TRUE(result.shapes_inferred);
  const ParamGraph optimized = to_param_graph(graph);

  if (compare_hints) {
    // ncnn's hint per blob name, from the layer that wrote it.
    std::map<std::string, ShapeHint> expected;
    for (const ParamLayer& layer : original.layers) {
      const std::vector<ShapeHint> hints = decode_shape_hints(layer);
      ASSERT_EQ(hints.size(), layer.tops.size()) << describe_layer(layer) << " has no hint in the file";
      for (size_t t = 0; t < hints.size(); t++) expected[original.blob_names[layer.tops[t]]] = hints[t];
    }
    for (const ParamLayer& layer : optimized.layers) {
      SCOPED_TRACE(describe_layer(layer));
      ASSERT_TRUE(layer.params.has(kShapeHintParamId)) << "no hint written";
      const int index = original.find_layer(layer.name);
      ASSERT_GE(index, 0);
      const ParamLayer& before = original.layers[index];
      std::vector<std::string> tops_before, tops_after;
      for (int t : before.tops) tops_before.push_back(original.blob_names[t]);
      for (int t : layer.tops) tops_after.push_back(optimized.blob_names[t]);
      if (tops_before == tops_after) {
        EXPECT_EQ(hint_text(layer.params.get_ints(kShapeHintParamId)),
                  hint_text(before.params.get_ints(kShapeHintParamId)));
      } else {  // a rewritten layer: its blobs still have the shapes ncnn gave them
        const std::vector<ShapeHint> got = decode_shape_hints(layer);
        for (size_t t = 0; t < got.size(); t++) {
          const ShapeHint want = expected.at(tops_after[t]);
          EXPECT_TRUE(got[t] == want) << tops_after[t] << ": " << got[t].dims << "," << got[t].w << "," << got[t].h
                                      << "," << got[t].c << " vs " << want.dims << "," << want.w << "," << want.h
                                      << "," << want.c;
        }
      }
    }
  }

  char dir_name[] = "/tmp/jitconv_optmodel_XXXXXX";
  ASSERT_NE(mkdtemp(dir_name), nullptr);
  const std::string param = std::string(dir_name) + "/m.param", bin = std::string(dir_name) + "/m.bin";
  save_model_graph(graph, param, bin);
  Net reloaded;
  reloaded.load_param(param);
  reloaded.load_model(bin);
  std::remove(param.c_str());
  std::remove(bin.c_str());
  rmdir(dir_name);

  Net unoptimized;
  unoptimized.load_param(stripped, path);
  RandomWeights same_weights(stripped, kWeightSeed);
  unoptimized.load_model(same_weights);
  std::vector<std::string> names, reloaded_names;
  const std::vector<Mat> expected = run_sorted_outputs(unoptimized, names);
  const std::vector<Mat> got = run_sorted_outputs(reloaded, reloaded_names);
  ASSERT_EQ(reloaded_names, names);
  expect_outputs_near(got, expected, names, kModelTolerance);
}

TEST(OptimizeModels, NcnnModelsReproduceTheirShapeHints) {
  const std::string dir = std::string(JITCONV_SHARED_DIR) + "/models";
  const std::vector<std::string> files = param_files(dir);
  if (files.empty()) GTEST_SKIP() << "no ncnn models in " << dir << " (the shared folder is absent)";
  for (const std::string& path : files) check_model(path, true);
}

TEST(OptimizeModels, TestModelsComputeTheSame) {
  const std::vector<std::string> files = param_files(std::string(JITCONV_SOURCE_DIR) + "/tests/models");
  ASSERT_FALSE(files.empty());
  for (const std::string& path : files) check_model(path, false);
}

}  // namespace
}  // namespace test
}  // namespace jitconv
