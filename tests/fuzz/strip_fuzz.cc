// Fuzz harness: bytes -> MailText or (decoded) HtmlText, the two --strip
// readers.
//
// The first byte steers: bit 0 picks html (1) or mail (0), bit 1 the
// fallback encoding of mail parts without a charset (latin1 or utf8). The
// rest is the document. It checks that:
//   - MailText either gives valid UTF-8 or fails with Corrupt and a message
//     starting "--strip mail: " (never another status, never a crash);
//   - HtmlText never fails on decoded input and gives valid UTF-8 whose
//     white space is collapsed: no empty line, no line starting or ending
//     with a space, no two spaces in a row, nothing at either end;
//   - both give the same text when called again (no state carried over).
#include <string>
#include <string_view>

#include "harnesses.h"
#include "text/decode.h"
#include "text/html_text.h"
#include "text/mail_text.h"

namespace neardup::fuzz {
namespace {

bool CollapsedText(std::string_view text) {
  NEARDUP_FUZZ_CHECK(IsValidUtf8(text));
  if (text.empty()) return true;
  NEARDUP_FUZZ_CHECK(text.front() != ' ' && text.front() != '\n');
  NEARDUP_FUZZ_CHECK(text.back() != ' ' && text.back() != '\n');
  NEARDUP_FUZZ_CHECK(text.find("\n\n") == std::string_view::npos);
  NEARDUP_FUZZ_CHECK(text.find("  ") == std::string_view::npos);
  NEARDUP_FUZZ_CHECK(text.find(" \n") == std::string_view::npos);
  NEARDUP_FUZZ_CHECK(text.find("\n ") == std::string_view::npos);
  return true;
}

bool Html(std::string_view bytes) {
  std::string utf8;
  TextDecoder decoder(Encoding::kUtf8);
  decoder.Feed(bytes, &utf8);
  decoder.Finish(&utf8);
  std::string text;
  NEARDUP_FUZZ_CHECK(HtmlText(utf8, &text).ok());
  if (!CollapsedText(text)) return false;
  std::string again = "stale";
  NEARDUP_FUZZ_CHECK(HtmlText(utf8, &again).ok() && again == text);
  return true;
}

bool Mail(std::string_view bytes, Encoding fallback) {
  std::string text;
  const Status s = MailText(bytes, fallback, &text);
  if (!s.ok()) {
    NEARDUP_FUZZ_CHECK(s.code() == Status::Code::kCorrupt);
    NEARDUP_FUZZ_CHECK(s.message().starts_with("--strip mail: "));
    return true;
  }
  NEARDUP_FUZZ_CHECK(IsValidUtf8(text));
  std::string again = "stale";
  NEARDUP_FUZZ_CHECK(MailText(bytes, fallback, &again).ok() && again == text);
  return true;
}

}  // namespace

int StripFuzz(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((data[0] & 1) != 0) {
    Html(bytes);
  } else {
    Mail(bytes, (data[0] & 2) != 0 ? Encoding::kLatin1 : Encoding::kUtf8);
  }
  return 0;
}

}  // namespace neardup::fuzz

#ifndef NEARDUP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return neardup::fuzz::StripFuzz(data, size); }
#endif
