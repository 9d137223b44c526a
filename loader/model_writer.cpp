// Text and binary .param writers (ModelBinWriter is in model_bin_writer.cpp).
#include "loader/model_writer.h"

#include <cstdio>
#include <cstring>

#include "loader/data_reader.h"
#include "loader/layer_type_index.h"
#include "loader/param_value_text.h"
#include "runtime/error.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the .param.bin writer assumes a little-endian host");

namespace jitconv {

namespace {

void check_token(const std::string& text, const char* what, const ParamLayer& layer) {
  bool ok = !text.empty() && !looks_like_param(text);
  for (char ch : text) ok = ok && ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n' && ch != '\v' && ch != '\f' && ch != '"';
  if (!ok) fail(describe_layer(layer), ": ", what, " '", text, "' cannot be written as one .param token");
}

std::string padded_column(const std::string& text, size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

void put_word(std::vector<unsigned char>& out, int32_t word) {
  const size_t at = out.size();
  out.resize(at + 4);
  memcpy(&out[at], &word, 4);
}

}  // namespace

std::string write_param_text(const ParamGraph& graph, bool with_shape_hints) {
  validate_graph(graph);
  std::string text = str_cat(kParamMagic, "\n", graph.layers.size(), " ", graph.blob_names.size(), "\n");
  for (const ParamLayer& layer : graph.layers) {
    check_token(layer.type, "type", layer);
    check_token(layer.name, "name", layer);
    std::string line = padded_column(layer.type, 24) + " " + padded_column(layer.name, 24) + " " +
                       str_cat(layer.bottoms.size(), " ", layer.tops.size());
    for (const std::vector<int>* blobs : {&layer.bottoms, &layer.tops}) {
      for (int b : *blobs) {
        check_token(graph.blob_names[b], "blob name", layer);
        line += " " + graph.blob_names[b];
      }
    }
    for (int id : layer.params.ids()) {
      if (id == kShapeHintParamId && !with_shape_hints) continue;
      try {
        line += " " + format_param(layer.params, id);
      } catch (const Error& e) {
        fail(describe_layer(layer), ": ", e.what());
      }
    }
    text += line + "\n";
  }
  return text;
}

std::vector<unsigned char> write_param_binary(const ParamGraph& graph, bool with_shape_hints) {
  validate_graph(graph);
  std::vector<unsigned char> out;
  put_word(out, kParamMagic);
  put_word(out, static_cast<int32_t>(graph.layers.size()));
  put_word(out, static_cast<int32_t>(graph.blob_names.size()));
  for (const ParamLayer& layer : graph.layers) {
    const int type_index = ncnn_layer_type_index(layer.type);
    if (type_index < 0) fail(describe_layer(layer), ": type has no ncnn built-in layer index");
    put_word(out, type_index);
    put_word(out, static_cast<int32_t>(layer.bottoms.size()));
    put_word(out, static_cast<int32_t>(layer.tops.size()));
    for (int b : layer.bottoms) put_word(out, b);
    for (int t : layer.tops) put_word(out, t);
    for (int id : layer.params.ids()) {
      if (id == kShapeHintParamId && !with_shape_hints) continue;
      if (layer.params.type(id) == ParamDict::Type::string_value) {
        const std::string s = layer.params.get(id, std::string());
        if (s.size() > kMaxParamStringLength || s.find('\0') != std::string::npos)
          fail(describe_layer(layer), ": string parameter ", id, " is over ", kMaxParamStringLength,
               " bytes or holds NUL");
        put_word(out, -(kStringKeyBase + id));
        put_word(out, static_cast<int32_t>(s.size()));
        const size_t at = out.size();
        out.resize(at + (s.size() + 3) / 4 * 4, 0);
        if (!s.empty()) memcpy(&out[at], s.data(), s.size());
        continue;
      }
      const std::vector<uint32_t> words = layer.params.words(id);
      if (layer.params.is_array(id)) {
        put_word(out, -(kArrayKeyBase + id));
        put_word(out, static_cast<int32_t>(words.size()));
      } else {
        put_word(out, id);
      }
      for (uint32_t w : words) put_word(out, static_cast<int32_t>(w));
    }
    put_word(out, kParamEndKey);
  }
  return out;
}

void save_bytes(const void* data, size_t size, const std::string& path) {
  UniqueFile file = open_file(path, "wb");
  if ((size && fwrite(data, 1, size, file.get()) != size) || fflush(file.get()) != 0)
    fail("cannot write ", path, ": write failed");
  if (fclose(file.release()) != 0) fail("cannot write ", path, ": close failed");
}

void save_param_text(const ParamGraph& graph, const std::string& path, bool with_shape_hints) {
  const std::string text = write_param_text(graph, with_shape_hints);
  save_bytes(text.data(), text.size(), path);
}

void save_param_binary(const ParamGraph& graph, const std::string& path, bool with_shape_hints) {
  const std::vector<unsigned char> bytes = write_param_binary(graph, with_shape_hints);
  save_bytes(bytes.data(), bytes.size(), path);
}

}  // namespace jitconv
