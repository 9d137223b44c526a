#include "runtime/task_ranges.h"

#include <algorithm>
#include <cstdint>

#include "runtime/error.h"

namespace jitconv {

TaskRanges::TaskRanges(const std::vector<long>& bounds) {
  if (bounds.size() < 2) fail("TaskRanges: need at least one run");
  threads_ = static_cast<int>(bounds.size() - 1);
  base_ = bounds.front();
  if (static_cast<int64_t>(bounds.back()) - base_ > static_cast<int64_t>(UINT32_MAX)) fail("TaskRanges: too many tasks");
  runs_.reset(new Run[threads_]);
  for (int t = 0; t < threads_; t++) {
    if (bounds[t + 1] < bounds[t]) fail("TaskRanges: bounds must not decrease");
    runs_[t].ends.store(pack(static_cast<uint32_t>(bounds[t] - base_), static_cast<uint32_t>(bounds[t + 1] - base_)),
                        std::memory_order_relaxed);
  }
}

namespace {
std::vector<long> equal_bounds(long tasks, int threads) {
  std::vector<long> bounds(threads + 1);
  for (int t = 0; t <= threads; t++) bounds[t] = tasks * t / threads;
  return bounds;
}
}  // namespace

TaskRanges::TaskRanges(long tasks, int threads) : TaskRanges(equal_bounds(tasks, threads < 1 ? 1 : threads)) {}

long TaskRanges::take_front(Run& run) {
  uint64_t ends = run.ends.load(std::memory_order_relaxed);
  for (;;) {
    const uint32_t front = static_cast<uint32_t>(ends), back = static_cast<uint32_t>(ends >> 32);
    if (front >= back) return -1;
    if (run.ends.compare_exchange_weak(ends, pack(front + 1, back), std::memory_order_relaxed)) return base_ + front;
  }
}

long TaskRanges::take_back(Run& run) {
  uint64_t ends = run.ends.load(std::memory_order_relaxed);
  for (;;) {
    const uint32_t front = static_cast<uint32_t>(ends), back = static_cast<uint32_t>(ends >> 32);
    if (front >= back) return -1;
    if (run.ends.compare_exchange_weak(ends, pack(front, back - 1), std::memory_order_relaxed)) return base_ + back - 1;
  }
}

long TaskRanges::next(int thread) {
  if (thread < 0 || thread >= threads_) return -1;
  const long own = take_front(runs_[thread]);
  if (own >= 0) return own;
  for (int i = 1; i < threads_; i++) {
    const long stolen = take_back(runs_[(thread + i) % threads_]);
    if (stolen >= 0) return stolen;
  }
  return -1;
}

long ranges_in_rounds(long items, long max_per_range, int threads, int tasks_per_range) {
  long ranges = (items + max_per_range - 1) / max_per_range;
  while (threads > 1 && (ranges * tasks_per_range) % threads != 0 && ranges < items) ranges++;
  return ranges;
}

long equal_range_length(long items, long max_per_range, int threads, int tasks_per_range, long multiple) {
  const long ranges = ranges_in_rounds(items, max_per_range, threads, tasks_per_range);
  return std::min(max_per_range, std::max(multiple, ((items + ranges - 1) / ranges + multiple - 1) / multiple * multiple));
}

long panel_length(long items, long max_per_range, int threads, long multiple) {
  const long panels = (items + max_per_range - 1) / max_per_range;
  if (threads <= 1 || panels % threads == 0) return std::min(max_per_range, items);
  return equal_range_length(items, max_per_range, threads, 1, multiple);
}

}  // namespace jitconv
