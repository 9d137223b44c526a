// The binary .param.bin parser, and load_param_file for either kind.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "loader/layer_type_index.h"
#include "loader/param_parser.h"
#include "runtime/error.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the .param.bin parser assumes a little-endian host");

namespace jitconv {

namespace {

class BinaryParamParser {
 public:
  BinaryParamParser(DataReader& reader, const std::string& source) : reader_(reader), source_(source) {}
  ParamGraph parse();

 private:
  int read_int(const char* what);
  // n words, read in chunks so a corrupt count cannot allocate more than the data holds.
  std::vector<uint32_t> read_words(size_t n, const char* what);
  // A count that must fit in the remaining bytes at bytes_per_item each.
  void check_count(long long count, size_t bytes_per_item, const char* what, size_t at);
  void parse_layer(int index, ParamGraph& graph);
  void parse_params(ParamLayer& layer);
  std::string where(size_t at) const {
    return str_cat(source_, ": byte offset ", at, context_.empty() ? "" : ": ", context_);
  }

  DataReader& reader_;
  std::string source_;
  std::string context_;  // the layer being read
  int blob_count_ = 0;
  // Producing layer per blob; a map, since a corrupt count may be huge when the
  // source cannot tell its size.
  std::unordered_map<int, int> producer_;
};

int BinaryParamParser::read_int(const char* what) {
  const size_t at = reader_.offset();
  int32_t value;
  if (reader_.read(&value, 4) != 4) fail(where(at), ": truncated while reading ", what);
  return value;
}

std::vector<uint32_t> BinaryParamParser::read_words(size_t n, const char* what) {
  const size_t at = reader_.offset();
  std::vector<uint32_t> words;
  const size_t kChunk = 1 << 16;
  while (words.size() < n) {
    const size_t done = words.size();
    const size_t chunk = std::min(n - done, kChunk);
    words.resize(done + chunk);
    if (reader_.read(words.data() + done, chunk * 4) != chunk * 4)
      fail(where(at), ": truncated while reading ", what, " (", n, " words)");
  }
  return words;
}

void BinaryParamParser::check_count(long long count, size_t bytes_per_item, const char* what, size_t at) {
  if (count < 0) fail(where(at), ": negative ", what, " ", count);
  const size_t left = reader_.remaining();
  if (left != kUnknownSize && static_cast<unsigned long long>(count) > left / bytes_per_item)
    fail(where(at), ": ", what, " ", count, " needs more bytes than the ", left, " left (truncated file?)");
}

ParamGraph BinaryParamParser::parse() {
  ParamGraph graph;
  const int magic = read_int("the magic number");
  if (magic != kParamMagic) fail(where(0), ": bad magic ", magic, " (expected ", kParamMagic, ")");
  size_t at = reader_.offset();
  const int layer_count = read_int("the layer count");
  check_count(layer_count, 16, "layer count", at);  // a layer takes at least 4 words
  at = reader_.offset();
  blob_count_ = read_int("the blob count");
  check_count(blob_count_, 4, "blob count", at);  // every blob is some layer's top
  graph.layers.reserve(std::min(layer_count, 4096));
  for (int i = 0; i < layer_count; i++) parse_layer(i, graph);
  context_.clear();
  // Blob slots are only materialized here, once the layers have proven they exist.
  for (int b = 0; b < blob_count_; b++) {
    if (producer_.count(b) == 0) fail(where(reader_.offset()), ": blob ", b, " of ", blob_count_, " is never produced");
    graph.blob_names.push_back(str_cat("blob_", b));
  }
  return graph;
}

void BinaryParamParser::parse_layer(int index, ParamGraph& graph) {
  ParamLayer layer;
  layer.offset = reader_.offset();
  layer.name = str_cat("layer_", index);
  context_ = str_cat("layer #", index);
  const int type_index = read_int("the layer type index");
  const char* type = ncnn_layer_type_name(type_index);
  if (!type && type_index >= 0 && (type_index & kNcnnCustomLayerBit))
    fail(where(layer.offset), ": custom layer type index ", type_index, " (custom #",
         type_index & ~kNcnnCustomLayerBit, ") is not supported");
  if (!type) fail(where(layer.offset), ": unknown layer type index ", type_index);
  layer.type = type;
  context_ = describe_layer(layer);

  size_t at = reader_.offset();
  const int bottom_count = read_int("the bottom count");
  check_count(bottom_count, 4, "bottom count", at);
  at = reader_.offset();
  const int top_count = read_int("the top count");
  check_count(top_count, 4, "top count", at);
  for (int j = 0; j < bottom_count; j++) {
    at = reader_.offset();
    const int b = read_int("a bottom blob index");
    if (b < 0 || b >= blob_count_) fail(where(at), ": bottom blob index ", b, " outside [0, ", blob_count_, ")");
    if (producer_.count(b) == 0) fail(where(at), ": bottom blob ", b, " is not produced by an earlier layer");
    layer.bottoms.push_back(b);
  }
  for (int j = 0; j < top_count; j++) {
    at = reader_.offset();
    const int t = read_int("a top blob index");
    if (t < 0 || t >= blob_count_) fail(where(at), ": top blob index ", t, " outside [0, ", blob_count_, ")");
    auto inserted = producer_.emplace(t, index);
    if (!inserted.second)
      fail(where(at), ": blob ", t, " is produced twice (also by layer #", inserted.first->second, ")");
    layer.tops.push_back(t);
  }
  parse_params(layer);
  graph.layers.push_back(std::move(layer));
}

void BinaryParamParser::parse_params(ParamLayer& layer) {
  for (;;) {
    const size_t at = reader_.offset();
    const int key = read_int("a parameter id (or the -233 end marker)");
    if (key == kParamEndKey) return;
    const bool is_string = key <= -kStringKeyBase;
    const bool is_array = !is_string && key <= -kArrayKeyBase;
    const long long id = is_string ? -static_cast<long long>(key) - kStringKeyBase
                         : is_array ? -static_cast<long long>(key) - kArrayKeyBase
                                    : key;
    if (id < 0 || id >= kParamIdCount)
      fail(where(at), ": parameter key ", key, " (id ", id, ") outside 0..", kParamIdCount - 1);
    const int pid = static_cast<int>(id);
    if (layer.params.has(pid)) fail(where(at), ": parameter id ", pid, " given twice");
    if (is_string) {
      const size_t len_at = reader_.offset();
      const int len = read_int("a string length");
      if (len < 0 || static_cast<size_t>(len) > kMaxParamStringLength)
        fail(where(len_at), ": string parameter ", pid, " has length ", len, " (0..", kMaxParamStringLength, ")");
      const size_t padded = (static_cast<size_t>(len) + 3) / 4 * 4;
      std::string bytes(padded, '\0');
      if (reader_.read(&bytes[0], padded) != padded)
        fail(where(len_at), ": truncated while reading string parameter ", pid);
      bytes.resize(static_cast<size_t>(len));
      bytes.resize(strnlen(bytes.c_str(), bytes.size()));  // ncnn reads it as a C string
      layer.params.set(pid, bytes);
    } else if (is_array) {
      const size_t len_at = reader_.offset();
      const int len = read_int("an array length");
      check_count(len, 4, "array length", len_at);
      layer.params.set_raw(pid, read_words(static_cast<size_t>(len), "array elements"));
    } else {
      uint32_t word;
      if (reader_.read(&word, 4) != 4) fail(where(reader_.offset()), ": truncated while reading parameter ", pid);
      layer.params.set_raw(pid, word);
    }
  }
}

}  // namespace

ParamGraph parse_param_binary(DataReader& reader, const std::string& source) {
  return BinaryParamParser(reader, source).parse();
}

ParamGraph parse_param_binary(const void* data, size_t size, const std::string& source) {
  DataReaderFromMemory reader(data, size);
  return parse_param_binary(reader, source);
}

ParamGraph load_param_file(const std::string& path) {
  MappedFile file(path);
  int32_t first_word = 0;
  if (file.size() >= 4) memcpy(&first_word, file.data(), 4);
  DataReaderFromMemory reader(file.data(), file.size());
  if (first_word == kParamMagic) return parse_param_binary(reader, path);
  return parse_param_text(reader, path);
}

}  // namespace jitconv
