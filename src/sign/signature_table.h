// SignatureTable: what the signing stage keeps of a corpus, and what every
// later stage (grouping, candidates, verification, report) reads.
//
// It holds the input files as walked, one DocRecord per document read (in
// input order: DocId k is docs[k]) and the signatures, num_perm() values per
// document, reached through SignatureView. A document that could not be
// signed (kind != kOk) keeps a row of UINT32_MAX values, so that row k always
// belongs to document k.
//
// The signatures lie in one of two ways, decided by how the table is filled:
//  - contiguous (Add, Resize, Append): one matrix the table owns, row after
//    row, which values() and MutableSignature() give;
//  - borrowed (AppendBorrowed): in segments of rows the table does not own,
//    such as the matrices of memory-mapped shard files (stage_report.cc),
//    each kept alive by a shared owner. Such a table is read-only and read
//    through signature() only; it costs no copy of the signatures.
//
// A document's identity is separate from the name it is written under: its key
// is (files[file].path, line), checked by the file's dev and inode, its size,
// mtime and content hash. Re-reads (--exact) open the file by that key; the
// output prints `name` (the path, a JSONL id or FILE:LINE).
//
// The table and its SignatureParams can be stored and read back
// (table_codec.h).
//
// Thread safety: a plain value (a copy of a borrowed table shares its
// segments' owners). Distinct rows may be written from distinct threads
// through MutableSignature(); signature() may be called from any number of
// threads while nothing writes.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/large_array_allocator.h"
#include "base/types.h"
#include "neardup/options.h"
#include "text/shingle.h"
#include "walk/walk.h"

namespace neardup {

// One document's signature: num_perm values, borrowed from a SignatureTable
// (or any buffer that outlives the view).
class SignatureView {
 public:
  SignatureView() = default;
  SignatureView(const uint32_t* data, size_t size) : data_(data), size_(size) {}
  const uint32_t* data() const { return data_; }
  size_t size() const { return size_; }
  uint32_t operator[](size_t k) const { return data_[k]; }
  const uint32_t* begin() const { return data_; }
  const uint32_t* end() const { return data_ + size_; }
  std::span<const uint32_t> span() const { return {data_, size_}; }

 private:
  const uint32_t* data_ = nullptr;
  size_t size_ = 0;
};

class SignatureTable {
 public:
  // REQUIRES: num_perm >= 1.
  explicit SignatureTable(int num_perm = 1) : num_perm_(static_cast<size_t>(num_perm)) {}

  int num_perm() const { return static_cast<int>(num_perm_); }
  size_t size() const { return docs.size(); }

  // Add, Resize and Append fill a contiguous table.
  // REQUIRES (all three): contiguous().

  // Appends a document with an unset signature (all UINT32_MAX); returns its id.
  DocId Add(DocRecord record) {
    assert(contiguous());
    docs.push_back(std::move(record));
    values_.resize(values_.size() + num_perm_, UINT32_MAX);
    return static_cast<DocId>(docs.size() - 1);
  }
  // Makes room for n documents, default records and unset signatures.
  void Resize(size_t n) {
    assert(contiguous());
    docs.resize(n);
    if (n * num_perm_ > values_.size() && n * num_perm_ * sizeof(uint32_t) >= kLargeArrayMinBytes) {
      // Every new row is written now (unset), so its pages are backed in one call first.
      values_.reserve(n * num_perm_);
      PrefaultForWrite(values_.data() + values_.size(), values_.data() + n * num_perm_);
    }
    values_.resize(n * num_perm_, UINT32_MAX);
  }
  // Makes room for n documents, default records and rows left as they are:
  // nothing is written to the new rows, so their pages are backed by whoever
  // writes them (the signing workers, in parallel: BackRows), not here.
  // REQUIRES: every new row is written (MutableSignature) before any read.
  void ResizeUnwritten(size_t n) {
    assert(contiguous());
    docs.resize(n);
    values_.resize(n * num_perm_);  // default-initialized: LargeArrayAllocator::construct
  }
  // Backs the pages of rows [from, to) in one call where the kernel can
  // (PrefaultForWrite), before they are written; their values are unchanged.
  void BackRows(DocId from, DocId to) {
    assert(contiguous());
    to = std::min<DocId>(to, static_cast<DocId>(docs.size()));
    if (from >= to) return;
    PrefaultForWrite(values_.data() + size_t{from} * num_perm_, values_.data() + size_t{to} * num_perm_);
  }
  // Room for `n` documents in all, so that filling up to n copies nothing.
  // The matrix's room is address space until written (large_array_allocator.h),
  // but for the chunk that Append backs ahead of its rows (PrefaultAhead).
  // Throws std::bad_alloc when the room cannot be had (under strict
  // overcommit, say); the documents are then unchanged.
  void Reserve(size_t n) {
    assert(contiguous());
    values_.reserve(n * num_perm_);
    docs.reserve(n);
  }
  // How many documents fit without a copy of the matrix.
  size_t capacity() const { return values_.capacity() / num_perm_; }
  // Appends `n` documents whose signatures are `values` (n * num_perm values).
  void Append(std::vector<DocRecord>&& records, std::span<const uint32_t> values) {
    assert(contiguous());
    for (DocRecord& r : records) docs.push_back(std::move(r));
    PrefaultAhead(values_.size() + values.size());
    values_.insert(values_.end(), values.begin(), values.end());
  }

  // Lets go of every document and its signature (the files stay), keeping
  // the matrix's room: a writer that streams the table takes its documents
  // out in blocks (SignContext::drain).
  // REQUIRES: contiguous().
  void ClearDocuments() {
    assert(contiguous());
    docs.clear();
    values_.clear();
  }

  // The signature matrix: num_perm() values per document, row after row.
  using Matrix = std::vector<uint32_t, LargeArrayAllocator<uint32_t>>;

  // Makes the table values.size() / num_perm() documents whose signatures
  // are `values`, taken over without a copy; their records are `records`
  // (taken over too) when it holds one per row, else default records.
  // REQUIRES: the table is empty and contiguous(); values.size() is a
  // multiple of num_perm().
  void AdoptMatrix(Matrix&& values, std::vector<DocRecord>&& records = {}) {
    assert(docs.empty() && contiguous() && values.size() % num_perm_ == 0);
    values_ = std::move(values);
    if (records.size() == values_.size() / num_perm_) {
      docs = std::move(records);
    } else {
      docs.resize(values_.size() / num_perm_);
    }
  }

  // Appends `records` with signatures that stay where they lie: row k of
  // `rows` (records.size() * num_perm() values) is records[k]'s signature.
  // The table keeps `owner` (say, a shared_ptr to the mapped file holding
  // `rows`) as long as it or a copy of it may read them, and never writes
  // them. Makes the table borrowed (contiguous() false) unless records is
  // empty.
  // REQUIRES: rows.size() == records.size() * num_perm(); the table holds no
  // signatures of its own (it is empty or was filled by AppendBorrowed
  // only); `rows` stays readable while `owner` lives.
  void AppendBorrowed(std::vector<DocRecord>&& records, std::span<const uint32_t> rows,
                      std::shared_ptr<const void> owner) {
    assert(values_.empty());
    assert(rows.size() == records.size() * num_perm_);
    if (records.empty()) return;
    segments_.push_back({.first = static_cast<DocId>(docs.size()), .rows = rows.data(), .owner = std::move(owner)});
    for (DocRecord& r : records) docs.push_back(std::move(r));
  }

  // Whether the signatures are the table's own single matrix: true unless
  // AppendBorrowed added documents.
  bool contiguous() const { return segments_.empty(); }

  // Document `id`'s signature, wherever it lies. Valid while the table lives
  // (and, if contiguous, is not grown).
  // REQUIRES: id < size(), or was before docs were moved out.
  SignatureView signature(DocId id) const {
    if (segments_.empty()) [[likely]] {
      return {values_.data() + id * num_perm_, num_perm_};
    }
    return BorrowedSignature(id);
  }
  // REQUIRES: contiguous().
  uint32_t* MutableSignature(DocId id) {
    assert(contiguous());
    return values_.data() + id * num_perm_;
  }
  // The whole matrix, row after row.
  // REQUIRES: contiguous() (a borrowed table has no matrix of its own).
  std::span<const uint32_t> values() const {
    assert(contiguous());
    return values_;
  }

  std::vector<InputFile> files;  // as walked, sorted by path
  std::vector<DocRecord> docs;   // indexed by DocId

 private:
  // Rows of documents first, first + 1, ... up to the next segment's first
  // (or the last document).
  struct Segment {
    DocId first = 0;
    const uint32_t* rows = nullptr;
    std::shared_ptr<const void> owner;
  };

  SignatureView BorrowedSignature(DocId id) const {
    // The last segment starting at or before `id` (the first starts at 0).
    const auto after =
        std::upper_bound(segments_.begin(), segments_.end(), id, [](DocId x, const Segment& s) { return x < s.first; });
    assert(after != segments_.begin());
    const Segment& s = *(after - 1);
    return {s.rows + size_t{id - s.first} * num_perm_, num_perm_};
  }

  // Backs the matrix's room up to `end` values and some way past it with
  // pages in one call (PrefaultForWrite), a chunk at a time, when it lies in
  // the room already reserved: so that Append writes into pages already
  // there, not one fault a page, and the room never written stays address
  // space.
  void PrefaultAhead(size_t end) {
    constexpr size_t kChunk = (size_t{4} << 20) / sizeof(uint32_t);
    if (values_.data() != prefaulted_base_) {
      prefaulted_base_ = values_.data();
      prefaulted_ = values_.size();
    }
    if (end <= prefaulted_ || end > values_.capacity()) return;
    if (values_.capacity() * sizeof(uint32_t) < kLargeArrayMinBytes) return;  // heap memory
    const size_t upto = std::min(values_.capacity(), std::max(end, prefaulted_ + kChunk));
    PrefaultForWrite(values_.data() + prefaulted_, values_.data() + upto);
    prefaulted_ = upto;
  }

  size_t num_perm_;
  Matrix values_;
  const uint32_t* prefaulted_base_ = nullptr;  // values_.data() when prefaulted_ was set
  size_t prefaulted_ = 0;                      // values backed from the start, as far as known
  std::vector<Segment> segments_;              // sorted by first; empty when contiguous
};

// Version of the text-to-shingles code (decode, normalize, tokenize). Raised
// whenever a change makes any document's shingle hashes differ, so that
// stored signatures of the old code are refused.
inline constexpr uint32_t kTokenizerVersion = 1;

// Which MinHash function made a signature from the shingle hashes (see
// sign/minhash.h): 0, each value mixed (v ^ (v >> 16)) before its minimum;
// 1, the plain min(a * x + b). Signatures of two definitions are never
// compared: a stored table or index of another one is refused or signed
// again.
inline constexpr uint32_t kMinHashVersion = 1;

// The parameters that shape a signature. Two signatures can be compared only
// if their SignatureParams are equal. Default: those of Options{}.
struct SignatureParams {
  ShingleUnit shingle = Options{}.shingle;
  int ngram = Options{}.EffectiveNgram();  // in effect (never 0)
  int num_perm = Options{}.num_perm;
  uint64_t seed = Options{}.seed;
  Encoding encoding = Options{}.encoding;
  Strip strip = Options{}.strip;
  uint32_t tokenizer_version = kTokenizerVersion;
  uint32_t minhash_version = kMinHashVersion;

  static SignatureParams From(const Options& options);

  // The canonical encoding of every field, kCanonicalSize bytes, all
  // little-endian: u8 shingle (0 word, 1 char), u8 encoding (0 utf8,
  // 1 latin1), u8 strip (0 none, 1 html, 2 mail: a zero byte before
  // --strip, so earlier encodings read as none), u8 zero, u32 ngram,
  // u32 num_perm, u64 seed, u32 tokenizer_version, u32 minhash_version (0 in
  // tables made before it was a field: the definition then). table_codec.h
  // stores this block as is.
  static constexpr size_t kCanonicalSize = 28;
  void AppendCanonical(std::string* out) const;
  // One 64-bit value standing for all fields: XXH3-64 (seed 0) of the
  // canonical encoding.
  uint64_t Fingerprint() const;
  // "--shingle word, --ngram 5, --num-perm 128, --seed 1, --encoding utf8, tokenizer 1, minhash 1",
  // with ", --strip html" before "tokenizer" when strip is not none.
  std::string Describe() const;
  // One line per field that differs, e.g. "--ngram: 5 here, 7 in the index".
  // `theirs_name` names where `other` comes from ("the index", "shard 3").
  std::vector<std::string> Differences(const SignatureParams& other, const std::string& theirs_name) const;
  friend bool operator==(const SignatureParams&, const SignatureParams&) = default;
};

}  // namespace neardup
