// TextDecoder: input bytes -> valid UTF-8, streaming.
//
// Reads UTF-8 (dropping a UTF-8 BOM), UTF-16 LE or BE announced by a BOM
// (transcoded), or Latin-1 when asked. Invalid or truncated UTF-8 sequences and
// unpaired UTF-16 surrogates become U+FFFD and are counted. A sequence split
// across two Feed() calls is carried over, so chunk boundaries never change
// the output.
//
// LooksBinary() is the binary-file test: a NUL byte in the first block of a
// file that does not start with a UTF-16 BOM.
//
// Thread safety: one decoder per thread; it is cheap to Reset() and reuse.
//
//   TextDecoder dec(Encoding::kUtf8);
//   std::string out; dec.Feed(chunk, &out); ...; dec.Finish(&out);
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "neardup/options.h"

namespace neardup {

struct DecodeStats {
  uint64_t replaced = 0;    // invalid sequences replaced by U+FFFD
  bool transcoded = false;  // input was UTF-16 (LE or BE, by its BOM)
};

class TextDecoder {
 public:
  explicit TextDecoder(Encoding encoding);

  // Starts a new document (clears carried bytes, stats and BOM detection).
  void Reset();
  // Decodes `bytes` and appends valid UTF-8 to `*out`. The first bytes of a
  // document decide the BOM (they may arrive split over calls).
  void Feed(std::string_view bytes, std::string* out);
  // Flushes a carried incomplete sequence (as U+FFFD) at the end of a document.
  // Call Reset() before feeding the next document.
  void Finish(std::string* out);

  const DecodeStats& stats() const { return stats_; }

 private:
  Encoding encoding_;
  DecodeStats stats_;
  enum class Form { kUnknown, kUtf8, kUtf16Le, kUtf16Be, kLatin1 } form_ = Form::kUnknown;
  std::string carry_;  // bytes of an incomplete sequence (or undecided BOM)

  // Sets form_ from a BOM at the start of carry_ (which it then drops).
  // Returns false while carry_ may still be the start of a BOM.
  bool DecideForm(bool at_end);
  // Decodes `bytes` in form_ and returns how many were consumed; unless
  // `final`, an incomplete sequence at the end is left unconsumed.
  size_t DecodeSome(std::string_view bytes, bool final, std::string* out);
};

// True when `first_block` (the first bytes of a file, up to 64 KiB) holds a
// NUL byte and does not start with a UTF-16 BOM.
bool LooksBinary(std::string_view first_block);

}  // namespace neardup
