// KeptTexts: the token texts that exact verification read, kept for the
// review page (-f html, Options::keep_texts), so that the page shows each
// document as verification proved it, without opening, decoding and
// tokenizing it a third time.
//
// The texts stay where verification wrote them, in its anonymous temporary
// files (TMPDIR), which a KeptTexts owns and closes; memory holds only where
// each text is (about 40 bytes a document). Only documents that verification
// confirmed (their content hash as signed, their file unchanged) are kept.
//
// Thread safety: Add() while it is built, by one thread; then Has() and
// Text() from any number of threads at once.
//
//   std::shared_ptr<const KeptTexts> texts = confirmer.TakeKeptTexts();
//   if (texts->Has(doc)) Result<KeptText> t = texts->Text(doc, max_words);
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "neardup/doc_id.h"
#include "neardup/status.h"

namespace neardup {

// A document's token text (each word followed by one space), its first
// `max_words` words at most.
struct KeptText {
  std::string token_text;
  bool capped = false;  // more words followed
};

class KeptTexts {
 public:
  KeptTexts() = default;
  ~KeptTexts();
  KeptTexts(const KeptTexts&) = delete;
  KeptTexts& operator=(const KeptTexts&) = delete;

  // Takes `file` (flushed, opened for reading), closed by the destructor;
  // returns its number for Add().
  uint32_t AddFile(std::FILE* file);
  // `doc`'s token text is bytes [offset, offset + length) of file `file`.
  void Add(DocId doc, uint32_t file, uint64_t offset, uint64_t length);

  bool Has(DocId doc) const { return places_.count(doc) != 0; }
  size_t size() const { return places_.size(); }
  // `doc`'s token text, cut after its first `max_words` words as the
  // review cuts a text it reads (capped: anything but spaces followed).
  // IoError when the temporary file cannot be read back.
  // REQUIRES: Has(doc).
  [[nodiscard]] Result<KeptText> Text(DocId doc, uint64_t max_words) const;

 private:
  struct Place {
    uint32_t file = 0;
    uint64_t offset = 0;
    uint64_t length = 0;
  };
  std::vector<std::FILE*> files_;
  std::unordered_map<DocId, Place> places_;
};

}  // namespace neardup
