// The text form of one layer parameter: `key=value` tokens in a .param line.
//
//   0=64               int (no '.', 'e' or 'E')
//   1=1.5e-3           float ('.', 'e' or 'E' present; also nan, inf, -inf, infinity in
//                      any case: ncnn would read nan/inf as strings, but a float
//                      parameter cannot be a string and our writer emits them)
//   2=1,2,3            array (a comma makes one, as in current ncnn)
//   -23303=3,1,2.5,3   array with id 3 and an explicit element count
//   4="a b"  4=abc     string: quoted (may hold spaces), or unquoted when the value
//                      starts with a letter (ncnn's rule); at most 255 bytes
//
// Array elements are typed one by one: an array is an int array when every element is
// an int, otherwise a float array whose int elements are converted (ncnn would keep the
// int bits in a float array, which no float-reading layer wants). Floats parse to the
// nearest float; a value beyond the float range is an error, one too small for the
// smallest subnormal becomes a signed zero.
#pragma once
#include <string>

#include "loader/param_dict.h"

namespace jitconv {

// True when the token has the shape `[+-]digits=...` (what separates parameters from
// blob names on a layer line).
bool looks_like_param(const std::string& token);

// Parses one `key=value` token into pd. where (e.g. "model.param:7: layer 'x' (T)")
// prefixes error messages: malformed token, id outside 0..31, duplicate id, bad number,
// element count mismatch, unterminated or over-long string.
void parse_param_token(const std::string& token, ParamDict& pd, const std::string& where);

// The `key=value` text for one parameter, readable back by parse_param_token into a dict
// with the same encoding (ParamDict::same_encoding). Floats use the shortest
// round-tripping scientific form (1.5e-03); NaN is written as nan (payload dropped).
// Raw words from binary files have no type: a word whose int value lies in
// (-2^24, 2^24), or whose float value is NaN, is written as an int, any other as a
// float, and both forms keep the exact bits. A raw array is written all-int when every
// word qualifies or any word is a NaN (an int array holding e.g. -233), else all-float;
// either way every word reads back with its exact bits. Throws for strings that text cannot hold
// (quotes, line breaks, NUL, over 255 bytes) and ids outside 0..31.
std::string format_param(const ParamDict& pd, int id);

}  // namespace jitconv
