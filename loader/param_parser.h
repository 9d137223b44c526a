// Reads ncnn .param files (text) and .param.bin files (binary) into a ParamGraph.
//
// Text:
//   7767517
//   layer_count blob_count
//   type name bottom_count top_count bottom_names... top_names... key=value...
// one layer per line; blank lines, extra spaces/tabs and CRLF line ends are accepted.
// Value forms are described in loader/param_value_text.h.
//
// Binary (little-endian int32 words):
//   7767517 layer_count blob_count
//   per layer: type_index bottom_count top_count bottom_indices... top_indices...
//              then parameters: id word | -23300-id n word... | -23400-id len bytes(padded
//              to 4) ... ending with -233
// The type index is ncnn's built-in layer index (loader/layer_type_index.h); custom
// layer indices are rejected. Values carry no type and are kept as raw words (see
// ParamDict). Binary files hold no names: layer i is named "layer_<i>" and blob b
// "blob_<b>". Bytes after the last layer are left unread (ncnn allows a .bin to follow).
//
// Every violation throws a jitconv::Error naming the source, the line (text) or byte
// offset (binary) and the layer: bad magic, counts that disagree with the layers, a
// duplicate layer name, a blob produced twice, a bottom no earlier layer produced, a
// malformed key=value, non-numeric values, too many or too few blob names, truncation.
#pragma once
#include <cstddef>
#include <string>

#include "loader/data_reader.h"
#include "loader/param_graph.h"

namespace jitconv {

// source names the input in error messages (usually the file path).
ParamGraph parse_param_text(DataReader& reader, const std::string& source = "<param>");
ParamGraph parse_param_text(const std::string& text, const std::string& source = "<param>");

ParamGraph parse_param_binary(DataReader& reader, const std::string& source = "<param.bin>");
ParamGraph parse_param_binary(const void* data, size_t size, const std::string& source = "<param.bin>");

// Reads a file of either kind, telling them apart by the first four bytes (the binary
// magic word versus text).
ParamGraph load_param_file(const std::string& path);

}  // namespace jitconv
