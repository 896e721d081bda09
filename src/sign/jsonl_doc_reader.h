// JsonlDocReader: one JSONL line -> its document, and the DocumentReader
// that signs it. Shared by signing and by the re-reads of --exact, so both
// read a line the same way.
//
// The encoding applies to the file, so a Latin-1 line is transcoded before
// it is parsed; the text inside is then UTF-8 and is not decoded again.
//
// Thread safety: one per thread.
#pragma once

#include <string>
#include <string_view>

#include "neardup/options.h"
#include "sign/document.h"
#include "text/decode.h"
#include "text/jsonl.h"

namespace neardup {

class JsonlDocReader {
 public:
  // `minhasher` must outlive the reader.
  JsonlDocReader(const Options& options, const MinHasher& minhasher)
      : parser_(options.text_key, options.id_key),
        latin1_(options.encoding == Encoding::kLatin1),
        reader_(Utf8(options), minhasher) {}

  // As JsonlLineParser::Parse, after transcoding a Latin-1 line.
  Status Parse(std::string_view line, JsonlDoc* doc, bool* has_doc) {
    return parser_.Parse(Transcoded(line), doc, has_doc);
  }
  // As JsonlLineParser::ParseView: the text is valid until the next Parse.
  // A Latin-1 line is transcoded into a string of its own first, which has
  // no bytes readable after it.
  Status ParseView(std::string_view line, JsonlDocView* doc, bool* has_doc, size_t readable_after = 0) {
    if (latin1_) return parser_.ParseView(Transcoded(line), doc, has_doc);
    return parser_.ParseView(line, doc, has_doc, readable_after);
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
  static Options Utf8(Options options) {
    options.encoding = Encoding::kUtf8;
    return options;
  }
  JsonlLineParser parser_;
  bool latin1_;
  TextDecoder decoder_{Encoding::kLatin1};
  std::string line_;
  DocumentReader reader_;
};

}  // namespace neardup
