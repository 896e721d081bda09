#include "walk/left_out.h"

#include <cctype>
#include <cstdint>
#include <cstring>
#include <set>
#include <string_view>
#include <utility>

#include "neardup/quote.h"

namespace neardup {

void LeaveOutIndex(const Options& options, FileSystem& fs, WalkedCorpus* out) {
  if (options.index.empty()) return;
  std::set<std::pair<uint64_t, uint64_t>> keys;  // (device, inode)
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    Result<FileStat> st = fs.Stat(options.index + suffix);
    if (st.ok()) keys.insert({st->dev, st->ino});
  }
  if (keys.empty()) return;
  std::erase_if(out->files, [&](const InputFile& f) {
    if (f.identity.stream || keys.count({f.identity.dev, f.identity.ino}) == 0) return false;
    out->notices.push_back(ShellQuoted(f.path) +
                           ": the --index file (or its journal), left out of the documents; "
                           "keep the index outside the scanned paths");
    return true;
  });
}

void LeaveOutParquet(const Options& options, WalkedCorpus* out) {
  if (options.input == InputFormat::kParquet) return;
  constexpr std::string_view kParquet = ".parquet";
  // Any path whose last 8 bytes, ASCII letters folded to lower case (and a
  // few other bytes moved with them), are not ".parquet" is none: one load
  // rules out nearly every path before the exact test.
  constexpr uint64_t kFold = 0x2020202020202020ull;
  uint64_t parquet_word = 0;
  std::memcpy(&parquet_word, kParquet.data(), sizeof parquet_word);
  std::erase_if(out->files, [&](const InputFile& f) {
    if (f.identity.stream || f.path.size() <= kParquet.size()) return false;
    uint64_t last = 0;
    std::memcpy(&last, f.path.data() + f.path.size() - sizeof last, sizeof last);
    if ((last | kFold) != (parquet_word | kFold)) return false;
    const std::string_view end = std::string_view(f.path).substr(f.path.size() - kParquet.size());
    for (size_t i = 0; i < end.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(end[i])) != kParquet[i]) return false;
    }
    out->notices.push_back(ShellQuoted(f.path) +
                           ": a Parquet file, not read: each of its rows is a document with --input parquet "
                           "(a run reads one kind of input)");
    ++out->counts.parquet;
    return true;
  });
}

}  // namespace neardup
