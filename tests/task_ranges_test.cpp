#include "runtime/task_ranges.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace jitconv;

TEST(TaskRanges, OwnerWalksItsRunFrontToBack) {
  TaskRanges ranges(std::vector<long>{3, 7, 9});
  std::vector<long> got;
  for (int i = 0; i < 4; i++) got.push_back(ranges.next(0));
  EXPECT_EQ(got, (std::vector<long>{3, 4, 5, 6}));
  // Its own run empty, thread 0 takes thread 1's run from the back.
  EXPECT_EQ(8, ranges.next(0));
  EXPECT_EQ(7, ranges.next(1));
  EXPECT_EQ(-1, ranges.next(1));
  EXPECT_EQ(-1, ranges.next(0));
}

TEST(TaskRanges, IdleThreadTakesTheBackOfAnotherRun) {
  TaskRanges ranges(10, 2);  // runs [0, 5) and [5, 10)
  EXPECT_EQ(0, ranges.next(0));
  for (long t = 5; t < 10; t++) EXPECT_EQ(t, ranges.next(1));
  EXPECT_EQ(4, ranges.next(1));  // thread 1 done: the back of thread 0's run
  EXPECT_EQ(3, ranges.next(1));
  EXPECT_EQ(1, ranges.next(0));  // the owner still goes on from the front
  EXPECT_EQ(2, ranges.next(0));
  EXPECT_EQ(-1, ranges.next(0));
  EXPECT_EQ(-1, ranges.next(1));
  EXPECT_EQ(-1, ranges.next(2));  // not a thread of these runs
}

TEST(TaskRanges, EmptyRunsAndMoreRunsThanThreads) {
  TaskRanges ranges(std::vector<long>{0, 0, 4, 4, 6});
  std::vector<int> seen(6, 0);
  // Only thread 0 ever asks: it drains every run.
  for (long t; (t = ranges.next(0)) >= 0;) seen[t]++;
  for (int count : seen) EXPECT_EQ(1, count);
}

TEST(TaskRanges, RejectsBadBounds) {
  EXPECT_THROW(TaskRanges(std::vector<long>{5}), std::runtime_error);
  EXPECT_THROW(TaskRanges(std::vector<long>{0, 5, 3}), std::runtime_error);
}

// Eight threads, one of them slow: every task runs exactly once, the slow thread's run is
// finished by the others, and each thread met its own tasks in increasing order.
TEST(TaskRanges, ConcurrentThreadsRunEveryTaskOnce) {
  const int threads = 8;
  const long tasks = 4000;
  for (int round = 0; round < 5; round++) {
    TaskRanges ranges(tasks, threads);
    std::vector<std::atomic<int>> runs(tasks);
    std::vector<std::atomic<int>> runner(tasks);
    for (long t = 0; t < tasks; t++) runs[t] = 0, runner[t] = -1;
    std::vector<int> own_order_ok(threads, 1);
    int team = 0;
#pragma omp parallel num_threads(threads)
    {
      const int thread = omp_get_thread_num();
#pragma omp single
      team = omp_get_num_threads();
      long last_own = -1;
      for (long task; (task = ranges.next(thread)) >= 0;) {
        runs[task]++;
        runner[task] = thread;
        const bool own = task * threads / tasks == thread;
        if (own) {
          if (task <= last_own) own_order_ok[thread] = 0;
          last_own = task;
        }
        if (thread == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    }
    long stolen_from_0 = 0;
    for (long t = 0; t < tasks; t++) {
      ASSERT_EQ(1, runs[t].load()) << "task " << t;
      if (t < tasks / threads && runner[t] != 0) stolen_from_0++;
    }
    for (int t = 0; t < threads; t++) EXPECT_EQ(1, own_order_ok[t]) << "thread " << t;
    if (team > 1) {
      EXPECT_GT(stolen_from_0, 0);  // 200 us per task: the others finish long before
    }
  }
}

TEST(TaskRanges, RunTasksCoversEveryTaskWithValidThreadIndices) {
  for (int threads : {1, 2, 3, 7}) {
    for (long tasks : {0L, 1L, 2L, 5L, 97L}) {
      std::vector<std::atomic<int>> runs(tasks);
      for (auto& r : runs) r = 0;
      std::atomic<int> bad_thread{0};
      run_tasks(tasks, threads, [&](long task, int thread) {
        runs[task]++;
        if (thread < 0 || thread >= threads) bad_thread++;
      });
      for (long t = 0; t < tasks; t++) EXPECT_EQ(1, runs[t].load()) << threads << " threads, task " << t;
      EXPECT_EQ(0, bad_thread.load());
    }
  }
}
