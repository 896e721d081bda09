// JsonlDocReader: one JSONL line -> its document, and the DocumentReader
// that signs it. Shared by signing and by the re-reads of --exact, so both
// read a line the same way.
//
// The encoding applies to the file, so a Latin-1 line is transcoded before
// it is parsed; the text inside is then UTF-8 and is not decoded again.
// With --strip, the text is stripped here (html_text.h, mail_text.h; a mail
// in a UTF-8 field is read as UTF-8 where it names no charset), so that
// every reader of a line compares the same text; a text that cannot be
// stripped is the line's problem, as malformed JSON is.
//
// Thread safety: one per thread.
#pragma once

#include <string>
#include <string_view>

#include "neardup/options.h"
#include "sign/document.h"
#include "text/decode.h"
#include "text/html_text.h"
#include "text/jsonl.h"
#include "text/mail_text.h"

namespace neardup {

class JsonlDocReader {
 public:
  // `minhasher` must outlive the reader.
  JsonlDocReader(const Options& options, const MinHasher& minhasher)
      : parser_(options.text_key, options.id_key),
        latin1_(options.encoding == Encoding::kLatin1),
        strip_(options.strip),
        reader_(Utf8(options), minhasher) {}

  // As JsonlLineParser::Parse, after transcoding a Latin-1 line; the text
  // stripped with --strip.
  Status Parse(std::string_view line, JsonlDoc* doc, bool* has_doc) {
    Status s = parser_.Parse(Transcoded(line), doc, has_doc);
    if (!s.ok() || !*has_doc || strip_ == Strip::kNone) return s;
    s = StripText(doc->text);
    doc->text.swap(stripped_);
    return s;
  }
  // As JsonlLineParser::ParseView: the text is valid until the next Parse.
  // A Latin-1 line is transcoded into a string of its own first, which has
  // no bytes readable after it.
  Status ParseView(std::string_view line, JsonlDocView* doc, bool* has_doc, size_t readable_after = 0) {
    Status s = latin1_ ? parser_.ParseView(Transcoded(line), doc, has_doc)
                       : parser_.ParseView(line, doc, has_doc, readable_after);
    if (!s.ok() || !*has_doc || strip_ == Strip::kNone) return s;
    s = StripText(doc->text);
    doc->text = stripped_;
    return s;
  }
  DocumentReader& reader() { return reader_; }

 private:
  // The line in UTF-8: itself, or its Latin-1 transcoded into line_.
  std::string_view Transcoded(std::string_view line) {
    if (!latin1_) return line;
    line_.clear();
    decoder_.Reset();
    decoder_.Feed(line, &line_);
    decoder_.Finish(&line_);
    return line_;
  }
  // Replaces stripped_ with the text of `text`.
  Status StripText(std::string_view text) {
    if (strip_ == Strip::kMail) return MailText(text, Encoding::kUtf8, &stripped_);
    return HtmlText(text, &stripped_);
  }
  // The reader's options: the text it is given is UTF-8, and stripped.
  static Options Utf8(Options options) {
    options.encoding = Encoding::kUtf8;
    options.strip = Strip::kNone;
    return options;
  }
  JsonlLineParser parser_;
  bool latin1_;
  Strip strip_;
  std::string stripped_;
  TextDecoder decoder_{Encoding::kLatin1};
  std::string line_;
  DocumentReader reader_;
};

}  // namespace neardup
