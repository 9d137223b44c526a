// ncnn's built-in layer type indices, as the binary .param format stores them.
//
// The index of a type is its position in ncnn's src/CMakeLists.txt ncnn_add_layer()
// list (disabled layers such as ArgMax keep their slot). The table stops at
// CumulativeSum (index 98): later additions are not recorded here, so their indices
// are reported as unknown rather than guessed.
#pragma once
#include <string>

namespace jitconv {

// Indices with this bit set name custom (user-registered) layers.
constexpr int kNcnnCustomLayerBit = 1 << 8;

// The type name for a built-in index, or nullptr when the index is not in the table.
const char* ncnn_layer_type_name(int type_index);
// The built-in index of a type name, or -1.
int ncnn_layer_type_index(const std::string& type);
// Number of entries in the table.
int ncnn_layer_type_count();

}  // namespace jitconv
