// jitconv run: one inference of an ncnn model, outputs saved and summarized.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <new>
#include <numeric>
#include <string>
#include <vector>

#include "loader/data_reader.h"
#include "loader/model_writer.h"
#include "runtime/error.h"
#include "runtime/extractor.h"
#include "runtime/model_random.h"
#include "runtime/net.h"
#include "tools/cli_args.h"
#include "tools/model_tool.h"

namespace jitconv {

namespace {

// Raw fp32 from `path` in `layout`, shaped like `shape` (a plain Mat; NHWC as Mat(C, W, H)).
Mat read_input_file(const std::string& path, const Mat& shape, Layout layout) {
  Mat m;
  const bool channels_last = layout == Layout::nhwc && shape.dims >= 3;
  if (!channels_last) {
    m = plain_tensor(shape);
  } else if (shape.dims == 3) {
    m.create(shape.c, shape.w, shape.h);
  } else {
    m.create(shape.c, shape.w, shape.h, shape.d);
  }
  const int rows = m.dims >= 3 ? m.c : 1;
  const size_t row_values = m.dims >= 3 ? static_cast<size_t>(m.w) * m.h * m.d : static_cast<size_t>(m.w) * m.h;
  const size_t want = row_values * rows * sizeof(float);
  UniqueFile file = open_file(path, "rb");
  DataReaderFromStdio reader(file.get());
  if (reader.remaining() != kUnknownSize && reader.remaining() != want)
    fail(path, ": holds ", reader.remaining(), " bytes, input ", shape_text(shape), " (", layout_name(layout),
         ") needs ", want);
  for (int q = 0; q < rows; q++) {
    float* row = static_cast<float*>(m.data) + m.cstep * q;
    if (reader.read(row, row_values * sizeof(float)) != row_values * sizeof(float))
      fail(path, ": ends at byte ", reader.offset(), ", input needs ", want, " bytes");
  }
  return m;
}

// Blob names may hold '/' and other characters a file name should not.
std::string file_name_for(const std::string& blob) {
  std::string name = blob;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-') ch = '_';
  return name + ".bin";
}

// An Error from the Extractor that tells a library user to turn off residual fusion, with
// how to do that from the command line added.
[[noreturn]] void rethrow_for_cli(const Error& e) {
  const std::string what = e.what();
  if (what.find("use_residual_fusion") == std::string::npos) throw e;
  throw Error(what + "; from the command line: JITCONV_RESIDUAL_FUSION=0 jitconv run ...");
}

// "58800000000 bytes, 54.8 GiB": what a plain fp32 tensor of `shape` takes, for the
// message when it cannot be allocated.
std::string tensor_bytes_text(const Mat& shape) {
  const double bytes = static_cast<double>(shape.w) * (shape.dims >= 2 ? shape.h : 1) *
                       (shape.dims >= 4 ? shape.d : 1) * (shape.dims >= 3 ? shape.c : 1) * sizeof(float);
  char text[64];
  std::snprintf(text, sizeof(text), "%.0f bytes, %.1f GiB", bytes, bytes / (1024.0 * 1024 * 1024));
  return text;
}

void print_summary(const std::string& name, const Mat& out) {
  const std::vector<float> v = dense_values(out);
  std::printf("%s  shape %s", name.c_str(), shape_text(out).c_str());
  if (v.empty()) {
    std::printf("  (empty)\n");
    return;
  }
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
  std::printf("  min %.6g  max %.6g  mean %.6g\n", *lo, *hi, mean);
  if (out.dims == 1) {
    std::vector<int> order(v.size());
    std::iota(order.begin(), order.end(), 0);
    const size_t k = std::min<size_t>(5, v.size());
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) { return v[a] > v[b]; });
    std::printf("  top-%zu:", k);
    for (size_t i = 0; i < k; i++) std::printf(" %d=%.6g", order[i], v[order[i]]);
    std::printf("\n");
  }
}

}  // namespace

int cmd_run(const std::vector<std::string>& argv) {
  CliArgs args("run", "PARAM [BIN] [options]",
               "Runs one inference of an ncnn model. Without BIN the weights are seeded random, each layer's\n"
               "scaled to keep the variance of its input (runtime/model_random.h): plain chains stay O(1),\n"
               "but residual additions still grow (ResNet-50's last stage reaches 100-140, its logits\n"
               "+-60-80); --write-bin saves them as a .bin that `jitconv run PARAM BIN` reproduces\n"
               "exactly. Without --input the input is seeded random (uniform in [-1, 1], drawn in NCHW order\n"
               "whatever --layout says). Every output blob (or each --extract) is summarized and, with\n"
               "--output-dir, written to DIR/<blob>.bin as raw fp32 in C, H, W order; a character of the\n"
               "blob name other than a letter, digit, '.', '_' or '-' becomes '_' ('a/b' -> a_b.bin), and\n"
               "two blobs whose files would be the same are an error before anything is written. A network\n"
               "with no output blob (every blob feeds a layer) is an error unless --extract names one.",
               {{"input", "FILE", "raw fp32 input in --layout order (networks with one input)"},
                {"shape", "C,H,W", "input shape (default: the Input layer's parameters or shape hint)"},
                {"layout", "L", "nchw (default) or nhwc: the order of --input"},
                {"seed", "N", "seed of the random weights and input (default 1)"},
                {"extract", "NAME", "a blob to output (repeatable; default: blobs no layer consumes)"},
                {"output-dir", "DIR", "write each output to DIR/<name>.bin"},
                {"write-bin", "FILE", "save the random weights as an ncnn .bin"},
                {"threads", "N", "threads (default: physical cores)"}},
               2);
  if (!args.parse(argv)) {
    std::fputs(args.help_text().c_str(), stdout);
    return 0;
  }
  const std::vector<std::string>& paths = args.positional();
  if (paths.empty()) args.usage_error("give a .param file");
  Layout layout = Layout::nchw;
  try {
    layout = parse_layout(args.get("layout", "nchw"));
  } catch (const Error& e) {
    args.usage_error(std::string("--layout: ") + e.what());
  }
  const uint32_t seed = static_cast<uint32_t>(args.get_int("seed", 1, 0));
  const int threads = args.get_int("threads", default_num_threads(), 1);
  if (paths.size() == 2 && args.has("write-bin")) args.usage_error("--write-bin saves random weights: give no BIN");

  Net net;
  net.opt.num_threads = threads;
  net.load_param(paths[0]);
  if (paths.size() == 2) {
    net.load_model(paths[1]);
    // ncnn reads no further than the last layer's weights and neither does the Net; bytes
    // left over usually mean the .bin of another model (`jitconv optimize` refuses them).
    if (net.unread_model_bytes() > 0)
      std::fprintf(stderr, "warning: %s: %zu bytes left after the weights of every layer; it may not belong to %s\n",
                   paths[1].c_str(), net.unread_model_bytes(), paths[0].c_str());
  } else {
    RandomWeights weights(net.graph(), seed);
    weights.record_weights(args.has("write-bin"));
    net.load_model(weights);
    if (args.has("write-bin")) weights.write_bin(args.get("write-bin"));
  }

  const std::vector<ModelInput> inputs = model_inputs(net, args);
  if (args.has("input") && inputs.size() != 1)
    args.usage_error("--input is for networks with one input; this one has " + std::to_string(inputs.size()));
  Extractor ex = net.create_extractor();
  ex.set_num_threads(threads);

  std::vector<std::string> outputs = args.get_all("extract");
  if (outputs.empty()) outputs = net.output_names();
  if (outputs.empty())
    fail(paths[0], ": the network has no output blob (every blob feeds a layer): nothing to extract; name a blob "
         "with --extract NAME");
  const std::string dir = args.get("output-dir");
  if (!dir.empty()) {
    std::map<std::string, std::string> blob_of_file;
    for (const std::string& name : outputs) {
      const auto [it, added] = blob_of_file.emplace(file_name_for(name), name);
      if (!added && it->second != name)
        args.usage_error("blobs '" + it->second + "' and '" + name + "' would both be written to " + dir + "/" +
                         it->first + ": extract them in separate runs or to separate --output-dir folders");
    }
  }

  for (size_t i = 0; i < inputs.size(); i++) {
    const ModelInput& in = inputs[i];
    try {
      if (args.has("input")) {
        ex.input(in.blob, read_input_file(args.get("input"), in.shape, layout), layout);
        continue;
      }
      const Mat nchw = seeded_tensor(in.shape, input_seed(seed, i));
      if (layout == Layout::nchw) {
        ex.input(in.blob, nchw);
      } else {
        Mat nhwc;
        Option plain;
        plain.num_threads = threads;
        blob_to_nhwc(nchw, nhwc, plain);
        ex.input(in.blob, nhwc, Layout::nhwc);
      }
    } catch (const std::bad_alloc&) {
      fail("cannot allocate input '", in.name, "' of shape ", shape_text(in.shape), " (fp32, ",
           tensor_bytes_text(in.shape), "): not enough memory");
    } catch (const Error& e) {
      rethrow_for_cli(e);
    }
  }

  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) fail("cannot create --output-dir ", dir, ": ", ec.message());
  }
  for (const std::string& name : outputs) {
    Mat out;
    try {
      ex.extract(name, out);
    } catch (const std::bad_alloc&) {
      fail("out of memory computing blob '", name, "' (input ", shape_text(inputs[0].shape),
           inputs.size() > 1 ? ", ..." : "", ")");
    } catch (const Error& e) {
      rethrow_for_cli(e);
    }
    print_summary(name, out);
    if (!dir.empty()) {
      const std::vector<float> v = dense_values(out);
      save_bytes(v.data(), v.size() * sizeof(float), dir + "/" + file_name_for(name));
    }
  }
  return 0;
}

}  // namespace jitconv
