// DocumentReader: one document's bytes -> its MinHash signature, content hash
// and counts, streaming.
//
// Bytes flow through a fixed buffer: decode (TextDecoder) -> normalize
// (Normalizer) -> shingle (Shingler) -> fold into the signature (MinHasher),
// chunk by chunk, so a multi-gigabyte file is read with memory bounded by the
// buffer (and, when the shingle set is asked for, by the set: repeats are
// removed as the set grows, so at most about twice the set is held).
// With Options::max_filesize, reading stops once more bytes than that came
// out of the reader (a compressed file counts its decompressed bytes): the
// document is kTooLarge.
//
// With Options::strip (html, mail) a document is held whole and stripped
// (html_text.h, mail_text.h) before it is normalized: the bound is then
// Options::max_filesize, or Options::max_line when that is 0 (a larger
// document is kTooLarge), and a document that cannot be stripped is an
// error of ReadStream(). ReadText() never strips: a JSONL text is stripped
// by JsonlDocReader, where a failure is the line's problem.
//
// Thread safety: one DocumentReader per thread; it reuses its buffers.
//
//   DocumentReader reader(options, minhasher);
//   Status s = reader.ReadStream(*byte_reader, sig.data(), nullptr, &sketch);
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/options.h"
#include "neardup/status.h"
#include "sign/distinct_count.h"
#include "sign/minhash.h"
#include "sign/set_bitmap.h"
#include "text/decode.h"
#include "text/html_text.h"
#include "text/mail_text.h"
#include "text/normalize.h"
#include "text/shingle.h"
#include "walk/file_system.h"

namespace neardup {

struct DocumentSketch {
  // kTooLarge: more than Options::max_filesize bytes were read; reading stopped.
  enum class Kind : uint8_t { kOk, kEmpty, kTooShort, kBinary, kTooLarge };
  Kind kind = Kind::kOk;
  uint64_t bytes = 0;  // bytes read (after decompression)
  uint64_t words = 0;
  // Distinct shingle hashes: the size of the document's shingle set, exact
  // (DistinctCounter); 0 unless the set was built or the count asked for
  // (DocumentReader::set_count_shingles).
  uint64_t shingles = 0;
  uint64_t replaced = 0;  // invalid sequences replaced by U+FFFD
  bool transcoded = false;
  ContentHash content;
};

class DocumentReader {
 public:
  // Size of the read buffer and of the block tested for binary content.
  static constexpr size_t kBufferSize = 256 * 1024;
  static constexpr size_t kBinaryProbe = 64 * 1024;

  // `minhasher` must outlive the reader.
  DocumentReader(const Options& options, const MinHasher& minhasher);
  DocumentReader(const DocumentReader&) = delete;
  DocumentReader& operator=(const DocumentReader&) = delete;

  // Reads `in` to its end. Writes the signature (num_perm values) to `sig`
  // when not null, and the sorted unique shingle set to `*set` when not null.
  // A file whose first block looks binary stops early with kind kBinary; one
  // with more than Options::max_filesize bytes stops there with kTooLarge
  // (the signature and set are then meaningless).
  // Returns the reader's error (the sketch is then meaningless).
  Status ReadStream(ByteReader& in, uint32_t* sig, std::vector<uint64_t>* set, DocumentSketch* out);

  // When set, every ReadStream()/ReadText() hands the document's token text
  // (Shingler::set_token_text) to `sink`, a piece after each chunk, so a
  // document of any size can be compared token by token with another.
  // Empty: no token text (the default).
  using TokenSink = std::function<void(std::string_view)>;
  void set_token_sink(TokenSink sink);

  // When set, every ReadStream()/ReadText() adds the document's shingle
  // hashes to `bitmap` (the caller calls its Begin() before and Finish()
  // after). Null: none (the default). REQUIRES: `bitmap` outlives its use.
  void set_bitmap(SetBitmapBuilder* bitmap) { bitmap_ = bitmap; }
  SetBitmapBuilder* bitmap() const { return bitmap_; }

  // Whether every ReadStream()/ReadText() counts the document's distinct
  // shingles into DocumentSketch::shingles (DistinctCounter) when it builds
  // no set (with a set, the count is its size, free). Default: false: the
  // count is a hash-table insert a shingle, which took 13% to 20% more CPU
  // of a `scan -j 1` of 20,000 generated files (gen_corpus --seed 7), so
  // only a run that uses it asks.
  void set_count_shingles(bool count) { count_shingles_ = count; }

  // The size the next ReadStream() expects its text to have, in bytes (the
  // file's size; 0, the default, when unknown), which only sizes the
  // distinct-shingle count: a wrong guess costs time, not exactness.
  void expect_bytes(uint64_t bytes) { expected_bytes_ = bytes; }

  // The same for a text already in memory (a JSONL document); no binary test.
  void ReadText(std::string_view text, uint32_t* sig, std::vector<uint64_t>* set, DocumentSketch* out);

 private:
  // `bytes`: the text's expected size, 0 when unknown (sizes the count).
  void Begin(uint32_t* sig, std::vector<uint64_t>* set, uint64_t bytes);
  // Holds `bytes` whole with strip_, else FeedWhole().
  void Feed(std::string_view bytes);
  // Decodes, normalizes and shingles `bytes`.
  void FeedWhole(std::string_view bytes);
  // Normalizes and shingles `utf8`, in slices that end on code points.
  void FeedText(std::string_view utf8);
  // With strip_: strips the document held in whole_ and feeds its text.
  Status FeedStripped();
  void End(DocumentSketch* out);
  void Drain();
  void CompactSet();

  const MinHasher& minhasher_;
  uint64_t min_words_;
  uint64_t max_bytes_;  // 0: no limit
  Strip strip_;
  Encoding encoding_;
  std::string whole_;     // with strip_: the document's bytes, held whole
  std::string stripped_;  // with strip_: its text
  TextDecoder decoder_;
  Normalizer normalizer_;
  Shingler shingler_;
  std::unique_ptr<char[]> buffer_;
  std::string utf8_;
  std::string normalized_;
  TokenSink token_sink_;
  SetBitmapBuilder* bitmap_ = nullptr;
  DistinctCounter distinct_;     // DocumentSketch::shingles, when no set is built
  uint64_t expected_bytes_ = 0;  // expect_bytes()
  bool count_shingles_ = false;  // set_count_shingles()
  bool counting_ = false;        // this document: count_shingles_ and no set
  std::string token_text_;
  uint32_t* sig_ = nullptr;
  std::vector<uint64_t>* set_ = nullptr;
  std::vector<uint64_t> building_;     // the set being collected, kept for reuse
  size_t set_compact_at_ = 0;          // compact building_ when it reaches this size
  std::vector<uint64_t> set_scratch_;  // CompactSet()'s working space, kept for reuse
  std::vector<uint32_t> set_ends_;
};

}  // namespace neardup
