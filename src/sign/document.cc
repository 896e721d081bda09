#include "sign/document.h"

#include <algorithm>

#include "base/hash_sort.h"

namespace neardup {
namespace {

// The shingle set being collected is sorted and deduplicated whenever it
// reaches twice its size after the last compaction (and at least this many).
constexpr size_t kMinSetCompaction = 64 * 1024;
// The set being built keeps its room for the next document up to this many
// shingles (8 MiB); a larger one's is given back.
constexpr size_t kKeptBuildingRoom = size_t{1} << 20;
// A word of English text with the space after it takes about 6 bytes, and
// each word starts one shingle at most.
constexpr uint64_t kBytesPerShingleGuess = 6;

}  // namespace

DocumentReader::DocumentReader(const Options& options, const MinHasher& minhasher)
    : minhasher_(minhasher),
      min_words_(options.min_words),
      max_bytes_(options.max_filesize),
      decoder_(options.encoding),
      shingler_(options.shingle, options.EffectiveNgram(), options.seed),
      buffer_(new char[kBufferSize]) {}

void DocumentReader::Begin(uint32_t* sig, std::vector<uint64_t>* set, uint64_t bytes) {
  decoder_.Reset();
  normalizer_.Reset();
  shingler_.Reset();
  token_text_.clear();
  sig_ = sig;
  set_ = set;
  if (sig_ != nullptr) minhasher_.Init(sig_);
  if (set_ != nullptr) set_->clear();
  building_.clear();
  // With a set, its size is the count.
  counting_ = count_shingles_ && set_ == nullptr;
  if (counting_) distinct_.Reset(bytes / kBytesPerShingleGuess);
  set_compact_at_ = kMinSetCompaction;
}

// Sorts and deduplicates the set being built, so that it holds at most about
// twice the distinct shingles however often they repeat in the text.
// Shingle hashes are uniformly random: SortByHash's partitions by the top
// bits sort them about three times faster than std::sort.
void DocumentReader::CompactSet() {
  internal::SortByHash(building_, set_scratch_, set_ends_);
  building_.erase(std::unique(building_.begin(), building_.end()), building_.end());
  set_compact_at_ = std::max(kMinSetCompaction, 2 * building_.size());
}

void DocumentReader::set_token_sink(TokenSink sink) {
  token_sink_ = std::move(sink);
  shingler_.set_token_text(token_sink_ ? &token_text_ : nullptr);
}

void DocumentReader::Drain() {
  if (!token_text_.empty()) {
    token_sink_(token_text_);
    token_text_.clear();
  }
  std::vector<uint64_t>& sh = shingler_.shingles();
  if (sh.empty()) return;
  if (sig_ != nullptr) minhasher_.Update(sh.data(), sh.size(), sig_);
  if (bitmap_ != nullptr) bitmap_->Add(sh);
  if (counting_) distinct_.Add(sh);
  if (set_ != nullptr) {
    building_.insert(building_.end(), sh.begin(), sh.end());
    if (building_.size() >= set_compact_at_) CompactSet();
  }
  sh.clear();
}

void DocumentReader::Feed(std::string_view bytes) {
  utf8_.clear();
  decoder_.Feed(bytes, &utf8_);
  normalized_.clear();
  normalizer_.Feed(utf8_, &normalized_);
  shingler_.Feed(normalized_);
  Drain();
}

void DocumentReader::End(DocumentSketch* out) {
  utf8_.clear();
  decoder_.Finish(&utf8_);
  normalized_.clear();
  normalizer_.Feed(utf8_, &normalized_);
  normalizer_.Finish(&normalized_);
  shingler_.Feed(normalized_);
  shingler_.Finish();
  Drain();
  out->words = shingler_.words();
  out->replaced = decoder_.stats().replaced;
  out->transcoded = decoder_.stats().transcoded;
  out->content = shingler_.content_hash();
  if (out->words == 0) {
    out->kind = DocumentSketch::Kind::kEmpty;
  } else if (out->words < min_words_) {
    out->kind = DocumentSketch::Kind::kTooShort;
  } else {
    out->kind = DocumentSketch::Kind::kOk;
  }
  if (set_ != nullptr) {
    // One allocation of the final size: growing each document's own vector
    // and then shrinking it took fresh memory several times a document, and
    // each first touch of fresh memory is a page fault.
    CompactSet();
    set_->assign(building_.begin(), building_.end());
    if (building_.capacity() > kKeptBuildingRoom) std::vector<uint64_t>().swap(building_);
    out->shingles = set_->size();
  } else if (counting_) {
    out->shingles = distinct_.count();
  }
}

Status DocumentReader::ReadStream(ByteReader& in, uint32_t* sig, std::vector<uint64_t>* set, DocumentSketch* out) {
  Begin(sig, set, expected_bytes_);
  expected_bytes_ = 0;
  *out = DocumentSketch();
  bool first = true;
  // The binary test wants a whole first block, which one read may not give.
  size_t filled = 0;
  for (;;) {
    Result<size_t> got = in.Read(buffer_.get() + filled, kBufferSize - filled);
    if (!got.ok()) return got.status();
    const size_t n = *got;
    if (max_bytes_ != 0 && out->bytes + filled + n > max_bytes_) {
      out->bytes += filled + n;
      out->kind = DocumentSketch::Kind::kTooLarge;
      return Status::Ok();
    }
    if (first) {
      filled += n;
      if (n != 0 && filled < kBinaryProbe) continue;
      first = false;
      if (LooksBinary(std::string_view(buffer_.get(), std::min(filled, kBinaryProbe)))) {
        out->bytes = filled;
        out->kind = DocumentSketch::Kind::kBinary;
        return Status::Ok();
      }
      out->bytes += filled;
      Feed(std::string_view(buffer_.get(), filled));
      filled = 0;
      if (n == 0) break;
      continue;
    }
    if (n == 0) break;
    out->bytes += n;
    Feed(std::string_view(buffer_.get(), n));
  }
  End(out);
  return Status::Ok();
}

void DocumentReader::ReadText(std::string_view text, uint32_t* sig, std::vector<uint64_t>* set, DocumentSketch* out) {
  Begin(sig, set, text.size());
  *out = DocumentSketch();
  out->bytes = text.size();
  // Feed in slices so the decoder's and normalizer's buffers stay small.
  for (size_t pos = 0; pos < text.size(); pos += kBufferSize) {
    Feed(text.substr(pos, kBufferSize));
  }
  End(out);
}

}  // namespace neardup
