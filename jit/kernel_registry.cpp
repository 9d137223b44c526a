#include "jit/kernel_registry.h"

#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "runtime/error.h"

namespace jitconv {

JitKernel::JitKernel(std::string name, std::unique_ptr<JitGenerator> generator)
    : name_(std::move(name)), generator_(std::move(generator)) {
  generator_->generate();
  code_ = generator_->finish();
  size_ = generator_->getSize();
}

namespace {

void dump_kernel(const JitKernel& kernel) {
  static const char* dir = std::getenv("JITCONV_JIT_DUMP");
  if (!dir || !*dir) return;
  const std::string path = std::string(dir) + "/" + kernel.name() + ".bin";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::fprintf(stderr, "jitconv: JITCONV_JIT_DUMP: cannot write %s\n", path.c_str());
    return;
  }
  std::fwrite(kernel.code(), 1, kernel.size(), f);
  std::fclose(f);
}

void register_with_perf(const JitKernel& kernel) {
  static const bool enabled = [] {
    const char* v = std::getenv("JITCONV_JIT_PROFILE");
    return v && v[0] == '1';
  }();
  if (!enabled) return;
  static std::mutex file_mutex;
  std::lock_guard<std::mutex> lock(file_mutex);
  const std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
  FILE* f = std::fopen(path.c_str(), "a");
  if (!f) return;
  std::fprintf(f, "%lx %zx %s\n", reinterpret_cast<unsigned long>(kernel.code()), kernel.size(),
               kernel.name().c_str());
  std::fclose(f);
}

}  // namespace

struct KernelRegistry::Impl {
  std::mutex mutex;
  std::condition_variable ready;
  std::map<std::string, JitKernelPtr> kernels;
  std::map<std::string, bool> in_progress;
  std::vector<std::string> order;
  std::atomic<size_t> generated{0};
};

KernelRegistry& KernelRegistry::instance() {
  static KernelRegistry registry;
  return registry;
}

KernelRegistry::Impl& KernelRegistry::impl() const {
  static Impl impl;
  return impl;
}

JitKernelPtr KernelRegistry::get(const std::string& name,
                                 const std::function<std::unique_ptr<JitGenerator>()>& make) {
  Impl& s = impl();
  std::unique_lock<std::mutex> lock(s.mutex);
  for (;;) {
    auto it = s.kernels.find(name);
    if (it != s.kernels.end()) return it->second;
    if (!s.in_progress[name]) break;
    s.ready.wait(lock);  // another thread is generating this very kernel
  }
  s.in_progress[name] = true;
  lock.unlock();
  JitKernelPtr kernel;
  try {
    kernel = std::make_shared<JitKernel>(name, make());
  } catch (const Xbyak::Error& e) {
    lock.lock();
    s.in_progress.erase(name);
    s.ready.notify_all();
    fail("code generation failed for ", name, ": ", e.what());
  } catch (...) {
    lock.lock();
    s.in_progress.erase(name);
    s.ready.notify_all();
    throw;
  }
  s.generated++;
  dump_kernel(*kernel);
  register_with_perf(*kernel);
  lock.lock();
  s.kernels[name] = kernel;
  s.order.push_back(name);
  s.in_progress.erase(name);
  s.ready.notify_all();
  return kernel;
}

JitKernelPtr KernelRegistry::find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(impl().mutex);
  auto it = impl().kernels.find(name);
  return it == impl().kernels.end() ? nullptr : it->second;
}

size_t KernelRegistry::size() const {
  std::lock_guard<std::mutex> lock(impl().mutex);
  return impl().kernels.size();
}

std::vector<std::string> KernelRegistry::names() const {
  std::lock_guard<std::mutex> lock(impl().mutex);
  return impl().order;
}

size_t KernelRegistry::generated_count() const { return impl().generated.load(); }

}  // namespace jitconv
