#include "distributed/shards.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string_view>

#include "base/coding.h"
#include "base/hash.h"
#include "base/mapped_file.h"
#include "distributed/byte_shares.h"
#include "lsh/banding.h"
#include "neardup/quote.h"
#include "walk/hashing_file_system.h"

namespace neardup {

uint64_t SignFingerprint(const Options& options) {
  std::string bytes;
  SignatureParams::From(options).AppendCanonical(&bytes);
  const Banding b = BandingOf(options);
  PutFixed32(&bytes, static_cast<uint32_t>(b.bands));
  PutFixed32(&bytes, static_cast<uint32_t>(b.rows));
  PutFixed8(&bytes, static_cast<uint8_t>(options.input));
  // What decides the documents a file yields and their kinds besides the
  // signature parameters (as the index's reading fingerprint): --min-words,
  // --max-filesize (a compressed file's decompressed size), and for JSONL
  // --text-key, --id-key and --max-line. Which files are read (PATHs,
  // --glob, --hidden, -L, --against) is the listing's (ListingFingerprint).
  PutFixed64(&bytes, options.min_words);
  PutFixed64(&bytes, options.max_filesize);
  if (RowsAreDocuments(options.input)) {
    PutText(&bytes, options.text_key);
    PutText(&bytes, options.id_key);
    PutFixed64(&bytes, options.max_line);
  }
  // --relation contains|both: the tables hold each document's distinct-shingle
  // count (DocRecord::shingles), which other runs leave 0. (Nothing is added
  // for similar: its fingerprints are those of the runs before --relation.)
  if (options.relation != Relation::kSimilar) PutFixed8(&bytes, 1);
  return Checksum64(bytes);
}

uint64_t ListingFingerprint(const std::vector<InputFile>& files) {
  Hasher64 h;
  h.Reset(0);
  const uint64_t n = files.size();
  h.Update(&n, sizeof n);
  std::string fields;  // one file's, its storage reused
  for (const InputFile& f : files) {
    fields.clear();
    PutText(&fields, f.path);
    PutFixed64(&fields, f.size);
    PutFixed8(&fields, static_cast<uint8_t>((f.reference ? 1 : 0) | (f.identity.stream ? 2 : 0)));
    h.Update(fields.data(), fields.size());
  }
  return h.Digest();
}

namespace {

// Whether a meta's first_begin and last_end fit its shard's files.
bool RangesFit(const ShardMeta& m, const FileEnds& in) {
  if (in.count == 0) return m.first_begin == 0 && m.last_end == 0;
  if (m.first_begin > 0 && m.first_begin >= in.first.size) return false;
  if (m.last_end > in.last.size) return false;
  if (in.count == 1 && in.first.size > 0) return m.first_begin < m.last_end;
  return in.count == 1 || in.last.size == 0 || m.last_end > 0;
}

}  // namespace

FileEnds EndsOf(const std::vector<InputFile>& files) {
  if (files.empty()) return {};
  return {.count = files.size(), .first = files.front(), .last = files.back()};
}

Status CheckShardMeta(const ShardMeta& meta, uint32_t shard, uint32_t shards, const FileEnds& in, uint64_t docs) {
  const uint64_t files = in.count;
  if (meta.task.task != shard || meta.task.tasks != shards) return Status::Corrupt("another task's meta");
  if (!RangesFit(meta, in)) return Status::Corrupt("its byte range does not fit its files");
  if (meta.roots.size() != files || meta.kept_paths.size() != files || meta.seen.size() != files) {
    return Status::Corrupt("its roots do not match the shard's files");
  }
  if (meta.line_hashes.size() != docs) return Status::Corrupt("its line hashes do not match the shard's documents");
  for (const InputProblem& p : meta.problems) {
    if (p.file >= files) return Status::Corrupt("a problem of a file out of range");
  }
  return Status::Ok();
}

Result<DecodedRecords> ReadShardRecords(std::string_view bytes, RecordWalk walk, std::vector<uint64_t> files,
                                        std::vector<uint64_t>* file_ids) {
  Result<TableHeader> header = PeekHeader(bytes);  // a damaged one: the walk says how
  const bool few = header.ok() && header->file_count <= kFewFiles;
  walk.keep_file = [few](uint64_t, const InputFile&) { return few; };
  Result<DecodedRecords> out = DecodeRecordsWith(bytes, walk);
  if (!out.ok()) return out;
  for (const DocRecord& d : out->docs) files.push_back(d.file);
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  std::vector<InputFile> held = std::move(out->files);
  out->files.clear();
  if (few) {
    for (uint64_t k : files) {
      if (k >= held.size()) return Status::Corrupt("a file out of range");
      out->files.push_back(std::move(held[k]));
    }
  } else if (!files.empty()) {
    const RecordWalk again{
        .keep = [](uint64_t, const DocRecord&) { return false; },
        .hashed = nullptr,
        .read = walk.read,
        .checksum = false,
        .keep_file = [&files](uint64_t k,
                              const InputFile&) { return std::binary_search(files.begin(), files.end(), k); }};
    Result<DecodedRecords> kept = DecodeRecordsWith(bytes, again);
    if (!kept.ok()) return kept.status();
    if (kept->files.size() != files.size()) return Status::Corrupt("a file out of range");
    out->files = std::move(kept->files);
  }
  *file_ids = std::move(files);
  return out;
}

Result<uint64_t> ShardDocCount(const WorkFolder& folder, uint32_t shard) {
  const std::string path = folder.File(StageKind::kSign, shard, "table");
  std::ifstream in(path, std::ios::binary);
  std::string header(kTableHeaderSize, '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(header.size()))) {
    return in.is_open() ? Damaged(path, "truncated") : Status::IoError(ShellQuoted(path) + ": cannot open");
  }
  Result<TableHeader> peeked = PeekHeader(header);
  if (!peeked.ok()) return Damaged(path, peeked.status().message());
  // The count adds up with the header's size (PeekHeader); the size must be the file's.
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size != peeked->total_size) return Damaged(path, "its size does not match its header");
  return peeked->doc_count;
}

Status CheckShardParams(const WorkFolder& folder, const Options& options) {
  const SignatureParams params = SignatureParams::From(options);
  for (uint32_t shard = 0;; ++shard) {
    const std::string path = folder.File(StageKind::kSign, shard, "table");
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::Ok();  // no more shards (a missing one is FinishedTasks()'s to report)
    std::string header(kTableHeaderSize, '\0');
    in.read(header.data(), static_cast<std::streamsize>(header.size()));
    Result<TableHeader> peeked = PeekHeader(header);
    if (!peeked.ok()) return Damaged(path, peeked.status().message());
    const std::vector<std::string> diffs =
        params.Differences(peeked->params, std::string("shard ").append(std::to_string(shard)));
    if (diffs.empty()) continue;
    std::string message = ShellQuoted(path) + ": signed with other parameters: ";
    for (size_t k = 0; k < diffs.size(); ++k) message.append(k == 0 ? "" : "; ").append(diffs[k]);
    // A work folder is never signed again in part: its bands and buckets
    // were cut from these signatures.
    if (peeked->params.minhash_version < params.minhash_version) {
      message.append(" (signatures of an older neardup)");
    }
    return Status::InvalidArgument(message.append(": run again in an empty work folder"));
  }
}

namespace {

constexpr const char* kInputsChanged = "the inputs changed between sign tasks; run again in an empty work folder";

// The first file of finished shard `shard` that `walked` no longer lists as
// it was: "PATH: gone since ..." or "PATH: its size changed since ...", or
// empty when its files are all there (the listing changed elsewhere) or its
// table cannot be read (the caller's message then stands). Reads the
// shard's table: only when the listings differ.
std::string ChangedFileOf(const WorkFolder& folder, uint32_t shard, const std::vector<InputFile>& walked) {
  Result<MappedFile> mapped = MappedFile::Open(folder.File(StageKind::kSign, shard, "table"));
  if (!mapped.ok()) return {};
  const RecordWalk files_only{.keep = [](uint64_t, const DocRecord&) { return false; },
                              .hashed = nullptr,
                              .read = nullptr,
                              .checksum = true,
                              .keep_file = nullptr};
  Result<DecodedRecords> table = DecodeRecordsWith(mapped->bytes(), files_only);
  if (!table.ok()) return {};
  std::unordered_map<std::string_view, uint64_t> size_of;
  size_of.reserve(walked.size());
  for (const InputFile& f : walked) size_of.emplace(f.path, f.size);
  const std::string since = " since sign task " + std::to_string(shard) + " walked it";
  for (const InputFile& f : table->files) {
    const auto it = size_of.find(f.path);
    if (it == size_of.end()) return ShellQuoted(f.path) + ": gone" + since;
    if (it->second != f.size) {
      return ShellQuoted(f.path) + ": its size changed" + since + " (" + std::to_string(f.size) + " bytes, now " +
             std::to_string(it->second) + ")";
    }
  }
  return {};
}

// The first kMetaHeadSize bytes of `path`, or fewer when it is shorter or
// cannot be read (ListingOfMetaHead() then finds no listing).
std::string HeadOf(const std::string& path) {
  std::string head(kMetaHeadSize, '\0');
  std::ifstream in(path, std::ios::binary);
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(in ? head.size() : static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return head;
}

// Whether the finished shards' listings, read from their metas' heads alone
// (ListingOfMetaHead()), all read and equal `expected` (or each other). A
// task then reads no meta whole: at 20M documents the metas hold a few
// hundred bytes a file. Anything else is for the whole metas to say.
bool HeadsAgree(const WorkFolder& folder, uint32_t tasks, std::optional<uint64_t> expected) {
  for (const uint32_t shard : folder.Marked(StageKind::kSign)) {
    if (shard >= tasks) break;
    const std::optional<uint64_t> listing = ListingOfMetaHead(HeadOf(folder.File(StageKind::kSign, shard, "meta")));
    if (!listing || (expected && *listing != *expected)) return false;
    expected = listing;
  }
  return true;
}

}  // namespace

Status CheckShardListings(const WorkFolder& folder, uint32_t tasks, std::optional<uint64_t> expected,
                          const std::vector<InputFile>* walked) {
  if (HeadsAgree(folder, tasks, expected)) return Status::Ok();
  std::optional<uint32_t> first;  // the shard `expected` came from, if any
  for (const uint32_t shard : folder.Marked(StageKind::kSign)) {
    if (shard >= tasks) break;
    const std::string path = folder.File(StageKind::kSign, shard, "meta");
    Result<std::string> bytes = ReadWholeFile(path);
    if (!bytes.ok()) return bytes.status();
    Result<ShardMeta> meta = DecodeShardMeta(*bytes);
    if (!meta.ok()) return Damaged(path, meta.status().message());
    if (!expected) {
      expected = meta->listing;
      first = shard;
    }
    if (meta->listing == *expected) continue;
    if (walked != nullptr) {
      const std::string changed = ChangedFileOf(folder, shard, *walked);
      if (!changed.empty()) {
        return Status::InvalidArgument(ShellQuoted(folder.Dir(StageKind::kSign)) + ": " + changed + ": " +
                                       kInputsChanged);
      }
    }
    const std::string other = first ? "shard " + std::to_string(*first) : std::string("this task's walk");
    return Status::InvalidArgument(ShellQuoted(folder.Dir(StageKind::kSign)) + ": shard " + std::to_string(shard) +
                                   " walked other files than " + other + ": " + kInputsChanged);
  }
  return Status::Ok();
}

Status CheckShareUnchanged(const WorkFolder& folder, const ShardMeta& meta, const std::vector<InputFile>& walked,
                           FileSystem& fs) {
  const size_t n = meta.seen.size();
  for (size_t k = 0; k < n; ++k) {
    const FileSeen& seen = meta.seen[k];
    const uint64_t at = meta.first_file + k;
    if (at >= walked.size()) {
      return Status::InvalidArgument(ShellQuoted(folder.Dir(StageKind::kSign)) + ": shard " +
                                     std::to_string(meta.task.task) +
                                     " holds files past the walk's: " + kInputsChanged);
    }
    const InputFile& f = walked[at];  // the same path: the listings agree
    auto changed = [&] {
      return Status::InvalidArgument(ShellQuoted(folder.Dir(StageKind::kSign)) + ": " + ShellQuoted(f.path) +
                                     " changed since sign task " + std::to_string(meta.task.task) +
                                     " read it: " + kInputsChanged);
    };
    if (f.size != seen.size) return changed();
    // A ctime is not content: --kept-dir's hard links, chmod and chown change it.
    if (f.identity.dev == seen.dev && f.identity.ino == seen.ino && f.mtime_ns == seen.mtime_ns) continue;
    if (seen.raw_hash == 0) return changed();  // nothing proves its bytes
    const uint64_t begin = k == 0 ? meta.first_begin : 0;
    const uint64_t end = k + 1 == n ? meta.last_end : f.size;
    if (begin > end) return changed();
    Result<std::unique_ptr<ByteReader>> in = fs.OpenExpected(f.path, f.identity);
    if (!in.ok()) return changed();
    std::unique_ptr<ByteReader> part =
        begin == 0 && end == f.size ? std::move(*in) : RangeReader(std::move(*in), begin, end);
    const std::optional<uint64_t> h = HashOfAllBytes(*part, end - begin);
    if (!h || *h != seen.raw_hash) return changed();
  }
  return Status::Ok();
}

}  // namespace neardup
