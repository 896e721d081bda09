// Fuzz harnesses: the bodies of the libFuzzer entry points in tests/fuzz/.
//
// Each *_fuzz.cc defines one harness function and, unless
// NEARDUP_FUZZ_REPLAY is defined, LLVMFuzzerTestOneInput calling it. The
// fuzzers (built with -DNEARDUP_FUZZ=ON and clang) explore; the ordinary test
// suite compiles the same sources with NEARDUP_FUZZ_REPLAY and replays the
// seed corpora in tests/fuzz/corpus/<harness>/ through them in every build
// (tests/fuzz_replay_test.cc), so a crash once found stays fixed.
//
// A harness checks invariants with NEARDUP_FUZZ_CHECK, which calls the
// failure handler and returns false from the enclosing function (a bool
// helper). The default handler prints the check and aborts, so libFuzzer keeps
// the input; the replay test installs one that records a test failure.
//
// Thread safety: harnesses are called from one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace neardup::fuzz {

using FailureHandler = void (*)(const char* check, const char* file, int line);

inline void AbortOnFailure(const char* check, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", file, line, check);
  std::abort();
}

inline FailureHandler g_failure_handler = AbortOnFailure;

// Replaces the failure handler (nullptr restores the default).
inline void SetFailureHandler(FailureHandler handler) {
  g_failure_handler = handler != nullptr ? handler : AbortOnFailure;
}

// Each harness takes arbitrary bytes and returns 0 (libFuzzer's convention).
// decode_fuzz.cc: TextDecoder (UTF-8 and Latin-1, one-shot and chunked) ->
// Normalizer -> Shingler (word and char).
int DecodeFuzz(const uint8_t* data, size_t size);
// jsonl_fuzz.cc: LineSplitter (chunked) -> JsonlLineParser, checked against
// nlohmann::json.
int JsonlFuzz(const uint8_t* data, size_t size);
// glob_fuzz.cc: NUL-separated globs and a path -> GlobSet and GlobMatch.
int GlobFuzz(const uint8_t* data, size_t size);
// table_fuzz.cc: DecodeFrom (table_codec.h) on the bytes as given and with
// their checksum made to match; a decoded table re-encodes to the same bytes.
int TableFuzz(const uint8_t* data, size_t size);
// index_fuzz.cc: a damaged --index file (edits of a sound one, or a whole
// database) read as `scan --index` reads it and as `index check` does.
int IndexFuzz(const uint8_t* data, size_t size);
// bands_fuzz.cc: a sign/I.bands file (repaired to its header's size and
// checksums on request) -> BucketBands; its output passes the report's
// CheckBucketOutput.
int BandsFuzz(const uint8_t* data, size_t size);
// pairs_fuzz.cc: a bucket/J.pairs file (its checksum made to match on
// request) -> DecodeBucketOutput -> CheckBucketOutput; what passes maps into
// the merged table.
int PairsFuzz(const uint8_t* data, size_t size);
// meta_fuzz.cc: a sign/I.meta file -> DecodeShardMeta -> CheckShardMeta, and
// the same bytes as a completion marker -> ParseMarker.
int MetaFuzz(const uint8_t* data, size_t size);
// bitmaps_fuzz.cc: a sign/I.bitmaps file (repaired to its header's size and
// checksums on request) -> ShardBitmapsReader, every document read by id;
// what is read re-encodes to itself.
int BitmapsFuzz(const uint8_t* data, size_t size);
// strip_fuzz.cc: --strip's readers, MailText and HtmlText (after decoding),
// on any bytes: valid UTF-8 or a Corrupt status, collapsed white space.
int StripFuzz(const uint8_t* data, size_t size);

// --- Helpers shared by the harnesses ------------------------------------

// A splitmix64 stream: chunk sizes and choices derived from the input.
class SplitMix {
 public:
  explicit SplitMix(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, n). REQUIRES: n > 0.
  size_t Below(size_t n) { return static_cast<size_t>(Next() % n); }

 private:
  uint64_t state_;
};

// Well-formed UTF-8 per Unicode Table 3-7 (no overlongs, surrogates or code
// points above U+10FFFF), written independently of the decoder under test.
inline bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
      ++i;
      continue;
    }
    size_t need;
    unsigned lo = 0x80;
    unsigned hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      need = 1;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      need = 2;
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      need = 3;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (need >= s.size() - i) return false;  // truncated
    for (size_t k = 1; k <= need; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (b < (k == 1 ? lo : 0x80u) || b > (k == 1 ? hi : 0xBFu)) return false;
    }
    i += need + 1;
  }
  return true;
}

}  // namespace neardup::fuzz

// Checks an invariant inside a function returning bool.
#define NEARDUP_FUZZ_CHECK(cond)                                     \
  do {                                                               \
    if (!(cond)) {                                                   \
      ::neardup::fuzz::g_failure_handler(#cond, __FILE__, __LINE__); \
      return false;                                                  \
    }                                                                \
  } while (0)
