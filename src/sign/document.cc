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
      max_bytes_(options.max_filesize != 0 || options.strip == Strip::kNone ? options.max_filesize : options.max_line),
      strip_(options.strip),
      encoding_(options.encoding),
      decoder_(options.encoding),
      shingler_(options.shingle, options.EffectiveNgram(), options.seed),
      buffer_(new char[kBufferSize]) {}

void DocumentReader::Begin(uint32_t* sig, std::vector<uint64_t>* set, uint64_t bytes) {
  decoder_.Reset();
  normalizer_.Reset();
  shingler_.Reset();
  token_text_.clear();
  whole_.clear();
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
  if (strip_ != Strip::kNone) {
    whole_.append(bytes);
    return;
  }
  FeedWhole(bytes);
}

void DocumentReader::FeedWhole(std::string_view bytes) {
  utf8_.clear();
  decoder_.Feed(bytes, &utf8_);
  normalized_.clear();
  normalizer_.Feed(utf8_, &normalized_);
  shingler_.Feed(normalized_);
  Drain();
}

void DocumentReader::FeedText(std::string_view utf8) {
  while (!utf8.empty()) {
    size_t n = std::min(utf8.size(), kBufferSize);
    while (n < utf8.size() && (static_cast<unsigned char>(utf8[n]) & 0xC0) == 0x80) --n;  // n > 0: a lead byte
    normalized_.clear();
    normalizer_.Feed(utf8.substr(0, n), &normalized_);
    shingler_.Feed(normalized_);
    Drain();
    utf8.remove_prefix(n);
  }
}

Status DocumentReader::FeedStripped() {
  Status s;
  if (strip_ == Strip::kMail) {
    s = MailText(whole_, encoding_, &stripped_);
  } else {
    utf8_.clear();
    decoder_.Feed(whole_, &utf8_);
    decoder_.Finish(&utf8_);
    s = HtmlText(utf8_, &stripped_);
  }
  whole_.clear();
  if (whole_.capacity() > kBufferSize) std::string().swap(whole_);
  if (utf8_.capacity() > kBufferSize) std::string().swap(utf8_);
  if (!s.ok()) return s;
  FeedText(stripped_);
  if (stripped_.capacity() > kBufferSize) std::string().swap(stripped_);
  return Status::Ok();
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
  if (strip_ != Strip::kNone) {
    if (Status s = FeedStripped(); !s.ok()) return s;
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
    FeedWhole(text.substr(pos, kBufferSize));
  }
  End(out);
}

}  // namespace neardup
