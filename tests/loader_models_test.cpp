// Every ncnn model graph in JITCONV_SHARED_DIR/models parses, matches its header, carries
// decodable shape hints and survives the text and binary writers.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "loader/model_writer.h"
#include "loader/param_parser.h"
#include "tests/loader_test_util.h"

namespace jitconv {
namespace {

std::vector<std::string> shared_models() {
  std::vector<std::string> paths;
#ifdef JITCONV_SHARED_DIR
  const std::filesystem::path dir = std::filesystem::path(JITCONV_SHARED_DIR) / "models";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".param") paths.push_back(entry.path().string());
#endif
  std::sort(paths.begin(), paths.end());
  return paths;
}

// The header counts and each layer line's fields, read with plain stream extraction.
struct RawModel {
  int layer_count = -1;
  int blob_count = -1;
  std::vector<std::vector<std::string>> lines;
};

RawModel read_raw(const std::string& path) {
  RawModel raw;
  std::ifstream in(path);
  int magic = 0;
  in >> magic >> raw.layer_count >> raw.blob_count;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::vector<std::string> tokens;
    std::string t;
    while (fields >> t) tokens.push_back(t);
    if (!tokens.empty()) raw.lines.push_back(tokens);
  }
  return raw;
}

TEST(LoaderModels, SharedModelsParseAndRoundTrip) {
  const std::vector<std::string> paths = shared_models();
  if (paths.empty()) GTEST_SKIP() << "no *.param under JITCONV_SHARED_DIR/models (../shared absent in this checkout)";
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    const RawModel raw = read_raw(path);
    const ParamGraph g = load_param_file(path);
    EXPECT_EQ(static_cast<int>(g.layers.size()), raw.layer_count);
    EXPECT_EQ(static_cast<int>(g.blob_names.size()), raw.blob_count);
    ASSERT_EQ(raw.lines.size(), g.layers.size());
    size_t layers_with_hints = 0;
    for (size_t i = 0; i < g.layers.size(); i++) {
      const ParamLayer& layer = g.layers[i];
      const std::vector<std::string>& fields = raw.lines[i];
      EXPECT_EQ(layer.type, fields[0]);
      EXPECT_EQ(layer.name, fields[1]);
      EXPECT_EQ(layer.bottoms.size(), std::stoul(fields[2]));
      EXPECT_EQ(layer.tops.size(), std::stoul(fields[3]));
      EXPECT_EQ(layer.params.size(), fields.size() - 4 - layer.bottoms.size() - layer.tops.size()) << layer.name;
      for (size_t j = 0; j < layer.tops.size(); j++) EXPECT_EQ(g.blob_names[layer.tops[j]], fields[4 + layer.bottoms.size() + j]);
      if (!layer.params.has(kShapeHintParamId)) continue;
      layers_with_hints++;
      EXPECT_EQ(layer.params.get_ints(kShapeHintParamId).size(), 4 * layer.tops.size()) << layer.name;
      const std::vector<ShapeHint> hints = decode_shape_hints(layer);
      ASSERT_EQ(hints.size(), layer.tops.size());
      for (const ShapeHint& h : hints) EXPECT_TRUE(h.dims >= 1 && h.dims <= 3) << layer.name;
    }
    EXPECT_GT(layers_with_hints, 0u);

    const ParamGraph text = parse_param_text(write_param_text(g), path);
    EXPECT_TRUE(test::graphs_equal(g, text, true));
    const std::vector<unsigned char> bin = write_param_binary(g);
    const ParamGraph binary = parse_param_binary(bin.data(), bin.size(), path);
    EXPECT_TRUE(test::graphs_equal(g, binary, false));
    EXPECT_TRUE(test::graphs_equal(g, parse_param_text(write_param_text(binary)), false));
  }
}

}  // namespace
}  // namespace jitconv
