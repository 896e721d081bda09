#include "index/text_store_stream.h"

#include <exception>
#include <string>

namespace neardup {

void TextStoreStream::Run() {
  try {
    for (size_t k = 0; k < state_.size(); ++k) {
      uint8_t st = state_[k].load(std::memory_order_acquire);
      while (st == kPending) {
        bool over = false;
        {
          std::unique_lock<std::mutex> lock(mu_);
          over = cv_.wait_for(lock, kPoll, [&] { return signing_over_; });
        }
        st = state_[k].load(std::memory_order_acquire);
        if (st == kPending && over) return;  // signing stopped before file k
      }
      if (st == kFailed) continue;
      status_ = store_(k);
      if (!status_.ok()) return;
    }
  } catch (const std::exception& e) {
    status_ = Status::Internal(std::string("writing the index: ").append(e.what()));
  }
}

}  // namespace neardup
