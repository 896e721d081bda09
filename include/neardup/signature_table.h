// SignatureTable: what the signing stage keeps of a corpus, and what every
// later stage (grouping, candidates, verification, report) reads.
//
// It holds the input files as walked, one DocRecord per document read (in
// input order: DocId k is docs[k]) and one contiguous matrix of signatures,
// num_perm() values per document, reached through SignatureView. A document
// that could not be signed (kind != kOk) keeps a row of UINT32_MAX values, so
// that row k always belongs to document k.
//
// A document's identity is separate from the name it is written under: its key
// is (files[file].path, line), checked by the file's dev and inode, its size,
// mtime and content hash. Re-reads (--exact) open the file by that key; the
// output prints `name` (the path, a JSONL id or FILE:LINE).
//
// The table and its SignatureParams can be stored and read back
// (table_codec.h).
//
// Thread safety: a plain value. Distinct rows may be written from distinct
// threads through MutableSignature().
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "neardup/corpus.h"
#include "neardup/huge_page_allocator.h"
#include "neardup/options.h"
#include "neardup/shingle.h"
#include "neardup/sorted_pairs.h"

namespace neardup {

// What became of a document once read. Only kOk documents have a signature.
enum class DocKind : uint8_t { kOk, kEmpty, kTooShort, kBinary, kFailed };

struct DocRecord {
  std::string name;       // as written in the output: path, JSONL id or FILE:LINE
  uint32_t file = 0;      // index into SignatureTable::files
  uint64_t line = 0;      // JSONL line number (from 1); 0 for a text file
  uint64_t size = 0;      // bytes of text
  int64_t mtime_ns = 0;   // of its file, when walked
  ContentHash content;    // of its normalized token text
  DocKind kind = DocKind::kFailed;
  bool reference = false;  // under an --against path
};

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

  // Appends a document with an unset signature (all UINT32_MAX); returns its id.
  DocId Add(DocRecord record) {
    docs.push_back(std::move(record));
    values_.resize(values_.size() + num_perm_, UINT32_MAX);
    return static_cast<DocId>(docs.size() - 1);
  }
  // Makes room for n documents, default records and unset signatures.
  void Resize(size_t n) {
    docs.resize(n);
    values_.resize(n * num_perm_, UINT32_MAX);
  }
  // Appends `n` documents whose signatures are `values` (n * num_perm values).
  void Append(std::vector<DocRecord>&& records, std::span<const uint32_t> values) {
    for (DocRecord& r : records) docs.push_back(std::move(r));
    values_.insert(values_.end(), values.begin(), values.end());
  }

  SignatureView signature(DocId id) const { return {values_.data() + id * num_perm_, num_perm_}; }
  uint32_t* MutableSignature(DocId id) { return values_.data() + id * num_perm_; }
  // The whole matrix, row after row.
  std::span<const uint32_t> values() const { return values_; }

  std::vector<InputFile> files;  // as walked, sorted by path
  std::vector<DocRecord> docs;   // indexed by DocId

 private:
  size_t num_perm_;
  std::vector<uint32_t, HugePageAllocator<uint32_t>> values_;
};

// Version of the text-to-shingles code (decode, normalize, tokenize). Raised
// whenever a change makes any document's shingle hashes differ, so that
// stored signatures of the old code are refused.
inline constexpr uint32_t kTokenizerVersion = 1;

// The parameters that shape a signature. Two signatures can be compared only
// if their SignatureParams are equal.
struct SignatureParams {
  ShingleUnit shingle = ShingleUnit::kWord;
  int ngram = 5;  // in effect (never 0)
  int num_perm = 128;
  uint64_t seed = 1;
  Encoding encoding = Encoding::kUtf8;
  uint32_t tokenizer_version = kTokenizerVersion;

  static SignatureParams From(const Options& options);

  // The canonical encoding of every field, kCanonicalSize bytes, all
  // little-endian: u8 shingle (0 word, 1 char), u8 encoding (0 utf8,
  // 1 latin1), u16 zero, u32 ngram, u32 num_perm, u64 seed,
  // u32 tokenizer_version, u32 zero. table_codec.h stores this block as is.
  static constexpr size_t kCanonicalSize = 28;
  void AppendCanonical(std::string* out) const;
  // One 64-bit value standing for all fields: XXH3-64 (seed 0) of the
  // canonical encoding.
  uint64_t Fingerprint() const;
  // "--shingle word, --ngram 5, --num-perm 128, --seed 1, --encoding utf8, tokenizer 1".
  std::string Describe() const;
  // One line per field that differs, e.g. "--ngram: 5 here, 7 in the index".
  // `theirs_name` names where `other` comes from ("the index", "shard 3").
  std::vector<std::string> Differences(const SignatureParams& other, const std::string& theirs_name) const;
  friend bool operator==(const SignatureParams&, const SignatureParams&) = default;
};

}  // namespace neardup
