#include "base/parallel.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>

namespace neardup {

int Workers::Resolve(int threads) {
  return threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

void ParallelFor(const Workers& workers, size_t n, const std::function<void(int worker, size_t i)>& fn) {
  if (n == 0) return;
  const int threads = static_cast<int>(std::min<size_t>(static_cast<size_t>(std::max(1, workers.threads)), n));
  std::atomic<size_t> next{0};
  std::atomic<int> running{threads};
  std::atomic<bool> failing{false};
  std::exception_ptr failed;  // the first exception of fn, under `mu`
  std::mutex mu;
  std::condition_variable all_done;
  auto work = [&](int w) {
    try {
      for (size_t i = next++; i < n && !workers.Cancelled() && !failing.load(std::memory_order_relaxed); i = next++) {
        fn(w, i);
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mu);
      if (!failed) failed = std::current_exception();
      failing = true;
    }
    if (--running == 0) {
      std::lock_guard<std::mutex> lock(mu);
      all_done.notify_all();
    }
  };
  {
    // Joined when the block ends, however it ends (a thread that cannot be
    // started throws std::system_error from emplace_back).
    std::vector<std::jthread> pool;
    if (!workers.tick) {
      // The calling thread is worker 0.
      for (int w = 1; w < threads; ++w) pool.emplace_back(work, w);
      work(0);
    } else {
      // The calling thread only reports progress: its wake-ups cost nothing.
      for (int w = 0; w < threads; ++w) pool.emplace_back(work, w);
      std::unique_lock<std::mutex> lock(mu);
      while (running.load() > 0) {
        lock.unlock();
        workers.tick();
        lock.lock();
        all_done.wait_for(lock, std::chrono::milliseconds(50), [&] { return running.load() == 0; });
      }
    }
  }
  if (failed) std::rethrow_exception(failed);
}

}  // namespace neardup
