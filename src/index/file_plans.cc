#include "index/file_plans.h"

#include <optional>

#include "base/hash.h"
#include "index/index_rows.h"
#include "walk/hashing_file_system.h"

namespace neardup {

namespace {

// Fingerprint of the options that decide which documents a file yields and
// their kinds (besides the signature parameters, checked for the whole
// index): --input (jsonl and parquet apart), --min-words, and for JSONL and
// Parquet --text-key, --id-key and
// --max-line; for a compressed file also --max-filesize, which applies to
// its decompressed size, known only once read (the walk applies it to any
// other file by its size, part of the stat compared).
// (--encoding is a signature parameter; --glob, --hidden and -L decide which
// files are walked, not what a file yields.)
uint64_t ReadingFingerprint(const Options& o, bool compressed) {
  std::string key = o.input == InputFormat::kParquet ? "parquet" : RowsAreDocuments(o.input) ? "jsonl" : "text";
  key.append("|").append(std::to_string(o.min_words));
  if (RowsAreDocuments(o.input)) {
    key.append("|").append(o.text_key).append("|").append(o.id_key).append("|").append(std::to_string(o.max_line));
  }
  if (compressed) key.append("|max-filesize ").append(std::to_string(o.max_filesize));
  return HashBytes(key.data(), key.size(), 0);
}

// How far apart two timestamps must be to tell which came first, whatever
// the file system: 1 s (ext4 with 128-byte inodes, HFS+, most NFS servers)
// or 2 s (FAT), plus clock skew between an NFS server and its client. A
// file whose mtime or ctime is not older than this before the index saw it
// could change again within the same timestamp, its stat unchanged.
constexpr int64_t kTimestampResolutionNs = 2'000'000'000;

// XXH3-64 of the first `n` bytes of `f`; nullopt when they cannot be read.
std::optional<uint64_t> PrefixHash(FileSystem& fs, const InputFile& f, uint64_t n) {
  Result<std::unique_ptr<ByteReader>> in = fs.OpenExpected(f.path, f.identity);
  if (!in.ok()) return std::nullopt;
  return HashOfFirstBytes(**in, n);
}

// XXH3-64 of all of `f`'s bytes as the walk saw it (exactly f.size of them);
// nullopt when they cannot be read or their number is not f.size.
std::optional<uint64_t> WholeHash(FileSystem& fs, const InputFile& f) {
  Result<std::unique_ptr<ByteReader>> in = fs.OpenExpected(f.path, f.identity);
  if (!in.ok()) return std::nullopt;
  return HashOfAllBytes(**in, f.size);
}

// The walked files in the order of their keys (mostly the walk's order).
std::vector<size_t> KeyOrder(const std::vector<std::string>& keys) {
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  SortRuns(order, [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  return order;
}

// Whether the stat stored in `e` proves that the file, with that stat now,
// is as the index saw it: its mtime and ctime older than the moment the
// index saw it by more than the timestamp resolution. Otherwise the entry
// is "racily clean" (git's word): a rewrite of the same size in that same
// timestamp, or a delete and re-create that reused the inode, leaves the
// same stat. An entry of unknown age (seen_ns 0: a version 1 index) is
// racy once.
bool StatProvesUnchanged(const IndexedFile& e) {
  return e.seen_ns > kTimestampResolutionNs && e.mtime_ns < e.seen_ns - kTimestampResolutionNs &&
         e.ctime_ns < e.seen_ns - kTimestampResolutionNs;
}

// Marks, per walked file signed again with an entry read with the same
// options and of the same size, that its documents may well be the stored
// ones (no hash to prove it, a rewrite that reads the same): FilePlans::compare.
void MarkCompared(const std::vector<InputFile>& files, const Reading& reading, FilePlans& fp) {
  for (size_t i = 0; i < files.size(); ++i) {
    if (fp.entry[i] == SIZE_MAX || fp.plan[i] != Plan::kSign) continue;
    const IndexedFile& e = fp.stored[fp.entry[i]];
    const bool same_reading = e.reading == reading.For(files[i].path) && e.jsonl == reading.jsonl;
    fp.compare[i] = e.size == files[i].size && same_reading ? 1 : 0;
  }
}

}  // namespace

Reading::Reading(const Options& o)
    : plain(ReadingFingerprint(o, false)), compressed(ReadingFingerprint(o, true)), jsonl(RowsAreDocuments(o.input)) {}

uint64_t Reading::For(const std::string& path) const { return CompressedPath(path) ? compressed : plain; }

FilePlans PlanFiles(const WalkedKeys& walked, std::vector<IndexedFile> stored, const std::vector<size_t>& by_path,
                    const Reading& reading, FileSystem& fs, const Workers& workers) {
  const std::vector<InputFile>& files = walked.files;
  const size_t n = files.size();
  FilePlans fp;
  fp.stored = std::move(stored);
  fp.plan.assign(n, Plan::kSign);
  fp.entry.assign(n, SIZE_MAX);
  fp.walked.assign(fp.stored.size(), 0);
  fp.restat.assign(n, 0);
  fp.compare.assign(n, 0);
  fp.shared_key.assign(n, 0);
  std::vector<size_t> to_hash;  // walked files whose bytes may prove their entry
  size_t r = 0;
  const std::string* previous = nullptr;
  for (const size_t i : KeyOrder(walked.keys)) {
    const InputFile& f = files[i];
    const std::string& key = walked.keys[i];
    if (previous != nullptr && *previous == key) fp.shared_key[i] = 1;
    previous = &key;
    while (r < by_path.size() && fp.stored[by_path[r]].path < key) ++r;
    if (f.identity.stream || fp.shared_key[i] != 0 || r == by_path.size() || fp.stored[by_path[r]].path != key) {
      continue;
    }
    const IndexedFile& e = fp.stored[by_path[r]];
    fp.entry[i] = by_path[r];
    fp.walked[by_path[r]] = 1;
    const bool same_reading = e.reading == reading.For(f.path) && e.jsonl == reading.jsonl;
    const bool same_file = same_reading && e.dev == f.identity.dev && e.inode == f.identity.ino;
    if (same_file && e.size == f.size && e.mtime_ns == f.mtime_ns && e.ctime_ns == f.ctime_ns &&
        StatProvesUnchanged(e)) {
      fp.plan[i] = Plan::kReuse;
    } else if (same_reading && e.size == f.size && e.raw_hash != 0 && e.seen_ns != 0) {
      to_hash.push_back(i);  // (a version 1 entry's names and messages hold the path it was walked as)
    } else if (same_file && reading.jsonl && !CompressedPath(f.path) && e.ends_newline && f.size > e.size &&
               e.seen_ns != 0) {
      const std::optional<uint64_t> h = PrefixHash(fs, f, e.size);
      if (h && *h == e.raw_hash) fp.plan[i] = Plan::kAppend;
    }
  }
  ParallelFor(workers, to_hash.size(), [&](int, size_t k) {
    if (workers.Cancelled()) return;
    const size_t i = to_hash[k];
    const std::optional<uint64_t> h = WholeHash(fs, files[i]);
    if (!h || *h != fp.stored[fp.entry[i]].raw_hash) return;
    fp.plan[i] = Plan::kReuse;
    fp.restat[i] = 1;
  });
  MarkCompared(files, reading, fp);
  return fp;
}

}  // namespace neardup
