// The GEMM kernels of one weight layout: chunk groups of `ur_oc` chunks (the last group
// may hold fewer chunks and a partial last chunk), generated once per trailing-block
// length and shared through the KernelRegistry. Used by every driver of the GEMM
// microkernel (ConvGemm, ConvWinograd, InnerProduct).
#pragma once
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "jit/gemm_conf.h"
#include "jit/kernel_registry.h"

namespace jitconv {

class GemmKernelCache {
 public:
  // base: everything but ur_oc, n_tail and last_chunk_lanes; base.ur_oc is the group size.
  // oc: valid output channels (chunks = ceil(oc / vlen)).
  GemmKernelCache(const GemmConf& base, int oc);

  const GemmConf& base() const { return base_; }
  int groups() const { return groups_; }
  int chunks() const { return chunks_; }
  int group_size() const { return base_.ur_oc; }
  // Chunks in a group (group_size, or fewer for the last one).
  int chunks_in(int group) const { return group == groups_ - 1 ? last_chunks_ : base_.ur_oc; }

  struct Kernel {
    const GemmConf* conf;
    GemmKernelFn fn;
  };
  // Thread-safe; generates the kernel on first use. nr: pixels per register block
  // (0: the base configuration's; at most what the registers allow). prefetch_a_lines,
  // prefetch_x_lines: GemmConf's, of the kernel.
  Kernel get(int group, int n_tail, int nr = 0, int prefetch_a_lines = 0, int prefetch_x_lines = 0) const;
  std::vector<std::string> names() const;

 private:
  struct Entry {
    GemmConf conf;
    JitKernelPtr kernel;
  };
  GemmConf base_;
  int chunks_, groups_, last_chunks_, last_lanes_;
  mutable std::mutex mutex_;
  mutable std::map<std::tuple<bool, int, int, int, int>, Entry> entries_;  // (last group?, nr, tail, A / x prefetch)
  mutable std::vector<std::string> names_;
};

}  // namespace jitconv
