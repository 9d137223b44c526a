// The text .param parser (the binary one is in param_parser_binary.cpp).
#include "loader/param_parser.h"

#include <charconv>
#include <cstring>
#include <unordered_map>

#include "loader/param_value_text.h"
#include "runtime/error.h"

namespace jitconv {

namespace {

bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f'; }

// A token for a message: bytes outside printable ASCII as \xNN (a binary file read as text
// puts NULs there, which cut the message short), at most 40 of them.
std::string printable(const std::string& token) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < token.size() && i < 40; i++) {
    const unsigned char ch = static_cast<unsigned char>(token[i]);
    if (ch >= 0x20 && ch < 0x7f) {
      out += static_cast<char>(ch);
    } else {
      out += "\\x";
      out += kHex[ch >> 4];
      out += kHex[ch & 15];
    }
  }
  if (token.size() > 40) out += "...";
  return out;
}

class TextParamParser {
 public:
  TextParamParser(DataReader& reader, const std::string& source) : reader_(reader), source_(source) {}
  ParamGraph parse();

 private:
  // Next non-blank line split into tokens; false at the end of the input.
  bool next_tokens(std::vector<std::string>& tokens);
  void tokenize(const std::string& line, std::vector<std::string>& tokens) const;
  void parse_layer(const std::vector<std::string>& tokens, ParamGraph& graph);
  int parse_count(const std::string& token, const char* what, const std::string& where) const;
  std::string at_line() const { return str_cat(source_, ":", line_); }

  DataReader& reader_;
  std::string source_;
  int line_ = 0;
  int blob_count_ = 0;
  std::unordered_map<std::string, int> blob_by_name_;
  std::unordered_map<std::string, int> layer_line_by_name_;
  std::vector<int> blob_line_;  // line of the layer producing each blob
};

void TextParamParser::tokenize(const std::string& line, std::vector<std::string>& tokens) const {
  tokens.clear();
  size_t k = 0;
  while (k < line.size()) {
    while (k < line.size() && is_space(line[k])) k++;
    if (k == line.size()) break;
    const size_t start = k;
    while (k < line.size() && !is_space(line[k])) {
      if (line[k] == '"') {
        // A quoted string value may hold white space; it runs to the next quote.
        const size_t close = line.find('"', k + 1);
        if (close == std::string::npos) fail(at_line(), ": unterminated quoted string");
        k = close;
      }
      k++;
    }
    tokens.push_back(line.substr(start, k - start));
  }
}

bool TextParamParser::next_tokens(std::vector<std::string>& tokens) {
  std::string line;
  while (reader_.read_line(line)) {
    line_++;
    tokenize(line, tokens);
    if (!tokens.empty()) return true;
  }
  tokens.clear();
  return false;
}

int TextParamParser::parse_count(const std::string& token, const char* what, const std::string& where) const {
  int value = -1;
  auto r = std::from_chars(token.data(), token.data() + token.size(), value);
  if (r.ec != std::errc() || r.ptr != token.data() + token.size() || value < 0)
    fail(where, ": bad ", what, " '", token, "' (expected a non-negative integer)");
  return value;
}

ParamGraph TextParamParser::parse() {
  ParamGraph graph;
  std::vector<std::string> tokens;
  if (!next_tokens(tokens)) fail(source_, ": empty file (expected the magic number ", kParamMagic, ")");
  // A UTF-8 byte order mark some editors add is not part of the magic.
  if (tokens[0].compare(0, 3, "\xEF\xBB\xBF") == 0) tokens[0].erase(0, 3);
  if (tokens[0] != std::to_string(kParamMagic))
    fail(at_line(), ": bad magic '", printable(tokens[0]), "' (expected ", kParamMagic,
         "; is this a binary .param.bin?)");
  // ncnn reads the header as three whitespace-separated numbers: the counts may follow
  // the magic on its line.
  if (tokens.size() == 3) {
    tokens.erase(tokens.begin());
  } else if (tokens.size() != 1) {
    fail(at_line(), ": expected the magic number alone or followed by 'layer_count blob_count', got ",
         tokens.size(), " fields");
  } else {
    if (!next_tokens(tokens)) fail(source_, ": truncated after the magic number (expected 'layer_count blob_count')");
    if (tokens.size() != 2) fail(at_line(), ": expected 'layer_count blob_count', got ", tokens.size(), " fields");
  }
  const int layer_count = parse_count(tokens[0], "layer count", at_line());
  blob_count_ = parse_count(tokens[1], "blob count", at_line());
  graph.layers.reserve(std::min(layer_count, 4096));
  graph.blob_names.reserve(std::min(blob_count_, 4096));
  for (int i = 0; i < layer_count; i++) {
    if (!next_tokens(tokens))
      fail(source_, ":", line_ + 1, ": truncated: the header declares ", layer_count, " layers, found ", i);
    parse_layer(tokens, graph);
  }
  if (next_tokens(tokens))
    fail(at_line(), ": extra line after the ", layer_count, " layers the header declares ('", tokens[0], " ...')");
  if (static_cast<int>(graph.blob_names.size()) != blob_count_)
    fail(source_, ": the header declares ", blob_count_, " blobs, the layers produce ", graph.blob_names.size());
  return graph;
}

void TextParamParser::parse_layer(const std::vector<std::string>& tokens, ParamGraph& graph) {
  if (tokens.size() < 4)
    fail(at_line(), ": expected 'type name bottom_count top_count ...', got ", tokens.size(), " fields");
  ParamLayer layer;
  layer.type = tokens[0];
  layer.name = tokens[1];
  layer.line = line_;
  const std::string where = str_cat(at_line(), ": ", describe_layer(layer));
  if (looks_like_param(layer.type) || looks_like_param(layer.name))
    fail(where, ": a layer line starts with its type and name, not key=value");
  const int bottom_count = parse_count(tokens[2], "bottom count", where);
  const int top_count = parse_count(tokens[3], "top count", where);

  auto prior = layer_line_by_name_.find(layer.name);
  if (prior != layer_line_by_name_.end())
    fail(where, ": duplicate layer name (first used on line ", prior->second, ")");

  // Blob names come next; a key=value among them means too few names were given.
  size_t names_given = 0;
  while (4 + names_given < tokens.size() && !looks_like_param(tokens[4 + names_given])) names_given++;
  const size_t names_expected = static_cast<size_t>(bottom_count) + static_cast<size_t>(top_count);
  if (names_given != names_expected)
    fail(where, ": expected ", bottom_count, " bottom and ", top_count, " top blob names, found ", names_given,
         names_given > names_expected ? " (or a malformed key=value)" : "");

  for (int j = 0; j < bottom_count; j++) {
    const std::string& name = tokens[4 + j];
    auto it = blob_by_name_.find(name);
    if (it == blob_by_name_.end()) fail(where, ": unknown bottom blob '", name, "' (no earlier layer produces it)");
    layer.bottoms.push_back(it->second);
  }
  for (int j = 0; j < top_count; j++) {
    const std::string& name = tokens[4 + bottom_count + j];
    auto it = blob_by_name_.find(name);
    if (it != blob_by_name_.end())
      fail(where, ": blob '", name, "' is produced twice (first on line ", blob_line_[it->second], ")");
    if (static_cast<int>(graph.blob_names.size()) >= blob_count_)
      fail(where, ": top blob '", name, "' exceeds the ", blob_count_, " blobs the header declares");
    const int index = static_cast<int>(graph.blob_names.size());
    blob_by_name_.emplace(name, index);
    blob_line_.push_back(line_);
    graph.blob_names.push_back(name);
    layer.tops.push_back(index);
  }
  for (size_t k = 4 + names_expected; k < tokens.size(); k++) parse_param_token(tokens[k], layer.params, where);

  layer_line_by_name_.emplace(layer.name, line_);
  graph.layers.push_back(std::move(layer));
}

}  // namespace

ParamGraph parse_param_text(DataReader& reader, const std::string& source) {
  return TextParamParser(reader, source).parse();
}

ParamGraph parse_param_text(const std::string& text, const std::string& source) {
  DataReaderFromMemory reader(text.data(), text.size());
  return parse_param_text(reader, source);
}

}  // namespace jitconv
