// BitmapGate: whether a scan's bitmaps (set_bitmap.h) are worth building,
// decided from its first documents while it signs.
//
// Bitmaps rule out the candidate pairs whose signature estimate reached the
// candidate floor but whose shingle sets cannot reach the threshold, before
// any document is read again. They pay where banding lets many such pairs
// through (mail at -t 0.5: 548,068 candidates for 1,292 pairs), and cost a
// pass over every shingle hash for nothing where it lets few (the bench's
// 100,000 documents at -t 0.5: 7,033 candidates for 6,903 pairs).
//
// The gate keeps the signatures of the first kReservoir documents signed,
// then compares each of the next kSample with them: a pair that shares a
// band (banding.h's rule: the same `rows` values) and whose estimate lies in
// [floor, threshold) is one a bitmap could rule out. From how often that
// happens it estimates such partners per document over the whole run (its
// bytes over the mean bytes of the documents seen), and below kWorthIt the
// documents signed after the decision get no bitmap; those signed before
// keep theirs. A run smaller than the reservoir and the sample never
// decides: every document gets its bitmap, as without the gate.
//
// Bitmaps only decide which documents are read again, never what is
// reported; which documents the threads happen to sign first decides a
// cost, never an answer.
//
// Thread safety: Wanted() and Signed() may be called from any thread.
//
//   BitmapGate gate({.bands = 35, .rows = 3, .floor = 0.37, .threshold = 0.5, .bytes = total});
//   if (gate.Wanted()) { /* build this document's bitmap */ }
//   gate.Signed(signature, document_bytes);
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

namespace neardup {

class BitmapGate {
 public:
  static constexpr size_t kReservoir = 256;
  static constexpr size_t kSample = 2048;
  // Partners per document a bitmap could rule out, below which none is
  // built.
  static constexpr double kWorthIt = 0.5;

  struct Params {
    int bands = 0;  // the run's banding (REQUIRES: bands * rows <= a signature's values)
    int rows = 0;
    double floor = 0;      // CandidateFloor(): a lower estimate is no candidate
    double threshold = 0;  // -t
    uint64_t bytes = 0;    // the run's input bytes, in all (an estimate will do)
  };
  explicit BitmapGate(const Params& params) : params_(params) {}
  BitmapGate(const BitmapGate&) = delete;
  BitmapGate& operator=(const BitmapGate&) = delete;

  // Whether the next document signed should get a bitmap.
  bool Wanted() const { return wanted_.load(std::memory_order_relaxed); }
  // A document was signed: its signature, and the bytes it was read from.
  void Signed(std::span<const uint32_t> signature, uint64_t bytes);
  // Once decided: the estimated partners per document a bitmap could rule
  // out; -1 before.
  double Estimate() const;

 private:
  void Decide();
  const Params params_;
  std::atomic<bool> wanted_{true};
  std::atomic<bool> decided_{false};
  mutable std::mutex mu_;
  std::vector<uint32_t> reservoir_;  // kReservoir signatures of bands * rows values
  size_t kept_ = 0;
  // Band key -> the reservoir documents with that band.
  std::unordered_map<uint64_t, std::vector<uint16_t>> bands_;
  std::vector<uint32_t> met_;  // per reservoir document: the last sample that counted it, + 1
  size_t sampled_ = 0;
  uint64_t partners_ = 0;
  uint64_t bytes_seen_ = 0;
  uint64_t docs_seen_ = 0;
  double estimate_ = -1;
};

}  // namespace neardup
