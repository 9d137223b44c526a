// Contiguous runs of tasks per thread, with the ends of slow threads' runs taken over by
// threads that finish early.
//
// The convolution drivers give each OpenMP thread one contiguous run of tasks (rows,
// chunk groups, pixel ranges): a thread then walks its part of the input and output in
// order, which keeps them in its own L2 and lets the row prefetch run ahead. A fixed split
// waits for the slowest thread, and on a shared host one vCPU is often slower for minutes
// (a neighbour on its core, interrupts): traced on this VM, 3x3 64@56 on two threads, the
// first thread finished its half ~20% after the second at the median. Here the owner takes
// tasks from the front of its run and a thread that has run out takes from the back of
// another's, so runs stay contiguous until the very end and no thread idles while tasks
// remain (two threads, x oneDNN, old / new split interleaved over five rounds, forced
// direct: 3x3 64@56 0.92 -> 1.02-1.04, 128@28 0.93 -> 0.99-1.03, 96@35 0.99 -> 1.01-1.03;
// GEMM 1x1 256->64 0.95 -> 0.99, s2 0.90 -> 0.93). Which thread runs a task never changes
// what the task computes, so results do not depend on the schedule.
#pragma once
#include <omp.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace jitconv {

class TaskRanges {
 public:
  // bounds: threads + 1 non-decreasing task indices; thread t owns [bounds[t], bounds[t+1]).
  explicit TaskRanges(const std::vector<long>& bounds);
  // Equal runs of `tasks` tasks over `threads` threads.
  TaskRanges(long tasks, int threads);

  // The next task for `thread` (its own run first, then the back of the others'), or -1
  // when every task has been handed out.
  long next(int thread);

 private:
  // front and back (exclusive) of a run, packed in one word so both ends move by CAS.
  struct alignas(64) Run {
    std::atomic<uint64_t> ends{0};
  };
  static uint64_t pack(uint32_t front, uint32_t back) { return static_cast<uint64_t>(back) << 32 | front; }
  long take_front(Run& run);
  long take_back(Run& run);

  long base_ = 0;  // task index of offset 0 (runs store offsets from it)
  int threads_ = 0;
  std::unique_ptr<Run[]> runs_;
};

// How many ranges of at most max_per_range items to cut `items` into so that, with
// tasks_per_range tasks each, the threads get whole rounds of tasks where the items allow
// (13 ranges on 2 threads would leave one thread a range behind; one range of panels holding
// every chunk group ran on one thread).
long ranges_in_rounds(long items, long max_per_range, int threads, int tasks_per_range);

// Items per range for those ranges, all equal but the last, rounded up to a multiple of
// `multiple` and at most max_per_range.
long equal_range_length(long items, long max_per_range, int threads, int tasks_per_range, long multiple);

// Items per panel when every task takes a whole panel: max_per_range (the last panel the
// rest) when those panels divide among the threads, else equal_range_length's panels, a
// round per thread (a single panel of a 14x14 output ran on one thread).
long panel_length(long items, long max_per_range, int threads, long multiple);

// Runs fn(task, thread) for every task of `ranges` on `threads` OpenMP threads; `thread`
// (0 .. threads - 1) indexes per-thread scratch buffers. One thread runs them in place.
template <typename Fn>
void run_task_ranges(TaskRanges& ranges, int threads, Fn&& fn) {
  if (threads <= 1) {
    for (long task; (task = ranges.next(0)) >= 0;) fn(task, 0);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int thread = omp_get_thread_num();
    for (long task; (task = ranges.next(thread)) >= 0;) fn(task, thread);
  }
}

// `tasks` tasks in equal runs over `threads` threads (see TaskRanges).
template <typename Fn>
void run_tasks(long tasks, int threads, Fn&& fn) {
  if (tasks <= 1) threads = 1;  // no parallel region for a single task
  TaskRanges ranges(tasks, threads);
  run_task_ranges(ranges, threads, fn);
}

}  // namespace jitconv
