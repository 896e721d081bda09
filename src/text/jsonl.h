// JSONL input: one document per line of a file, {"id": ..., "text": "..."}.
//
// JsonlLineParser extracts the text and the id of one line with simdjson.
// A blank line is skipped silently; a malformed line, a missing text key or a
// text that is not a string is a Corrupt status naming the reason (the caller
// adds file and line number, warns, and goes on). An id may be a string or a
// number (written as in the input, e.g. 42 or 1.50); without the id key, or
// with a null or empty id, the id is empty and the caller names the document
// FILE:LINE. Another id type is Corrupt. When a key occurs twice, the first
// occurrence counts. The whole line must be valid JSON, including the fields
// that are not read. Invalid UTF-8 anywhere in the line does not make it
// malformed: the line is repaired first (each maximal ill-formed subsequence
// becomes one U+FFFD, counted in JsonlDoc::replaced), since simdjson rejects
// invalid UTF-8 anywhere in its input; a valid line is parsed in place. A
// UTF-8 BOM at the start of a line is ignored. (Latin-1 input is transcoded
// before it gets here: see src/sign/jsonl_doc_reader.h.)
//
// LineSplitter cuts a byte stream into lines (LF, with an optional CR before
// it), carrying a partial line across chunks, and numbers them from 1. A line
// longer than its limit (--max-line) is not kept: its bytes are dropped as they
// arrive until its newline, and Next() returns it empty with too_long() set,
// so a line never costs more than the limit in memory, however long it is.
//
// Thread safety: one parser per thread (it holds simdjson's buffers).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>

#include "neardup/status.h"

namespace neardup {

struct JsonlDoc {
  std::string id;         // empty when the line has no id key
  uint64_t replaced = 0;  // invalid UTF-8 sequences in the line, replaced by U+FFFD
  std::string text;       // the text, unescaped; valid UTF-8 (see above), as is the id
};

// The same with the text borrowed from the parser, for a caller that reads
// it at once (signing): one copy of every text fewer.
struct JsonlDocView {
  std::string id;
  uint64_t replaced = 0;
  // Valid until the parser's next Parse() or ParseView(), or its destruction.
  std::string_view text;
};

class JsonlLineParser {
 public:
  JsonlLineParser(std::string text_key, std::string id_key);
  ~JsonlLineParser();
  JsonlLineParser(const JsonlLineParser&) = delete;
  JsonlLineParser& operator=(const JsonlLineParser&) = delete;

  // Parses one line (without its newline). Returns false in *has_doc for a
  // blank line (only whitespace); Corrupt for a bad line (*has_doc false,
  // *doc unspecified). Reusing one JsonlDoc across calls reuses its strings.
  Status Parse(std::string_view line, JsonlDoc* doc, bool* has_doc);
  // As Parse, with the text borrowed (see JsonlDocView). `readable_after`:
  // how many bytes after the line's end may be read (never written), say the
  // rest of the block the line lies in; with at least kParsePadding, the
  // line is parsed where it lies instead of copied first (simdjson reads up
  // to that many bytes past its input; their content does not matter).
  Status ParseView(std::string_view line, JsonlDocView* doc, bool* has_doc, size_t readable_after = 0);
  // simdjson's SIMDJSON_PADDING.
  static const size_t kParsePadding;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class LineSplitter {
 public:
  // `max_line`: longest line kept, in bytes without its "\n" or "\r\n";
  // 0 = no limit.
  explicit LineSplitter(uint64_t max_line = 0) : max_line_(max_line) {}

  // Appends `bytes`; complete lines become available from Next(). Holds the
  // lines not yet returned plus at most max_line + 1 bytes of a partial line.
  void Feed(std::string_view bytes);
  // Marks the end of input: a last line without a newline becomes available.
  // REQUIRES: no Feed() after Finish().
  void Finish();
  // Sets *line to the next complete line (without "\n" or "\r\n") and
  // *line_number to its 1-based number. The view is valid until the next
  // Feed(). Returns false when no complete line is left. After Finish(), a
  // last line without "\n" is returned too (a CR at its end is dropped).
  // Linear in the bytes fed, however they are chunked.
  bool Next(std::string_view* line, uint64_t* line_number);
  // True when the line last returned by Next() was longer than max_line (its
  // view is then empty). Which lines are too long does not depend on chunking.
  bool too_long() const { return too_long_; }

 private:
  // Appends bytes that hold no '\n' to the partial line, or starts skipping
  // it when it grows past the limit.
  void AppendPartial(std::string_view bytes);

  uint64_t max_line_;
  std::string buf_;
  size_t pos_ = 0;   // start of the first line not yet returned
  size_t scan_ = 0;  // buf_ has no '\n' in [pos_, scan_)
  size_t tail_ = 0;  // start of the partial line (after the last '\n' in buf_)
  // Offsets in buf_ of lines that were too long (each an empty line there).
  std::deque<size_t> too_long_at_;
  bool skipping_ = false;  // dropping the rest of a line that is too long
  bool too_long_ = false;
  uint64_t line_number_ = 0;
  bool finished_ = false;
};

}  // namespace neardup
