// ShardWriter: a stage sign task's table and band keys, written as its
// documents are signed, so that a task's memory does not grow with its
// share.
//
// Documents come in blocks, in DocId order (Take(): a block of a JSONL file
// as committed, or a chunk of text files). Each block is let go at once:
//  - its signatures go straight into sign/I.table's temporary file, at their
//    place in the matrix (table_codec.h, version 2: the files and the matrix
//    first, the header written last);
//  - its records and content hashes are appended to two anonymous temporary
//    files (TempFile: under TMPDIR, gone however the task ends), copied to
//    the end of the table and into the band file at Finish();
//  - its band keys (one per band per signed document) go to one buffer per
//    band. They arrive in id order, so a band's keys sorted by hash
//    (SortByHash: a radix partition by the hash's top bits, then small
//    sorts) are in (hash, id) order. When the buffers hold half of
//    kBandSortBudget, a spill thread sorts them band by band and appends
//    them as one run to sign/I.bands' temporary file (format/band_file.h:
//    several runs a band, which the bucket task merges), while the next
//    keys fill the other set of buffers: the thread that commits blocks
//    never sorts nor writes keys, and no key is written twice;
//  - what the meta needs per document (the JSONL line hash, 4 bytes) stays.
// Finish() spills the last buffers as the last run, completes both files
// (records, copies, trailers, headers) and renames them into place. The
// table's bytes are those an in-memory table would encode to.
//
// Peak memory: the block being taken, kBandSortBudget (two sets of key
// buffers), one band's sort scratch and 4 bytes a document; TMPDIR holds
// about (52 + name + 16) bytes a document until Finish() returns.
//
// Thread safety: one thread at a time (the one that commits blocks); the
// spill thread is the writer's own.
//
//   ShardWriter writer(params, banding, fingerprint);
//   if (Status s = writer.Open(share, "work/sign/0.table", "work/sign/0.bands"); !s.ok()) return s;
//   ... writer.Take(table, first_file) for each block ...
//   Status s = writer.Finish();
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/hash.h"
#include "base/parallel.h"
#include "base/temp_file.h"
#include "distributed/format/band_file.h"
#include "distributed/work_folder.h"
#include "lsh/banding.h"
#include "neardup/status.h"
#include "sign/signature_table.h"

namespace neardup {

// The memory band keys are sorted in: two sets of buffers of half of it
// each, one filling while the other is sorted and spilled.
inline constexpr size_t kBandSortBudget = size_t{64} << 20;

class ShardWriter {
 public:
  // For a share signed with `params`, banded by `banding`; `fingerprint` is
  // SignFingerprint() of the run.
  ShardWriter(const SignatureParams& params, Banding banding, uint64_t fingerprint);
  ShardWriter(const ShardWriter&) = delete;
  ShardWriter& operator=(const ShardWriter&) = delete;
  ~ShardWriter();

  // Starts the table at `table_path` (its files section: `files` are the
  // share's) and the temporary files; Finish() writes `bands_path`. IoError
  // when the work folder or TMPDIR cannot hold them.
  Status Open(const std::vector<InputFile>& files, const std::string& table_path, const std::string& bands_path);
  // Takes the documents of `table` (contiguous), whose `file` fields count
  // from the share's file `first_file`, and leaves it without documents.
  // The first error (a file full, a record that cannot be encoded, the
  // table's write failed) is kept: every later call and Finish() return it.
  Status Take(SignatureTable& table, uint64_t first_file);
  // As Take(table, ...), for documents `docs` whose signatures are `values`
  // (one row of num_perm values each; a committed JSONL block): the records
  // may be moved from.
  Status Take(std::vector<DocRecord>& docs, std::span<const uint32_t> values, uint64_t first_file);
  // Writes the band keys and completes the table.
  Status Finish();

  uint64_t documents() const { return docs_; }
  // Per document, DocRecord::line_hash (the shard meta's).
  const std::vector<uint32_t>& line_hashes() const { return line_hashes_; }

 private:
  using KeyBuffers = std::vector<std::vector<BandEntry>>;  // per band; `id` local

  Status Spool(TempFile& file, const std::string& bytes);
  void AppendToTable(std::string_view bytes);
  void ReserveKeys(size_t per_set);  // on the first Take()
  Status StartSpill();
  Status JoinSpill();
  Status SpillRun(KeyBuffers& keys);
  Status WriteBandsEnd();
  Status WriteTableEnd();

  SignatureParams params_;
  Banding banding_;
  uint64_t fingerprint_;
  uint64_t files_ = 0;
  uint64_t files_bytes_ = 0;  // of the file records
  std::string bands_path_;
  AtomicFileWriter table_;
  Hasher64 table_sum_;  // of the table's bytes from kTableHeaderSize on
  TempFile records_, copies_;
  std::string records_block_, copies_block_;  // a block's, reused
  uint64_t docs_ = 0;
  uint64_t signed_ = 0;      // documents of kind kOk: band keys per band
  uint64_t docs_bytes_ = 0;  // of the records
  std::vector<uint32_t> line_hashes_;
  Status error_;
  // Band keys: the set being filled, the set being spilled. While a spill
  // runs, its thread alone uses bands_, run_counts_, run_sums_, scratch_,
  // ends_ and spill_status_; the committing thread reads them after
  // JoinSpill().
  KeyBuffers filling_, spilling_;
  size_t filled_ = 0;  // keys in filling_
  AtomicFileWriter bands_;
  std::vector<uint64_t> run_counts_, run_sums_;  // per run, per band
  std::vector<BandEntry> scratch_;               // the sort's
  std::vector<uint32_t> ends_;
  Status spill_status_;
  std::unique_ptr<BackgroundTask> spill_;  // last: joined before the rest goes
};

}  // namespace neardup
