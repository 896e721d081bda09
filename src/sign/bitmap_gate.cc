#include "sign/bitmap_gate.h"

#include "base/hash.h"
#include "sign/minhash.h"

namespace neardup {

namespace {

// The key of band `band` of a signature: its values and its index hashed.
uint64_t BandKey(const uint32_t* values, int rows, int band) {
  return HashBytes(values, static_cast<size_t>(rows) * sizeof(uint32_t), static_cast<uint64_t>(band) + 1);
}

}  // namespace

void BitmapGate::Signed(std::span<const uint32_t> signature, uint64_t bytes) {
  if (decided_.load(std::memory_order_relaxed)) return;
  const int n = params_.bands * params_.rows;
  if (n <= 0 || signature.size() < static_cast<size_t>(n)) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (decided_.load(std::memory_order_relaxed)) return;
  bytes_seen_ += bytes;
  ++docs_seen_;
  if (kept_ < kReservoir) {
    reservoir_.insert(reservoir_.end(), signature.begin(), signature.begin() + n);
    for (int b = 0; b < params_.bands; ++b) {
      bands_[BandKey(signature.data() + b * params_.rows, params_.rows, b)].push_back(static_cast<uint16_t>(kept_));
    }
    ++kept_;
    met_.push_back(0);
    return;
  }
  ++sampled_;
  for (int b = 0; b < params_.bands; ++b) {
    const auto it = bands_.find(BandKey(signature.data() + b * params_.rows, params_.rows, b));
    if (it == bands_.end()) continue;
    for (const uint16_t r : it->second) {
      if (met_[r] == sampled_) continue;  // counted for an earlier band
      met_[r] = static_cast<uint32_t>(sampled_);
      const double e = SignatureAgreement(signature.data(), reservoir_.data() + static_cast<size_t>(r) * n, n);
      if (e >= params_.floor && e < params_.threshold) ++partners_;
    }
  }
  if (sampled_ == kSample) Decide();
}

void BitmapGate::Decide() {
  // Partners found per sampled document, against kReservoir documents;
  // over the run's documents, as many more as they outnumber the reservoir.
  const double mean_bytes = static_cast<double>(bytes_seen_) / static_cast<double>(docs_seen_);
  const double docs = mean_bytes > 0 ? static_cast<double>(params_.bytes) / mean_bytes : 0;
  estimate_ = static_cast<double>(partners_) / static_cast<double>(sampled_) * docs / static_cast<double>(kReservoir);
  wanted_.store(estimate_ >= kWorthIt, std::memory_order_relaxed);
  decided_.store(true, std::memory_order_relaxed);
  std::vector<uint32_t>().swap(reservoir_);
  std::unordered_map<uint64_t, std::vector<uint16_t>>().swap(bands_);
}

double BitmapGate::Estimate() const {
  std::lock_guard<std::mutex> lock(mu_);
  return estimate_;
}

}  // namespace neardup
