// Parallel work for the stages: one helper for independent items
// (ParallelFor), one for a stream of items whose results must be taken in
// order (OrderedWork), and one for a single task that runs alongside the
// calling thread (BackgroundTask). Every thread the library starts is started
// by one of these; among them: the signing and LSH pools, the walk's directory listers
// (ParallelFor over one loop per lister), the read of the index beside the
// walk (ParallelFor over two items), the index's bulk load and its
// write-behind thread. (libzstd's own workers, which compress the .zst files
// of --kept-dir beside the thread that feeds them, are libzstd's.)
//
// Progress and cancellation go through the Workers value: while items run,
// the calling thread calls `tick` every 50 ms (and so does no item work
// itself); without a tick it runs items as worker 0. Once `cancel` reads
// true, no new item starts.
//
// Thread safety: the functions given are called from several threads at
// once, each call with its worker index in [0, threads).
//
//   ParallelFor(workers, files.size(), [&](int w, size_t i) { Sign(w, files[i]); });
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace neardup {

struct Workers {
  int threads = 1;                            // >= 1
  std::function<void()> tick;                 // may be empty
  const std::atomic<bool>* cancel = nullptr;  // may be null
  bool Cancelled() const { return cancel != nullptr && cancel->load(std::memory_order_relaxed); }
  // `threads` from Options::threads: 0 means the number of cores.
  static int Resolve(int threads);
};

// Calls fn(worker, i) once for every i in [0, n), items taken in ascending
// order by whichever worker is free. Returns when all have returned (or, when
// cancelled, when the started ones have). Uses min(threads, n) workers.
// Exceptions: when a call of `fn` throws, no new item starts, every worker is
// joined, and the first exception is rethrown on the calling thread.
void ParallelFor(const Workers& workers, size_t n, const std::function<void(int worker, size_t i)>& fn);

// One function run on a thread of its own while the calling thread goes on
// (a writer that follows the workers, say). Join() waits for it to return
// and rethrows an exception that left it; the destructor joins too (without
// rethrowing), so the thread is joined on every way out.
// REQUIRES: before the destructor runs, `fn` has returned or has been told
// to (the destructor waits for it).
class BackgroundTask {
 public:
  explicit BackgroundTask(std::function<void()> fn);
  ~BackgroundTask();
  BackgroundTask(const BackgroundTask&) = delete;
  BackgroundTask& operator=(const BackgroundTask&) = delete;

  // Waits for `fn` to return; rethrows what it threw. Later calls return at once.
  void Join();

 private:
  std::exception_ptr error_;  // set by the thread before it ends
  std::thread thread_;
};

// A stream of items: the calling thread Submit()s them in order; `work` runs
// on a pool of workers; `commit` is then called on the calling thread with
// each item in submission order. At most `window` items are in flight:
// Submit() waits (committing finished items and ticking) while it is full.
// REQUIRES: Finish() before destruction if anything was submitted.
template <typename Item>
class OrderedWork {
 public:
  using WorkFn = std::function<void(int worker, Item& item)>;
  using CommitFn = std::function<void(Item& item)>;

  OrderedWork(const Workers& workers, size_t window, WorkFn work, CommitFn commit)
      : workers_(workers), window_(window < 1 ? 1 : window), work_(std::move(work)), commit_(std::move(commit)) {
    for (int w = 0; w < workers_.threads; ++w) pool_.emplace_back([this, w] { Loop(w); });
  }
  ~OrderedWork() { Stop(); }
  OrderedWork(const OrderedWork&) = delete;
  OrderedWork& operator=(const OrderedWork&) = delete;

  void Submit(Item item) {
    auto slot = std::make_shared<Slot>();
    slot->item = std::move(item);
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(slot);
      order_.push_back(slot);
    }
    work_cv_.notify_one();
    Drain(false);
  }
  // Waits for every item and commits the rest; stops the workers.
  void Finish() {
    Drain(true);
    Stop();
  }

 private:
  struct Slot {
    Item item;
    bool done = false;
  };

  void Loop(int worker) {
    for (;;) {
      std::shared_ptr<Slot> slot;
      {
        std::unique_lock<std::mutex> lock(mu_);
        work_cv_.wait(lock, [&] { return closing_ || !queue_.empty(); });
        if (queue_.empty()) return;
        slot = queue_.front();
        queue_.pop_front();
      }
      if (!workers_.Cancelled()) work_(worker, slot->item);
      {
        std::lock_guard<std::mutex> lock(mu_);
        slot->done = true;
      }
      done_cv_.notify_all();
    }
  }

  // Commits finished items in order; with `all`, waits for every item,
  // else only while the window is full.
  void Drain(bool all) {
    for (;;) {
      std::shared_ptr<Slot> slot;
      {
        std::unique_lock<std::mutex> lock(mu_);
        if (order_.empty()) return;
        while (!order_.front()->done) {
          if (!all && order_.size() < window_) return;
          if (workers_.tick) {
            lock.unlock();
            workers_.tick();
            lock.lock();
            done_cv_.wait_for(lock, std::chrono::milliseconds(50), [&] { return order_.front()->done; });
          } else {
            done_cv_.wait(lock, [&] { return order_.front()->done; });
          }
        }
        slot = order_.front();
        order_.pop_front();
      }
      commit_(slot->item);
    }
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closing_ = true;
    }
    work_cv_.notify_all();
    for (auto& t : pool_) {
      if (t.joinable()) t.join();
    }
  }

  const Workers workers_;
  const size_t window_;
  WorkFn work_;
  CommitFn commit_;
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<std::shared_ptr<Slot>> queue_;  // waiting for a worker
  std::deque<std::shared_ptr<Slot>> order_;  // submitted, not yet committed
  bool closing_ = false;
  std::vector<std::thread> pool_;
};

}  // namespace neardup
