// ShardWriter: a stage sign task's table and band keys, written as its
// documents are signed, so that a task's memory does not grow with its
// share.
//
// Documents come in blocks, in DocId order (Take(): a block of a JSONL file
// as committed, or a chunk of text files). Each block is let go at once:
//  - its records, signatures and content hashes are appended to three
//    anonymous temporary files (TempFile: under TMPDIR, gone however the
//    task ends);
//  - its band keys (one per band per signed document) go to one external
//    sort by (band, hash, id), in kBandSortBudget bytes of memory, past which
//    runs spill to TMPDIR;
//  - what the meta needs per document (the JSONL line hash, 4 bytes) stays.
// Finish() writes sign/I.table (table_codec.h: header, files, records,
// signatures, checksum, streamed from the temporary files) and sign/I.bands
// (stage_sign.h: the merged keys band after band, then the content hashes),
// each atomically. The bytes are those an in-memory table would encode to.
//
// Peak memory: the block being taken, kBandSortBudget, the merge's read-ahead
// and 4 bytes a document; TMPDIR holds about (52 + name + 4 * num_perm +
// 16 + 16 * bands) bytes a document until Finish() returns.
//
// Thread safety: one thread at a time (the one that commits blocks).
//
//   ShardWriter writer(params, banding, fingerprint, share.size());
//   if (Status s = writer.Open(); !s.ok()) return s;
//   ... writer.Take(table, first_file) for each block ...
//   Status s = writer.Finish(share, "work/sign/0.table", "work/sign/0.bands");
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/sorted_runs.h"
#include "base/temp_file.h"
#include "distributed/stage_sign.h"
#include "lsh/banding.h"
#include "neardup/status.h"
#include "sign/signature_table.h"

namespace neardup {

// The memory the band keys are sorted in before a run spills.
inline constexpr size_t kBandSortBudget = size_t{32} << 20;

class ShardWriter {
 public:
  // For a share of `files` files signed with `params`, banded by `banding`;
  // `fingerprint` is SignFingerprint() of the run.
  ShardWriter(const SignatureParams& params, Banding banding, uint64_t fingerprint, uint64_t files);
  ShardWriter(const ShardWriter&) = delete;
  ShardWriter& operator=(const ShardWriter&) = delete;

  // Creates the temporary files. IoError when TMPDIR cannot hold them.
  Status Open();
  // Takes the documents of `table` (contiguous), whose `file` fields count
  // from the share's file `first_file`, and leaves it without documents.
  // The first error (a temporary file full, a record that cannot be
  // encoded) is kept: every later call and Finish() return it.
  Status Take(SignatureTable& table, uint64_t first_file);
  // Writes the table and the band keys. `files` are the share's files.
  Status Finish(const std::vector<InputFile>& files, const std::string& table_path, const std::string& bands_path);

  uint64_t documents() const { return docs_; }
  // Per document, DocRecord::line_hash (the shard meta's).
  const std::vector<uint32_t>& line_hashes() const { return line_hashes_; }

 private:
  // A band key while sorting: ordered by band, then hash, then id.
  struct Key {
    uint64_t hash = 0;
    uint64_t band_id = 0;  // band << kShardShift | local id
    bool operator<(const Key& o) const {
      const uint64_t band = band_id >> kShardShift;
      const uint64_t other = o.band_id >> kShardShift;
      if (band != other) return band < other;
      return hash != o.hash ? hash < o.hash : band_id < o.band_id;
    }
  };
  Status Spool(TempFile& file, const std::string& bytes);
  Status WriteTable(const std::vector<InputFile>& files, const std::string& path);
  Status WriteBands(const std::string& path);

  SignatureParams params_;
  Banding banding_;
  uint64_t fingerprint_;
  uint64_t files_;
  TempFile records_, signatures_, copies_;
  SortedRuns<Key> keys_;
  uint64_t docs_ = 0;
  uint64_t signed_ = 0;      // documents of kind kOk: band keys per band
  uint64_t docs_bytes_ = 0;  // of the records
  std::vector<uint32_t> line_hashes_;
  Status error_;
};

}  // namespace neardup
