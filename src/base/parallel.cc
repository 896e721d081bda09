#include "base/parallel.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <utility>

namespace neardup {

int Workers::Resolve(int threads) {
  return threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

void ParallelFor(const Workers& workers, size_t n, const std::function<void(int worker, size_t i)>& fn) {
  if (n == 0) return;
  const int threads = static_cast<int>(std::min<size_t>(static_cast<size_t>(std::max(1, workers.threads)), n));
  std::atomic<size_t> next{0};
  std::atomic<int> running{threads};
  std::mutex mu;
  std::condition_variable all_done;
  std::exception_ptr error;  // the first exception of `fn`; guarded by mu
  auto work = [&](int w) {
    try {
      for (size_t i = next++; i < n && !workers.Cancelled(); i = next++) fn(w, i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (error == nullptr) error = std::current_exception();
      next = n;  // no new item starts
    }
    if (--running == 0) {
      std::lock_guard<std::mutex> lock(mu);
      all_done.notify_all();
    }
  };
  {
    std::vector<std::jthread> pool;  // joined on every way out, a throw of `tick` included
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
  if (error != nullptr) std::rethrow_exception(error);
}

BackgroundTask::BackgroundTask(std::function<void()> fn)
    : thread_([this, fn = std::move(fn)] {
        try {
          fn();
        } catch (...) {
          error_ = std::current_exception();
        }
      }) {}

BackgroundTask::~BackgroundTask() {
  if (thread_.joinable()) thread_.join();
}

void BackgroundTask::Join() {
  if (!thread_.joinable()) return;
  thread_.join();
  if (error_ != nullptr) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace neardup
