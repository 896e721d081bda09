// Shards: what every stage knows of the sign shards of a work folder besides
// their formats (format/shard_meta.h, format/band_file.h, table_codec.h):
// the fingerprints every shard of a run must share, the checks of a shard's
// meta and table against the work folder and the inputs, and the records of
// a shard's table read in part.
//
// The checks read the work folder; none writes. A checksum catches damage:
// a value read from a shard is still checked against what the reader
// derived itself (CheckShardMeta(), CheckShardParams(), CheckShardListings())
// before it is used.
//
// Thread safety: free functions; they may run at once on one folder.
//
//   if (Status s = CheckShardParams(folder, options); !s.ok()) return s;
//   Result<uint64_t> docs = ShardDocCount(folder, 0);
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "distributed/format/shard_meta.h"
#include "distributed/work_folder.h"
#include "neardup/options.h"
#include "neardup/status.h"
#include "sign/table_codec.h"
#include "walk/file_system.h"

namespace neardup {

// A RecordWalk::keep for shard `shard` that keeps the documents listed in
// `ids` (global ids, ascending) from ids[*next] on, and moves *next past each
// one kept. `ids` and `next` must outlive the walk.
inline std::function<bool(uint64_t, const DocRecord&)> KeepListed(uint32_t shard, const std::vector<uint64_t>& ids,
                                                                  size_t* next) {
  return [shard, &ids, next](uint64_t k, const DocRecord&) {
    if (*next == ids.size() || ids[*next] != GlobalId(shard, k)) return false;
    ++*next;
    return true;
  };
}

// One value for what every shard of a work folder must share: the
// SignatureParams, the banding, and every option that decides what a
// document is (--input, --min-words, --max-filesize; with JSONL --text-key,
// --id-key and --max-line), and whether the distinct-shingle counts are
// kept (--relation other than similar). Sign tasks run with other such
// options are refused by every later stage, as a mixed tree is.
uint64_t SignFingerprint(const Options& options);

// A fingerprint of a walk's whole listing: XXH3-64 over every walked file,
// in walk order, of its path, size and flags. Every sign task of a run walks
// the same tree, so their shares fit together only when their listings
// agree: a file renamed, added, removed or resized between two tasks changes
// it. A stat that is not content (device, inode, mtime, ctime) is not in it:
// what a task saw of its own files is (ShardMeta::seen).
uint64_t ListingFingerprint(const std::vector<InputFile>& files);

// The document count of shard `shard`, from its table's header: Corrupt
// (naming the file) for a damaged header or one of another size than the
// file's, IoError when it cannot be read.
Result<uint64_t> ShardDocCount(const WorkFolder& folder, uint32_t shard);

// What the checks of a shard's meta read of its files: their count, the
// first and the last (a reader that does not hold every file's record keeps
// these).
struct FileEnds {
  uint64_t count = 0;
  InputFile first = {};  // when count > 0
  InputFile last = {};   // when count > 0
};
FileEnds EndsOf(const std::vector<InputFile>& files);

// Checks what a shard's meta says against the shard it came from (`shard`
// of `shards`, holding `files` files and `docs` documents): its task, the
// problems' files and kinds, one root and kept path a file, one line hash a
// document; its first_begin and last_end within its files' sizes. Corrupt
// naming what is wrong; else Ok.
Status CheckShardMeta(const ShardMeta& meta, uint32_t shard, uint32_t shards, const FileEnds& files, uint64_t docs);
// Whether the shard's first file continues an earlier shard's range of it,
// and whether a later shard continues its last file (REQUIRES: checked by
// CheckShardMeta against `files`).
inline bool ContinuesFirst(const ShardMeta& m, const FileEnds& files) { return files.count > 0 && m.first_begin > 0; }
inline bool ContinuedLast(const ShardMeta& m, const FileEnds& files) {
  return files.count > 0 && m.last_end < files.last.size;
}

// The records of a shard's table `bytes` that a reader of a few documents
// needs: the documents `walk.keep` picks (DecodeRecordsWith(), `walk` as
// given but for keep_file) and only the files of those documents and of
// `files` (indices in the shard, any order): not one record per file of the
// shard. DecodedRecords::files holds them in the shard's order, their
// indices there ascending in *file_ids; the documents' `file` still index
// the shard's files. A shard of more than kFewFiles files is walked a second
// time for them (without the checksum: `bytes` must not change between).
// Errors: DecodeRecordsWith()'s.
inline constexpr uint64_t kFewFiles = 4096;
Result<DecodedRecords> ReadShardRecords(std::string_view bytes, RecordWalk walk, std::vector<uint64_t> files,
                                        std::vector<uint64_t>* file_ids);

// The shard tables of `folder` (sign/0.table, 1.table, ... up to the first
// absent one) against `options`: InvalidArgument naming each difference of
// their SignatureParams ("--ngram: 5 here, 7 in shard 0"), Corrupt for a
// damaged header; else Ok.
Status CheckShardParams(const WorkFolder& folder, const Options& options);

// The listings of the finished shards of `folder` (those of tasks below
// `tasks` whose marker is there) against `expected`, or against each other
// when `expected` is empty. InvalidArgument naming the shard, "the inputs
// changed between sign tasks; run again in an empty work folder", when one
// differs; Corrupt or IoError for a meta that cannot be read; else Ok.
// With `walked` (a sign task's walk, whose ListingFingerprint is
// `expected`), the message names the file that differs when a finished
// shard's own files (read from its table) show it ("PATH: gone since sign
// task I walked it", "PATH: its size changed since ...").
Status CheckShardListings(const WorkFolder& folder, uint32_t tasks, std::optional<uint64_t> expected,
                          const std::vector<InputFile>* walked = nullptr);

// Whether the files of finished shard `meta` (whose listing is that of
// `walked`: its files are walked[first_file...]) are still as its task read
// them: a file's size, device, inode and mtime as seen, or else its part's
// bytes (read through `fs`) hashing as seen. A ctime is never compared. InvalidArgument naming the first file
// that differs ("PATH changed since sign task I read it: the inputs changed
// between sign tasks; run again in an empty work folder"); else Ok.
// REQUIRES: meta.listing == ListingFingerprint(walked).
Status CheckShareUnchanged(const WorkFolder& folder, const ShardMeta& meta, const std::vector<InputFile>& walked,
                           FileSystem& fs);

}  // namespace neardup
