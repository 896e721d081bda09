// Normalizer: NFKC + full case folding with utf8proc. See
// src/text/normalize.h.
//
// Segments. Normalization (case fold, compatibility decomposition, canonical
// reordering, composition) only looks across a position p when the code point
// at p is not a "boundary": text may be cut before a code point c, and both
// sides normalized apart, when the mapping of c (case fold + NFKD, as utf8proc
// computes it) starts with a code point s that
//   - has canonical combining class 0 (so reordering never crosses it), and
//   - is never the second code point of a canonical composition pair (so it
//     cannot compose with the starter before it; this excludes the Hangul
//     vowel and trailing jamo U+1160..U+11FF and the few class-0 second
//     code points such as Tamil U+0BBE and Kannada U+0CD5).
// Once s is written, everything after it composes with s or later code points,
// never with the text before the cut. Every ASCII character, every CJK
// ideograph, kana, Hangul syllable and most letters are boundaries; the
// halfwidth voiced mark U+FF9E (which maps to combining U+3099) and combining
// marks are not. The set of second code points is derived once from utf8proc's
// own decomposition data, so it follows the library's Unicode version.
//
// ASCII fast path. Text is scanned 16 bytes at a time for a byte >= 0x80.
// ASCII runs are copied unchanged; a Unicode segment starts at the ASCII
// character just before the first non-ASCII byte (it may be the base of a
// combining mark) and runs until an ASCII character followed by another ASCII
// character (both boundaries), so that single spaces between, say, Korean
// words do not break a segment into many small utf8proc calls.
//
// Unchanged characters. Most characters of most scripts (lowercase letters,
// precomposed accented letters, CJK, kana, Hangul) are boundaries that
// normalize to themselves ("inert"). A cluster of one inert character is
// copied instead of going through utf8proc; the class of every BMP code point
// is computed once, on first use (about 10 ms), into two 8 KiB bitsets.
//
// Clean runs. Most of a text in a Latin, Greek or Cyrillic script is already
// normalized: lowercase letters (ASCII or two bytes, such as U+00E9), spaces,
// punctuation such as U+2019. Where a segment would start, a vector scan
// (tokenize_kernel.h: CleanPrefixFn, chosen with the tokenizer's kernel)
// measures the run of such "clean" characters, all inert, and the run up to
// its last character is copied in one piece: exactly what the segment would
// write for it, since each is a cluster of its own that is copied. (An
// uppercase ASCII letter is clean only when not followed by a non-ASCII
// byte: only then does the segment leave it unfolded.)
//
// Bounded memory. Feed holds back the text from the last boundary on, since
// what comes next may combine with it. A run of more than kMaxRun bytes with
// no boundary (only pathological text: hundreds of stacked combining marks)
// gets a forced cut at the first code point kMaxRun bytes or more after the
// last boundary or forced cut. Forced cuts depend only on the text, never on
// the chunking, so Feed's output still does not depend on chunk boundaries;
// it differs from normalizing the whole text at once only in such runs.
#include "text/normalize.h"

#include <utf8proc.h>

#include <algorithm>
#include <bitset>
#include <cassert>
#include <cstring>

#include "base/ascii.h"
#include "base/utf8.h"
#include "text/tokenize_kernel.h"

namespace neardup {
namespace {

// Longest run without a boundary before a forced cut.
constexpr size_t kMaxRun = 256;
// A Unicode segment longer than this ends at the next boundary (this bounds
// the utf8proc work buffer, not the output).
constexpr size_t kMaxSegment = 16 * 1024;
// "No position": no end found, no inert cluster pending.
constexpr size_t kNoPos = std::string_view::npos;
// Room for the mapping of one code point (the longest, U+FDFA, has 18).
constexpr utf8proc_ssize_t kMaxMapping = 32;

const utf8proc_option_t kOptions =
    static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD);

// Decodes the code point at p[i..n) into *cp and returns its length in bytes.
// An invalid or truncated sequence gives *cp = -1 and length 1.
size_t DecodeAt(const unsigned char* p, size_t i, size_t n, int32_t* cp) {
  const Utf8Char c = DecodeUtf8Char(p + i, n - i);
  if (c.status != Utf8Status::kValid) {
    *cp = -1;
    return 1;
  }
  *cp = static_cast<int32_t>(c.code_point);
  return c.length;
}

}  // namespace

bool internal::HasCanonicalDecomposition(int32_t cp) {
  const utf8proc_property_t* prop = utf8proc_get_property(cp);
  // decomp_type 0 is a canonical decomposition.
  return prop->decomp_seqindex != UINT16_MAX && prop->decomp_type == 0;
}

namespace {

// Code points that are the second of a canonical decomposition (and so may
// compose with a preceding starter), from utf8proc's own tables. Built once
// per process, from internal::kDecomposingPlanes: all 17 planes took about
// 4 ms, a third of a run over one small file.
class CompositionSeconds {
 public:
  CompositionSeconds() {
    utf8proc_int32_t buf[kMaxMapping];
    for (const int plane : internal::kDecomposingPlanes) {
      for (int32_t cp = plane << 16; cp < (plane + 1) << 16; ++cp) {
        if (cp >= 0xD800 && cp <= 0xDFFF) continue;
        if (!internal::HasCanonicalDecomposition(cp)) continue;
        int boundclass = 0;
        const utf8proc_ssize_t len = utf8proc_decompose_char(cp, buf, kMaxMapping, UTF8PROC_DECOMPOSE, &boundclass);
        // Conservative: every code point after the first of a full canonical
        // decomposition counts as a possible second.
        for (utf8proc_ssize_t k = 1; k < std::min(len, kMaxMapping); ++k) {
          Add(buf[k]);
        }
      }
    }
    std::sort(astral_.begin(), astral_.end());
    astral_.erase(std::unique(astral_.begin(), astral_.end()), astral_.end());
  }

  bool Contains(int32_t cp) const {
    if (cp < 0x10000) return bmp_.test(static_cast<size_t>(cp));
    return std::binary_search(astral_.begin(), astral_.end(), cp);
  }

 private:
  void Add(int32_t cp) {
    if (cp < 0) return;
    if (cp < 0x10000) {
      bmp_.set(static_cast<size_t>(cp));
    } else {
      astral_.push_back(cp);
    }
  }

  std::bitset<0x10000> bmp_;
  std::vector<int32_t> astral_;
};

const CompositionSeconds& Seconds() {
  static const CompositionSeconds seconds;
  return seconds;
}

enum class CharClass {
  kNone,      // text may not be cut before it
  kBoundary,  // text may be cut before it (see the top of this file)
  kInert,     // a boundary that normalizes to itself
};

// True when the code point alone is unchanged by normalization.
bool NormalizesToItself(int32_t cp) {
  utf8proc_uint8_t utf8[4];
  const utf8proc_ssize_t bytes = utf8proc_encode_char(cp, utf8);
  utf8proc_int32_t buf[kMaxMapping];
  utf8proc_ssize_t len = utf8proc_decompose(utf8, bytes, buf, kMaxMapping, kOptions);
  if (len < 1 || len > kMaxMapping) return false;
  len = utf8proc_normalize_utf32(buf, len, kOptions);
  return len == 1 && buf[0] == cp;
}

CharClass ComputeClass(int32_t cp) {
  if (cp < 0 || cp >= 0x110000 || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return CharClass::kNone;
  }
  // Hangul syllables map to a leading jamo, which composes with nothing
  // before it, and recompose to themselves. (Listed here because utf8proc
  // decomposes them by formula, not from its tables.)
  if (cp >= 0xAC00 && cp <= 0xD7A3) return CharClass::kInert;
  const utf8proc_property_t* prop = utf8proc_get_property(cp);
  int32_t first = cp;
  bool maps_to_itself = true;
  if (prop->decomp_seqindex != UINT16_MAX || prop->casefold_seqindex != UINT16_MAX) {
    utf8proc_int32_t buf[kMaxMapping];
    int boundclass = 0;
    const utf8proc_ssize_t len = utf8proc_decompose_char(cp, buf, kMaxMapping, kOptions, &boundclass);
    if (len < 1) return CharClass::kNone;
    first = buf[0];
    prop = utf8proc_get_property(first);
    maps_to_itself = false;
  }
  if (prop->combining_class != 0) return CharClass::kNone;
  if (first >= 0x1160 && first <= 0x11FF) return CharClass::kNone;  // V, T jamo
  if (Seconds().Contains(first)) return CharClass::kNone;
  // A precomposed letter such as U+00E9 decomposes and composes back.
  return maps_to_itself || NormalizesToItself(cp) ? CharClass::kInert : CharClass::kBoundary;
}

// ComputeClass() for the Basic Multilingual Plane, computed once (a few ms).
class BmpClasses {
 public:
  BmpClasses() {
    for (int32_t cp = 0; cp < 0x10000; ++cp) {
      const CharClass cls = ComputeClass(cp);
      boundary_[static_cast<size_t>(cp)] = cls != CharClass::kNone;
      inert_[static_cast<size_t>(cp)] = cls == CharClass::kInert;
    }
  }

  CharClass Get(int32_t cp) const {
    const auto at = static_cast<size_t>(cp);
    if (inert_[at]) return CharClass::kInert;
    return boundary_[at] ? CharClass::kBoundary : CharClass::kNone;
  }

 private:
  std::bitset<0x10000> boundary_;
  std::bitset<0x10000> inert_;
};

const BmpClasses& Bmp() {
  static const BmpClasses classes;
  return classes;
}

// The normalization of one BMP code point on its own, for the boundary code
// points that are not inert (capitals, compatibility forms such as U+00A0 or
// full-width punctuation): a cluster of one of them is replaced by its
// mapping without a utf8proc call. Built once, with utf8proc, on first use.
class BmpMappings {
 public:
  explicit BmpMappings(const BmpClasses& classes) {
    index_.assign(0x10000, 0);
    entries_.push_back(Entry{});  // index 0: no mapping
    utf8proc_int32_t buf[kMaxMapping];
    for (int32_t cp = 0x80; cp < 0x10000; ++cp) {
      if (classes.Get(cp) != CharClass::kBoundary) continue;
      utf8proc_uint8_t utf8[4];
      const utf8proc_ssize_t bytes = utf8proc_encode_char(cp, utf8);
      utf8proc_ssize_t len = utf8proc_decompose(utf8, bytes, buf, kMaxMapping - 1, kOptions);
      if (len < 1 || len >= kMaxMapping) continue;
      len = utf8proc_reencode(buf, len, kOptions);
      if (len < 1 || len > static_cast<utf8proc_ssize_t>(sizeof(Entry::bytes))) continue;
      Entry e{};
      e.length = static_cast<uint8_t>(len);
      std::memcpy(e.bytes, buf, static_cast<size_t>(len));
      assert(entries_.size() < 0x10000);
      index_[static_cast<size_t>(cp)] = static_cast<uint16_t>(entries_.size());
      entries_.push_back(e);
    }
  }

  // The mapping of `cp` alone, or empty when none is stored.
  std::string_view Get(int32_t cp) const {
    if (cp < 0 || cp >= 0x10000) return {};
    const Entry& e = entries_[index_[static_cast<size_t>(cp)]];
    return std::string_view(e.bytes, e.length);
  }

 private:
  struct Entry {
    uint8_t length = 0;
    char bytes[15] = {};
  };
  std::vector<uint16_t> index_;
  std::vector<Entry> entries_;
};

const BmpMappings& Mappings() {
  static const BmpMappings mappings(Bmp());
  return mappings;
}

// The lead bytes whose inert two-byte characters the clean-prefix scan
// accepts (one bit each): Latin-1, Latin Extended-A, Greek, Cyrillic.
constexpr unsigned char kCleanLeads[8] = {0xC2, 0xC3, 0xC4, 0xC5, 0xCE, 0xCF, 0xD0, 0xD1};

// The clean-prefix scan's tables (src/text/tokenize_kernel.h): exactly the inert
// characters among those it can accept, so that a clean character is one
// that Process() would copy as a cluster of its own.
const internal::CleanTables& CleanTablesForScan() {
  static const internal::CleanTables tables = [] {
    const BmpClasses& classes = Bmp();
    internal::CleanTables t{};
    for (unsigned k = 0; k < 8; ++k) {
      const unsigned lead = kCleanLeads[k];
      t.lead[lead & 0x3F] = static_cast<uint8_t>(1u << k);
      for (unsigned c = 0; c < 64; ++c) {
        const auto cp = static_cast<int32_t>(((lead & 0x1Fu) << 6) | c);
        if (classes.Get(cp) == CharClass::kInert) t.cont[c] |= static_cast<uint8_t>(1u << k);
      }
    }
    for (unsigned c = 0; c < 64; ++c) {
      if (classes.Get(static_cast<int32_t>(0x2000 | c)) == CharClass::kInert) t.e280[c] = 0xFF;
    }
    return t;
  }();
  return tables;
}

// Called once or twice per character: inlined, a table lookup for the BMP.
[[gnu::always_inline]] inline CharClass Classify(int32_t cp) {
  if (cp < 0) return CharClass::kNone;
  if (cp < 0x80) {
    return cp >= 'A' && cp <= 'Z' ? CharClass::kBoundary : CharClass::kInert;
  }
  if (cp < 0x10000) {
    static const BmpClasses& classes = Bmp();
    return classes.Get(cp);
  }
  return ComputeClass(cp);
}

// Offset of the first boundary in text[0..limit), or npos.
size_t FirstBoundary(std::string_view text, size_t limit) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = std::min(text.size(), limit);
  for (size_t i = 0; i < n;) {
    int32_t cp;
    const size_t len = DecodeAt(p, i, text.size(), &cp);
    if (Classify(cp) != CharClass::kNone) return i;
    i += len;
  }
  return std::string_view::npos;
}

}  // namespace

Normalizer::Normalizer()
    : clean_prefix_(internal::CleanPrefixFor(internal::DefaultTokenizerKernel())),
      clean_tables_(&CleanTablesForScan()) {}

void Normalizer::NormalizeSegment(std::string_view segment, std::string* out) {
  if (segment.empty()) return;
  const auto* s = reinterpret_cast<const utf8proc_uint8_t*>(segment.data());
  const auto len = static_cast<utf8proc_ssize_t>(segment.size());
  if (codepoints_.empty()) codepoints_.resize(256);
  // utf8proc_reencode writes a terminating NUL after the UTF-8 bytes, which
  // needs one slot beyond the code points: offer the decomposition size - 1.
  auto room = static_cast<utf8proc_ssize_t>(codepoints_.size()) - 1;
  utf8proc_ssize_t count = utf8proc_decompose(s, len, codepoints_.data(), room, kOptions);
  if (count > room) {
    codepoints_.resize(static_cast<size_t>(count) + 1);
    room = count;
    count = utf8proc_decompose(s, len, codepoints_.data(), room, kOptions);
  }
  if (count < 0 || count > room) {
    out->append(segment);  // invalid UTF-8: copy it, never fail
    return;
  }
  const utf8proc_ssize_t bytes = utf8proc_reencode(codepoints_.data(), count, kOptions);
  if (bytes < 0) {
    out->append(segment);
    return;
  }
  out->append(reinterpret_cast<const char*>(codepoints_.data()), static_cast<size_t>(bytes));
}

// Writes one Unicode segment of Process()'s text. The segment is a sequence of
// clusters, each a boundary code point and the non-boundary ones after it. A
// cluster of one inert code point is copied, a cluster of one mapped code
// point is replaced by its mapping, and runs of other clusters go through
// utf8proc. Since clusters start at boundaries, how they are grouped does not
// change the output.
// Lives on Process()'s stack for one segment; every method is inlined there,
// so that the writer's positions stay in registers. Not thread-safe (it
// writes through its Normalizer).
class Normalizer::SegmentWriter {
 public:
  // The segment starts at `start`, a boundary; text[start..first_high) is at
  // most one ASCII character (the possible base of a combining mark).
  [[gnu::always_inline]] SegmentWriter(Normalizer* normalizer, std::string_view text, size_t start, size_t first_high,
                                       std::string* out)
      : normalizer_(normalizer),
        text_(text),
        p_(reinterpret_cast<const unsigned char*>(text.data())),
        n_(text.size()),
        start_(start),
        out_(out),
        done_(start),
        cut_(start),
        cut_inert_(start < first_high && Classify(p_[start]) == CharClass::kInert) {}

  // Step 1: reads the clusters from `i` on. Returns where the segment ends (a
  // boundary or a forced cut), or kNoPos when the text ends inside it.
  [[gnu::always_inline]] size_t Scan(size_t i) {
    while (i < n_) {
      if (p_[i] < 0x80) {
        // Every ASCII character is a boundary. Two in a row: back to the
        // ASCII fast path.
        if ((i + 1 < n_ && p_[i + 1] < 0x80) || i - start_ >= kMaxSegment) return i;
        NextCluster(i, Classify(p_[i]) == CharClass::kInert);
        ++i;
        continue;
      }
      int32_t cp;
      const size_t len = DecodeAt(p_, i, n_, &cp);
      const CharClass cls = Classify(cp);
      if (cls != CharClass::kNone) {
        if (i - start_ >= kMaxSegment) return i;
        NextCluster(i, cls == CharClass::kInert, cls == CharClass::kBoundary ? Mappings().Get(cp) : std::string_view());
        if (cls == CharClass::kInert) {
          i = SkipInertRun(i + len);
          continue;
        }
      } else if (i - cut_ >= kMaxRun) {
        return i;  // forced cut: normalize the pieces on either side apart
      } else {
        cut_inert_ = false;  // the cluster has more than one code point
        cut_mapped_ = {};
      }
      i += len;
    }
    return kNoPos;
  }

  // Step 2 (end of the segment): writes it up to `end`, where the cluster at
  // cut_ is complete (or empty, when end == cut_).
  [[gnu::always_inline]] void Flush(size_t end) {
    NextCluster(end, false);
    WritePending(end);
  }

  // Step 2 (end of the text, more to come): the last cluster may continue in
  // the next chunk. Writes the segment up to it; returns where it starts.
  [[gnu::always_inline]] size_t HoldBackLastCluster() {
    const size_t keep = cut_;
    cut_inert_ = false;
    cut_mapped_ = {};
    Flush(keep);
    return keep;
  }

 private:
  // Completes the cluster [cut_, at) and starts a new one at `at`; `mapped`
  // is the new cluster's mapping when it is one mapped code point.
  [[gnu::always_inline]] void NextCluster(size_t at, bool inert, std::string_view mapped = {}) {
    if (at > cut_) {
      if (cut_inert_) {
        if (inert_from_ == kNoPos) inert_from_ = cut_;
      } else if (!cut_mapped_.empty()) {
        // Write what comes before the cluster, then its mapping.
        WritePending(cut_);
        out_->append(cut_mapped_);
        done_ = at;
      } else if (inert_from_ != kNoPos) {
        WritePending(cut_);
      }
    }
    cut_ = at;
    cut_inert_ = inert;
    cut_mapped_ = mapped;
  }

  // A run of inert non-ASCII characters from `i` on (most of a word of most
  // scripts), after an inert cluster: each completes the one-character
  // cluster before it, which is what NextCluster(i, true) does after an inert
  // cluster. Returns where the run ends.
  [[gnu::always_inline]] size_t SkipInertRun(size_t i) {
    static const BmpClasses& classes = Bmp();
    while (i < n_ && p_[i] >= 0x80 && i - start_ < kMaxSegment) {
      int32_t next;
      size_t next_len;
      const unsigned lead = p_[i];
      if (lead - 0xC2u <= 0xDFu - 0xC2u && i + 1 < n_ && (p_[i + 1] & 0xC0u) == 0x80) {
        // Two bytes (Latin, Greek, Cyrillic...): decoded inline.
        next = static_cast<int32_t>(((lead & 0x1Fu) << 6) | (p_[i + 1] & 0x3Fu));
        next_len = 2;
        if (classes.Get(next) != CharClass::kInert) break;
      } else {
        next_len = DecodeAt(p_, i, n_, &next);
        if (Classify(next) != CharClass::kInert) break;
      }
      if (inert_from_ == kNoPos) inert_from_ = cut_;
      cut_ = i;
      i += next_len;
    }
    return i;
  }

  // Writes text[done_, end): up to inert_from_ through utf8proc, the inert
  // clusters from there on copied.
  [[gnu::always_inline]] void WritePending(size_t end) {
    if (inert_from_ == kNoPos) {
      normalizer_->NormalizeSegment(text_.substr(done_, end - done_), out_);
    } else {
      normalizer_->NormalizeSegment(text_.substr(done_, inert_from_ - done_), out_);
      out_->append(text_.substr(inert_from_, end - inert_from_));
      inert_from_ = kNoPos;
    }
    done_ = end;
  }

  Normalizer* const normalizer_;
  const std::string_view text_;
  const unsigned char* const p_;
  const size_t n_;
  const size_t start_;  // of the segment
  std::string* const out_;
  size_t done_;                  // output written up to here
  size_t inert_from_ = kNoPos;   // start of the inert clusters before cut_
  size_t cut_;                   // start of the current cluster
  bool cut_inert_;               // the current cluster is one inert code point
  std::string_view cut_mapped_;  // its mapping, when it is one mapped code point
};

size_t Normalizer::Process(std::string_view text, bool final, std::string* out) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t pos = 0;  // always a boundary or forced cut
  while (pos < n) {
    const size_t first_high = pos + AsciiPrefix(p + pos, n - pos);
    if (first_high == n) {
      // ASCII to the end. The last character may be the base of a combining
      // mark in the next chunk: hold it back.
      const size_t keep = final ? n : n - 1;
      out->append(text.substr(pos, keep - pos));
      return keep;
    }
    size_t start = pos;                            // of the Unicode segment
    if (first_high > pos) start = first_high - 1;  // the ASCII character before it
    if (clean_prefix_ != nullptr && n - start >= internal::kCleanPrefixReads) {
      // Already normalized text from `start` on (a boundary) is copied whole
      // up to a clean character, itself a boundary: what the segment would
      // write for it, since every clean character is a cluster of its own
      // that is copied (and an uppercase ASCII letter is clean only when not
      // followed by a byte >= 0x80, so never inside a segment).
      const size_t clean = clean_prefix_(p + start, *clean_tables_);
      if (clean > 0) {
        out->append(text.substr(pos, start + clean - pos));
        pos = start + clean;
        continue;
      }
    }
    out->append(text.substr(pos, start - pos));
    SegmentWriter segment(this, text, start, first_high, out);
    const size_t end = segment.Scan(first_high);
    if (end == kNoPos) {  // the text ended inside the segment
      if (!final) return segment.HoldBackLastCluster();
      segment.Flush(n);
      return n;
    }
    segment.Flush(end);
    pos = end;
  }
  return n;
}

void Normalizer::Feed(std::string_view utf8, std::string* out) {
  if (utf8.empty()) return;
  if (!carry_.empty()) {
    // The held-back tail ends where the first boundary of the new text
    // starts; normalize the two together up to there. Looking further than
    // kMaxRun is pointless: a forced cut would come first.
    const size_t boundary = FirstBoundary(utf8, kMaxRun + 4);
    scratch_.assign(carry_);
    carry_.clear();
    if (boundary == std::string_view::npos) {
      scratch_.append(utf8);
      const size_t keep = Process(scratch_, /*final=*/false, out);
      carry_.assign(scratch_, keep);
      return;
    }
    scratch_.append(utf8.substr(0, boundary));
    const size_t keep = Process(scratch_, /*final=*/true, out);
    assert(keep == scratch_.size());
    (void)keep;
    utf8.remove_prefix(boundary);
  }
  const size_t keep = Process(utf8, /*final=*/false, out);
  carry_.assign(utf8.substr(keep));
}

void Normalizer::Finish(std::string* out) {
  if (carry_.empty()) return;
  scratch_.swap(carry_);
  carry_.clear();
  const size_t keep = Process(scratch_, /*final=*/true, out);
  assert(keep == scratch_.size());
  (void)keep;
}

std::string NormalizeText(std::string_view utf8) {
  Normalizer normalizer;
  std::string out;
  normalizer.Feed(utf8, &out);
  normalizer.Finish(&out);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace neardup
