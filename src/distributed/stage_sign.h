// Stage sign: task I of N signs a share of the inputs into the work folder
// (`neardup stage sign`), the first of the three stages that together give
// the scan's answer on many machines (sign -> bucket -> report).
//
// Every task walks the same inputs (the walk is a pure function of the
// options and the file system) and takes its share (byte_shares.h): with
// --input jsonl, an N-th of the walked bytes, cut at newlines, so that one
// large file is shared too; with text, the contiguous share
// [I*F/N, (I+1)*F/N) of the F walked files. The shards in task order hold
// the documents in the scan's DocId order; a file split between shards
// appears in each of them, its documents with their true line numbers. It
// writes (work_folder.h):
//  - sign/I.table: its SignatureTable (table_codec.h), local ids;
//  - sign/I.meta: its problems and counts, the walk's tally, the
//    fingerprint of the whole listing it walked, and what it saw of each
//    file of its share (ShardMeta, format/shard_meta.h);
//  - sign/I.bands: for each band, one entry (band hash, local id) per signed
//    document, in sorted runs (as the keys spilled), so that a bucket task
//    reads only its bands; then each document's content hash, once
//    (format/band_file.h);
//  - sign/I.done, last.
// The table and the band keys are streamed as the documents are signed
// (shard_writer.h): a task's memory does not grow with its share.
// A document's global id is (shard << 40) | local index (kShardShift,
// format/shard_meta.h): ids of distinct shards never collide, and their
// order is the scan's.
//
// A task walks before anything else, and refuses to sign (or to count
// itself done) when a finished shard, its own included, walked another
// listing (paths and sizes): the inputs changed between the tasks, and their
// shares would overlap or leave files out (CheckShardListings). A finished
// task run again also refuses when a file of its own share changed since it
// read it (CheckShareUnchanged): metadata that is not content is not a
// change (a ctime always; an mtime or inode when the file's bytes hash as
// they did), so a work folder is used again after --kept-dir hard-linked
// the inputs, and a file whose content changed is named once, by the task
// whose share holds it.
//
// JSONL ids are made unique later, over all shards, by the report.
// A stream input (stdin, a pipe) cannot be read by a stage task: it is an
// error (save it to a file first).
//
// Thread safety: RunSignTask uses options.threads threads inside.
//
//   bool done = false;
//   Status s = RunSignTask(options, "work", {.task = 0, .tasks = 4}, {}, &done);
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "distributed/format/band_file.h"
#include "distributed/format/shard_meta.h"
#include "distributed/work_folder.h"
#include "lsh/banding.h"
#include "neardup/options.h"
#include "neardup/scan.h"
#include "neardup/stages.h"
#include "neardup/status.h"
#include "sign/sign.h"
#include "sign/table_codec.h"
#include "walk/walk.h"

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
// --id-key and --max-line). Sign tasks run with other such options are
// refused by every later stage, as a mixed tree is.
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
