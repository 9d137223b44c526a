// Helpers shared by the loader suites.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "loader/param_graph.h"
#include "runtime/error.h"

namespace jitconv {
namespace test {

// A fresh directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("jitconv_loader_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::string& path, const void* data, size_t size) {
  FILE* fp = fopen(path.c_str(), "wb");
  ASSERT_NE(fp, nullptr) << path;
  if (size) {
    ASSERT_EQ(fwrite(data, 1, size, fp), size);
  }
  fclose(fp);
}

// The message of the jitconv::Error that f throws; a test failure (and "") when f
// returns normally or throws anything else.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected jitconv::Error, got another exception: " << e.what();
    return std::string();
  }
  ADD_FAILURE() << "expected jitconv::Error, nothing was thrown";
  return std::string();
}

// Same layers (type, bottoms, tops, parameter encoding) and blob count; names compared
// only when compare_names (binary files hold none).
inline ::testing::AssertionResult graphs_equal(const ParamGraph& a, const ParamGraph& b, bool compare_names) {
  if (a.layers.size() != b.layers.size())
    return ::testing::AssertionFailure() << "layer count " << a.layers.size() << " vs " << b.layers.size();
  if (a.blob_names.size() != b.blob_names.size())
    return ::testing::AssertionFailure() << "blob count " << a.blob_names.size() << " vs " << b.blob_names.size();
  for (size_t i = 0; i < a.layers.size(); i++) {
    const ParamLayer& x = a.layers[i];
    const ParamLayer& y = b.layers[i];
    if (x.type != y.type) return ::testing::AssertionFailure() << "layer " << i << " type " << x.type << " vs " << y.type;
    if (x.bottoms != y.bottoms || x.tops != y.tops)
      return ::testing::AssertionFailure() << "layer " << i << " (" << x.name << ") connections differ";
    if (!x.params.same_encoding(y.params))
      return ::testing::AssertionFailure() << "layer " << i << " (" << x.name << ") parameters differ";
    if (compare_names && x.name != y.name)
      return ::testing::AssertionFailure() << "layer " << i << " name " << x.name << " vs " << y.name;
  }
  if (compare_names && a.blob_names != b.blob_names) return ::testing::AssertionFailure() << "blob names differ";
  return ::testing::AssertionSuccess();
}

}  // namespace test
}  // namespace jitconv
