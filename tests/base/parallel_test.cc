#include "base/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace neardup {
namespace {

TEST(ParallelForTest, RunsEveryIndexOnceWithWorkerIndicesInRange) {
  for (int threads : {1, 2, 3, 8}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{1000}}) {
      for (bool with_tick : {false, true}) {
        std::vector<std::atomic<int>> seen(n);
        std::atomic<int> bad_worker{0};
        Workers w{.threads = threads, .tick = {}, .cancel = nullptr};
        if (with_tick) w.tick = [] {};
        ParallelFor(w, n, [&](int worker, size_t i) {
          if (worker < 0 || worker >= threads) ++bad_worker;
          ++seen[i];
        });
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << threads << " " << n << " " << i;
        EXPECT_EQ(bad_worker.load(), 0);
      }
    }
  }
}

TEST(ParallelForTest, TickRunsOnTheCallingThreadWhileItemsRun) {
  const auto caller = std::this_thread::get_id();
  std::atomic<int> ticks{0};
  std::atomic<int> ticks_elsewhere{0};
  std::atomic<int> items_on_caller{0};
  Workers w{.threads = 2, .tick = {}, .cancel = nullptr};
  w.tick = [&] {
    ++ticks;
    if (std::this_thread::get_id() != caller) ++ticks_elsewhere;
  };
  ParallelFor(w, 4, [&](int, size_t) {
    if (std::this_thread::get_id() == caller) ++items_on_caller;
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
  });
  EXPECT_GE(ticks.load(), 2);  // 240 ms of work, a tick at least every 50 ms
  EXPECT_EQ(ticks_elsewhere.load(), 0);
  EXPECT_EQ(items_on_caller.load(), 0);
}

TEST(ParallelForTest, CancelStopsNewItems) {
  std::atomic<bool> cancel{false};
  std::atomic<size_t> ran{0};
  Workers w{.threads = 2, .tick = {}, .cancel = &cancel};
  ParallelFor(w, 100000, [&](int, size_t i) {
    ++ran;
    if (i == 10) cancel = true;
  });
  EXPECT_LT(ran.load(), 1000u);
  EXPECT_TRUE(w.Cancelled());
}

TEST(OrderedWorkTest, CommitsInSubmissionOrderWhateverTheWorkTakes) {
  for (int threads : {1, 2, 4}) {
    std::vector<int> committed;
    std::atomic<int> in_flight_max{0};
    std::atomic<int> in_flight{0};
    Workers w{.threads = threads, .tick = {}, .cancel = nullptr};
    struct Item {
      int value = 0;
      int squared = 0;
    };
    const size_t window = 3;
    OrderedWork<Item> work(
        w, window,
        [&](int, Item& item) {
          const int now = ++in_flight;
          int seen = in_flight_max.load();
          while (now > seen && !in_flight_max.compare_exchange_weak(seen, now)) {
          }
          std::mt19937 rng(static_cast<unsigned>(item.value));
          std::this_thread::sleep_for(std::chrono::microseconds(rng() % 2000));
          item.squared = item.value * item.value;
          --in_flight;
        },
        [&](Item& item) {
          EXPECT_EQ(item.squared, item.value * item.value);
          committed.push_back(item.value);
        });
    for (int i = 0; i < 200; ++i) work.Submit(Item{.value = i, .squared = 0});
    work.Finish();
    ASSERT_EQ(committed.size(), 200u);
    for (int i = 0; i < 200; ++i) EXPECT_EQ(committed[static_cast<size_t>(i)], i);
    EXPECT_LE(in_flight_max.load(), static_cast<int>(window) + 1) << threads;
  }
}

TEST(ParallelForTest, AThrowStopsNewItemsAndIsRethrownOnceEveryWorkerIsJoined) {
  for (bool with_tick : {false, true}) {
    std::atomic<int> running{0};
    std::atomic<size_t> ran{0};
    Workers w{.threads = 3, .tick = {}, .cancel = nullptr};
    if (with_tick) w.tick = [] {};
    EXPECT_THROW(ParallelFor(w, 100000,
                             [&](int, size_t i) {
                               ++running;
                               ++ran;
                               std::this_thread::sleep_for(std::chrono::microseconds(50));
                               --running;
                               if (i == 10) throw std::runtime_error("item 10");
                             }),
                 std::runtime_error);
    EXPECT_EQ(running.load(), 0);  // no call still running once it returned
    EXPECT_LT(ran.load(), 1000u);
  }
}

TEST(BackgroundTaskTest, RunsAlongsideTheCallerAndJoinWaitsForIt) {
  std::atomic<bool> go{false};
  std::atomic<bool> done{false};
  BackgroundTask task([&] {
    while (!go.load()) std::this_thread::yield();
    done = true;
  });
  go = true;  // the task waits for the calling thread: it runs alongside it
  task.Join();
  EXPECT_TRUE(done.load());
  task.Join();  // a second Join returns at once
}

TEST(BackgroundTaskTest, JoinRethrowsAndTheDestructorJoinsQuietly) {
  {
    BackgroundTask task([] { throw std::runtime_error("writer"); });
    EXPECT_THROW(task.Join(), std::runtime_error);
  }
  std::atomic<bool> done{false};
  {
    BackgroundTask task([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      done = true;
      throw std::runtime_error("not rethrown by the destructor");
    });
  }
  EXPECT_TRUE(done.load());
}

TEST(WorkersTest, ResolveZeroIsTheNumberOfCores) {
  EXPECT_EQ(Workers::Resolve(3), 3);
  EXPECT_EQ(Workers::Resolve(0), std::max(1, static_cast<int>(std::thread::hardware_concurrency())));
}

}  // namespace
}  // namespace neardup
