// SetBitmap: a document's shingle hashes folded into a bitmap of 8 to 16 bits
// a shingle, from which an upper bound on the Jaccard similarity of two
// documents follows with certainty. --exact rules out with it, before it
// reads any document again, the candidate pairs whose shingle sets cannot
// reach the threshold (RulesOut(), lsh/similarity.h): banding drops them
// (lsh/candidates.h), and only the documents of the pairs left are read
// again, sorted and merged.
//
// Bit i of a bitmap of level L is set when some hash added has i as its top L
// bits. A bitmap folds to level L-1 by OR-ing its bits 2i and 2i+1 into bit i,
// so two bitmaps of different levels compare at the lower one. There, for
// sets A and B with bitmaps of pA and pB bits set and `both` bits set in
// each:
//
//   |A n B| <= both + min(|A| - pA, |B| - pB)
//
// (within one bit, A and B share at most the smaller of their hashes there,
// and a bit holds one hash of A plus |A_i| - 1 more), and |A| >= the bits of
// A's own bitmap. The bound takes the hashes added, repeats included, for
// |A|: it only grows. So JaccardBound() is never below the Jaccard of the
// two sets; equal sets give at least 1. Shingle hashes are uniform, so the
// bits of two documents' different shingles rarely meet and the bound is
// close: on mail at -t 0.5 it rules out 95% of the pairs above the
// candidate floor, which the merge would have rejected.
//
// Memory: a bitmap holds at most 4 bits a byte of the text it was built from
// (SetBitmapBuilder::Finish), 1 to 2 bytes a shingle of English words.
//
// Thread safety: a SetBitmap is a plain value; one SetBitmapBuilder per
// thread.
//
//   SetBitmapBuilder b;  b.Begin(text.size());  b.Add(hashes);
//   SetBitmap bits = b.Finish(text.size());
//   if (JaccardBound(bits, other, &scratch) < t) { /* cannot reach t */ }
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace neardup {

struct SetBitmap {
  std::vector<uint64_t> words;  // 2^level bits; empty: no bitmap (nothing is bounded)
  uint64_t most = 0;            // >= the set's size: hashes added, less the repeats seen
  uint64_t least = 0;           // <= the set's size: bits set before the fold
  uint64_t bits = 0;            // bits set in `words`
  uint8_t level = 0;
  bool empty() const { return words.empty(); }
  // Heap bytes held.
  size_t bytes() const { return words.capacity() * sizeof(uint64_t); }
};

class SetBitmapBuilder {
 public:
  // The least level (one word) and the most (8 MiB).
  static constexpr int kMinLevel = 6;
  static constexpr int kMaxLevel = 26;
  // Repeats are looked for in a table of up to 2^kSlotLevel hashes (8 MiB),
  // so in documents of up to about 256 KiB of text.
  static constexpr int kSlotLevel = 20;

  SetBitmapBuilder() = default;
  SetBitmapBuilder(const SetBitmapBuilder&) = delete;
  SetBitmapBuilder& operator=(const SetBitmapBuilder&) = delete;

  // Starts a document of about `bytes` bytes of text: the bitmap is built at
  // 8 bits a byte (then folded). 0 (unknown): no bitmap is built, and
  // Finish() returns an empty one.
  void Begin(uint64_t bytes);
  // Adds shingle hashes (repeats allowed).
  void Add(std::span<const uint64_t> hashes);
  // The bitmap of the hashes added since Begin(), folded to the level of 8 to
  // 16 bits a member, and to at most 4 bits a byte of `bytes` (the text's
  // size as read). Empty when Begin() was given 0 or nothing was added.
  SetBitmap Finish(uint64_t bytes);

 private:
  std::vector<uint64_t> scratch_;
  int level_ = 0;  // of scratch_; 0: not building
  uint64_t hashes_ = 0;
  // Per bit of scratch_, the first hash that set it: a hash equal to it
  // again is a repeat, not a new member of the set. Up to kSlotLevel.
  std::vector<uint64_t> slots_;
  bool find_repeats_ = false;
  uint64_t repeats_ = 0;
  uint64_t met_ = 0;  // hashes whose bit was set already
};

// An upper bound on the Jaccard similarity of the shingle sets that `a` and
// `b` were built from (see above); 1 when either is empty. `scratch` holds
// the fold of the finer bitmap (reused between calls).
double JaccardBound(const SetBitmap& a, const SetBitmap& b, std::vector<uint64_t>* scratch);
// An upper bound on the containment |A n B| / |A| of either set in the
// other (--relation contains|both), from the same count: that count over the
// least size of the smaller bitmap; 1 when either is empty.
double ContainmentBound(const SetBitmap& a, const SetBitmap& b, std::vector<uint64_t>* scratch);

namespace internal {
// Folds `n` words of bitmap (n even) one level in place: bit i of the first
// n/2 words becomes bit 2i | bit 2i+1 of the n words.
void FoldBitmap(uint64_t* words, size_t n);
// The same, by one of its versions (tests; the AVX-512 one REQUIRES
// FoldBitmapAvx512Supported(), the AVX2 one FoldBitmapAvx2Supported()).
void FoldBitmapPortable(uint64_t* words, size_t n);
void FoldBitmapAvx512(uint64_t* words, size_t n);
bool FoldBitmapAvx512Supported();
void FoldBitmapAvx2(uint64_t* words, size_t n);
bool FoldBitmapAvx2Supported();
}  // namespace internal

}  // namespace neardup
