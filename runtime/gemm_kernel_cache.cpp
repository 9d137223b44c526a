#include "runtime/gemm_kernel_cache.h"

#include <algorithm>

#include "jit/gemm_gen.h"
#include "runtime/error.h"

namespace jitconv {

GemmKernelCache::GemmKernelCache(const GemmConf& base, int oc) : base_(base) {
  if (base.ur_oc < 1) fail("GemmKernelCache: group size must be positive");
  chunks_ = (oc + base.vlen - 1) / base.vlen;
  groups_ = (chunks_ + base.ur_oc - 1) / base.ur_oc;
  last_chunks_ = chunks_ - (groups_ - 1) * base.ur_oc;
  last_lanes_ = oc - (chunks_ - 1) * base.vlen;
}

GemmKernelCache::Kernel GemmKernelCache::get(int group, int n_tail, int nr, int prefetch_a_lines,
                                             int prefetch_x_lines) const {
  if (nr <= 0) nr = base_.nr;
  if (nr > base_.nr) fail("GemmKernelCache: nr ", nr, " exceeds the register budget ", base_.nr);
  const bool last = group == groups_ - 1;
  // The last group shares the main kernel when it is a full group of full chunks.
  const bool distinct = last && (last_chunks_ != base_.ur_oc || last_lanes_ != base_.vlen);
  std::lock_guard<std::mutex> lock(mutex_);
  auto key = std::make_tuple(distinct, nr, n_tail, prefetch_a_lines, prefetch_x_lines);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    Entry e;
    e.conf = base_;
    e.conf.n_tail = n_tail;
    e.conf.nr = nr;
    e.conf.prefetch_a_lines = prefetch_a_lines;
    e.conf.prefetch_x_lines = prefetch_x_lines;
    e.conf.ur_oc = distinct ? last_chunks_ : base_.ur_oc;
    e.conf.last_chunk_lanes = distinct ? last_lanes_ : base_.vlen;
    const GemmConf conf = e.conf;
    e.kernel = KernelRegistry::instance().get(conf.name(), [conf] { return std::make_unique<GemmGenerator>(conf); });
    if (std::find(names_.begin(), names_.end(), conf.name()) == names_.end()) names_.push_back(conf.name());
    it = entries_.emplace(key, std::move(e)).first;
  }
  return Kernel{&it->second.conf, it->second.kernel->entry<GemmKernelFn>()};
}

std::vector<std::string> GemmKernelCache::names() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return names_;
}

}  // namespace jitconv
