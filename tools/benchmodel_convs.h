// `jitconv benchmodel`'s per-convolution table: every Convolution layer of a loaded Net as
// a ConvDesc (mb 1, its real input size), timed alone for jitconv and oneDNN in the same
// process, threads and ISA.
#pragma once
#include <vector>

#include "runtime/cpu.h"
#include "runtime/mat.h"
#include "runtime/net.h"

namespace jitconv {

// blob_shapes: every blob's shape after one inference (its input sizes).
void compare_convolutions(const Net& net, const std::vector<Mat>& blob_shapes, Isa isa, int threads,
                          double min_seconds);

}  // namespace jitconv
