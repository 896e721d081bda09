// TextStoreStream: stores the text files a run with an index signs while
// they are signed, so that the index's work overlaps signing instead of
// following it (IndexUpdate, sign_indexed.cc).
//
// A writer thread stores file k (through `store`) once it is signed, in
// ascending order, and the index ends as if every file had been stored after
// signing. Workers mark each file through Done() (an atomic store, no lock,
// no wake-up: waking the writer for each file cost more CPU than the
// writes); the writer looks every kPoll for what is ready, and Finish()
// wakes it for the rest. Nothing is written past the first file left
// unsigned (an interrupted run). The writer is a BackgroundTask
// (base/parallel.h), joined on every way out.
//
// Thread safety: Done() from any thread; the rest from the thread that made it.
//
//   TextStoreStream stream(m, [&](size_t k) { return StoreTextFile(k); });
//   stream.Done(k, ok);  // from the workers, as file k is signed
//   Status s = stream.Finish();
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "base/parallel.h"
#include "neardup/status.h"

namespace neardup {

class TextStoreStream {
 public:
  using StoreFn = std::function<Status(size_t k)>;

  TextStoreStream(size_t files, StoreFn store) : store_(std::move(store)), state_(files), writer_([this] { Run(); }) {}
  ~TextStoreStream() { SigningOver(); }  // then writer_, the last member, is joined
  TextStoreStream(const TextStoreStream&) = delete;
  TextStoreStream& operator=(const TextStoreStream&) = delete;

  // File k is signed (ok: without a problem). From any thread.
  void Done(size_t k, bool ok) { state_[k].store(ok ? kSigned : kFailed, std::memory_order_release); }
  // Signing is over: writes what is left and returns the first error.
  Status Finish() {
    SigningOver();
    writer_.Join();
    return status_;
  }

 private:
  enum State : uint8_t { kPending, kSigned, kFailed };
  static constexpr std::chrono::milliseconds kPoll{2};

  void SigningOver() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      signing_over_ = true;
    }
    cv_.notify_one();
  }

  // The writer: stores each file once signed, in order, until the first
  // error or the first file left unsigned.
  void Run();

  const StoreFn store_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::atomic<uint8_t>> state_;  // by file: State (value-initialized: kPending)
  bool signing_over_ = false;                // guarded by mu_
  Status status_;                            // the writer's, read once it is joined
  BackgroundTask writer_;                    // last: started once the rest is built, joined first
};

}  // namespace neardup
