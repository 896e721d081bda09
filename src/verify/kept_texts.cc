#include "verify/kept_texts.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "base/temp_file.h"
#include "neardup/quote.h"
#include "text/word_diff.h"

namespace neardup {
namespace {

constexpr size_t kChunk = 64 * 1024;

}  // namespace

KeptTexts::~KeptTexts() {
  for (std::FILE* f : files_) std::fclose(f);
}

uint32_t KeptTexts::AddFile(std::FILE* file) {
  files_.push_back(file);
  return static_cast<uint32_t>(files_.size() - 1);
}

void KeptTexts::Add(DocId doc, uint32_t file, uint64_t offset, uint64_t length) {
  places_.insert_or_assign(doc, Place{.file = file, .offset = offset, .length = length});
}

Result<KeptText> KeptTexts::Text(DocId doc, uint64_t max_words) const {
  const Place& p = places_.at(doc);
  KeptText out;
  WordCap first(max_words, &out.token_text, &out.capped);
  std::string chunk;
  for (uint64_t pos = 0; pos < p.length && !out.capped;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, p.length - pos));
    chunk.resize(n);
    if (!ReadAt(files_[p.file], p.offset + pos, chunk.data(), n)) {
      return Status::IoError("temporary file of the texts read again in " + ShellQuoted(TempFile::Folder()) +
                             ": read: " + std::strerror(errno));
    }
    first.Add(chunk);
    pos += n;
  }
  return out;
}

}  // namespace neardup
