// TextDecoder: bytes -> valid UTF-8. See src/text/decode.h.
//
// UTF-8 validation is DecodeUtf8Char() (utf8.h: Unicode Table 3-7), and each
// maximal subpart of an ill-formed sequence becomes one U+FFFD (the practice
// of Unicode section 3.9 and the W3C Encoding Standard). Runs of valid
// input are appended to the output in one piece; ASCII is scanned 16 bytes at
// a time. Before that, the chunk up to its last (maybe incomplete) sequence
// goes through simdjson's validator (vectorized, dispatched at run time to the
// processor's best kernel): valid text, the common case, is appended whole
// without being decoded a character at a time; only a chunk with an
// ill-formed sequence takes the character loop.
#include "text/decode.h"

#include <simdjson.h>

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstring>

#include "base/ascii.h"
#include "base/utf8.h"

namespace neardup {
namespace {

// Bytes of new input looked at to resolve a carried sequence (a carry is at
// most 3 bytes; the longest sequence is 4 bytes in UTF-8, 4 in UTF-16).
constexpr size_t kLookahead = 8;

void AppendReplacement(std::string* out, DecodeStats* stats) {
  out->append(kUtf8Replacement);
  ++stats->replaced;
}

// Decodes UTF-8 in p[0..n) and returns the number of bytes consumed. Unless
// `final`, stops before a sequence at the end that is valid so far but
// incomplete (the caller carries it over).
// Where the last sequence of p[0..n) starts if it may be incomplete (its lead
// byte announces more bytes than are left), else n.
size_t CompletePrefix(const unsigned char* p, size_t n) {
  size_t j = n;
  while (j > 0 && n - j < 4 && (p[j - 1] & 0xC0) == 0x80) --j;
  if (j == 0) return n;  // only continuation bytes: ill-formed, no lead to wait on
  const unsigned char lead = p[j - 1];
  const size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  return n - (j - 1) < want ? j - 1 : n;
}

size_t DecodeUtf8(const unsigned char* p, size_t n, bool final, std::string* out, DecodeStats* stats) {
  const char* const chars = reinterpret_cast<const char*>(p);
  size_t i = 0;
  // Valid text is appended as it is: what the loop below would do, at
  // memory speed.
  const size_t prefix = CompletePrefix(p, n);
  if (prefix > 0 && simdjson::validate_utf8(chars, prefix)) {
    out->append(chars, prefix);
    i = prefix;
    if (i == n) return n;
  }
  size_t run = i;  // start of the valid bytes not yet appended
  while (true) {
    i += AsciiPrefix(p + i, n - i);
    if (i >= n) break;
    const Utf8Char c = DecodeUtf8Char(p + i, n - i);
    if (c.status == Utf8Status::kValid) [[likely]] {
      i += c.length;
      continue;
    }
    out->append(chars + run, i - run);
    if (c.status == Utf8Status::kTruncated && !final) return i;
    // p[i..i+length) is a maximal subpart: one U+FFFD, then resume at the
    // byte that broke the sequence.
    AppendReplacement(out, stats);
    i += c.length;
    run = i;
  }
  out->append(chars + run, n - run);
  return n;
}

// Decodes UTF-16 in p[0..n) and returns the number of bytes consumed. Unless
// `final`, stops before an odd trailing byte or a trailing high surrogate.
size_t DecodeUtf16(const unsigned char* p, size_t n, bool big_endian, bool final, std::string* out,
                   DecodeStats* stats) {
  const auto unit = [p, big_endian](size_t at) -> uint32_t {
    return big_endian ? (uint32_t{p[at]} << 8) | p[at + 1] : uint32_t{p[at]} | (uint32_t{p[at + 1]} << 8);
  };
  size_t i = 0;
  while (i + 2 <= n) {
    const uint32_t u = unit(i);
    if (u < 0xD800 || u > 0xDFFF) {
      AppendUtf8(u, out);
      i += 2;
    } else if (u >= 0xDC00) {  // low surrogate without a high one
      AppendReplacement(out, stats);
      i += 2;
    } else if (i + 4 > n) {  // high surrogate, its partner not seen yet
      if (!final) return i;
      AppendReplacement(out, stats);
      i += 2;
    } else {
      const uint32_t low = unit(i + 2);
      if (low >= 0xDC00 && low <= 0xDFFF) {
        AppendUtf8(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00), out);
        i += 4;
      } else {
        AppendReplacement(out, stats);  // the next unit is decoded on its own
        i += 2;
      }
    }
  }
  if (i < n) {  // one odd byte
    if (!final) return i;
    AppendReplacement(out, stats);
  }
  return n;
}

void DecodeLatin1(const unsigned char* p, size_t n, std::string* out) {
  size_t i = 0;
  while (i < n) {
    const size_t ascii = AsciiPrefix(p + i, n - i);
    out->append(reinterpret_cast<const char*>(p + i), ascii);
    i += ascii;
    for (; i < n && p[i] >= 0x80; ++i) AppendUtf8(p[i], out);
  }
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

constexpr std::string_view kBomUtf8 = "\xEF\xBB\xBF";
constexpr std::string_view kBomUtf16Le = "\xFF\xFE";
constexpr std::string_view kBomUtf16Be = "\xFE\xFF";

}  // namespace

TextDecoder::TextDecoder(Encoding encoding) : encoding_(encoding) { Reset(); }

void TextDecoder::Reset() {
  stats_ = DecodeStats{};
  carry_.clear();
  form_ = encoding_ == Encoding::kLatin1 ? Form::kLatin1 : Form::kUnknown;
}

// Looks at carry_ (the first bytes of the document) for a BOM. Returns false
// when carry_ is still a proper prefix of a BOM and more bytes may come;
// otherwise sets form_, drops the BOM and leaves any other bytes in carry_.
bool TextDecoder::DecideForm(bool at_end) {
  assert(form_ == Form::kUnknown);
  const std::string_view head = carry_;
  if (StartsWith(head, kBomUtf16Le)) {
    form_ = Form::kUtf16Le;
    stats_.transcoded = true;
    carry_.erase(0, kBomUtf16Le.size());
  } else if (StartsWith(head, kBomUtf16Be)) {
    form_ = Form::kUtf16Be;
    stats_.transcoded = true;
    carry_.erase(0, kBomUtf16Be.size());
  } else if (StartsWith(head, kBomUtf8)) {
    form_ = Form::kUtf8;
    carry_.erase(0, kBomUtf8.size());
  } else if (!at_end &&
             (StartsWith(kBomUtf8, head) || StartsWith(kBomUtf16Le, head) || StartsWith(kBomUtf16Be, head))) {
    return false;
  } else {
    form_ = Form::kUtf8;
  }
  return true;
}

size_t TextDecoder::DecodeSome(std::string_view bytes, bool final, std::string* out) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  switch (form_) {
    case Form::kUtf8:
      return DecodeUtf8(p, bytes.size(), final, out, &stats_);
    case Form::kUtf16Le:
      return DecodeUtf16(p, bytes.size(), /*big_endian=*/false, final, out, &stats_);
    case Form::kUtf16Be:
      return DecodeUtf16(p, bytes.size(), /*big_endian=*/true, final, out, &stats_);
    case Form::kLatin1:
      DecodeLatin1(p, bytes.size(), out);
      return bytes.size();
    case Form::kUnknown:
      break;
  }
  assert(false && "DecodeSome before the form is decided");
  return 0;
}

void TextDecoder::Feed(std::string_view bytes, std::string* out) {
  if (form_ == Form::kUnknown) {
    // The longest BOM is 3 bytes; gather that many before deciding.
    assert(carry_.size() < kBomUtf8.size());
    const size_t take = std::min(bytes.size(), kBomUtf8.size() - carry_.size());
    carry_.append(bytes.substr(0, take));
    bytes.remove_prefix(take);
    if (!DecideForm(/*at_end=*/false)) {
      assert(bytes.empty());
      return;
    }
  }
  if (!carry_.empty()) {
    // Resolve the carried bytes with the first few new ones, in a small
    // buffer, then decode the rest of `bytes` in place.
    const size_t take = std::min(bytes.size(), kLookahead);
    std::string joined = carry_;
    joined.append(bytes.substr(0, take));
    const size_t used = DecodeSome(joined, /*final=*/false, out);
    if (used < carry_.size()) {
      // Still incomplete: only possible when `bytes` was shorter than the
      // look-ahead, so all of it is in `joined`.
      assert(take == bytes.size());
      carry_.assign(joined, used);
      carry_.append(bytes.substr(take));
      return;
    }
    bytes.remove_prefix(used - carry_.size());
    carry_.clear();
  }
  const size_t used = DecodeSome(bytes, /*final=*/false, out);
  carry_.assign(bytes.substr(used));
}

void TextDecoder::Finish(std::string* out) {
  if (form_ == Form::kUnknown) {
    const bool decided = DecideForm(/*at_end=*/true);
    assert(decided);
    (void)decided;
  }
  if (!carry_.empty()) {
    const size_t used = DecodeSome(carry_, /*final=*/true, out);
    assert(used == carry_.size());
    (void)used;
    carry_.clear();
  }
}

bool LooksBinary(std::string_view first_block) {
  if (StartsWith(first_block, kBomUtf16Le) || StartsWith(first_block, kBomUtf16Be)) {
    return false;
  }
  return first_block.find('\0') != std::string_view::npos;
}

}  // namespace neardup
