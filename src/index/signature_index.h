// SignatureIndex: signatures kept between runs in one SQLite file, so that a
// scan reads and signs only the files that are new or changed (--index).
//
// The file holds, per input file (keyed by its canonical absolute path),
// the stat that says it is unchanged (dev, inode, size, mtime_ns, ctime_ns,
// plus a fingerprint of the options that decide which documents a file
// yields), when the index saw it (seen_ns: a stat within the file system's
// timestamp resolution of it proves nothing), what signing it added to the run's
// counts, and for a JSONL file the number of lines and the XXH3 of its bytes
// (so that a file that only grew signs only its new lines); per document its
// name as read (before duplicate ids are renamed), size, kind, content hash
// and signature, and its SetBitmap when the run that signed it built one
// (index_bitmaps.h); per JSONL file its malformed lines' messages; the signature
// parameters; one row per run (its exit and whether its output was
// delivered); and which not yet delivered files each run covered. The schema
// and its migrations are index_schema.h (described in docs/index.md); its
// version is PRAGMA user_version, and PRAGMA application_id marks the file as
// neardup's. What `index info` and `index check` read is index_check.h.
//
// Invariants: the index changes only in SQLite transactions (WAL mode), and a
// file's row, documents and problems change in one transaction, so a process
// killed at any moment leaves an index whose every file entry is whole. Every
// signature has num_perm values.
//
// One writer at a time: Open() takes an exclusive flock(2) on the file (not
// SQLite's fcntl locks; the kernel drops it when the holder dies) and writes
// the holder's pid, host and start time in the `lock` table. A second Open()
// fails at once with "FILE: in use by pid P on HOST since T" unless it was
// told to wait (index_lock.h).
//
// Errors are one line naming the file: not a neardup index, corrupt, a newer
// schema, read-only, disk full, parameters that differ. The core never prints.
//
// Thread safety: one SignatureIndex is used by one thread at a time.
//
//   Result<std::unique_ptr<SignatureIndex>> ix = SignatureIndex::Open("mirror.db", params, {});
//   Result<std::vector<IndexedFile>> files = (*ix)->Files();
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "neardup/index.h"
#include "neardup/status.h"
#include "sign/set_bitmap.h"
#include "sign/signature_table.h"

namespace neardup {

// What the index keeps of one input file.
struct IndexedFile {
  int64_t id = 0;    // row id in `files`; 0 for a new entry
  std::string path;  // the key: the file's canonical absolute path (IndexKeys, sign_indexed.h)
  uint64_t dev = 0;
  uint64_t inode = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  uint64_t reading = 0;  // fingerprint of the options that decide its documents
  bool jsonl = false;
  uint64_t lines = 0;  // JSONL: newlines in the file
  // XXH3-64 (seed 0) of the file's bytes as signed, which proves an entry
  // whose stat changed; 0: unknown (a text file stored before neardup kept
  // it, a file not read to its end).
  uint64_t raw_hash = 0;
  bool ends_newline = false;  // JSONL: the file is empty or ends with '\n'
  // What signing the file added to the run's totals.
  uint64_t bytes = 0;
  uint64_t invalid_utf8 = 0;
  uint64_t transcoded = 0;
  uint64_t documents = 0;  // rows in `documents`
  // Wall clock (ns since the epoch) when the run that last wrote the entry
  // began, before its walk stat'ed the file; set by the index on every write
  // (this field is ignored there). 0: unknown (an entry of a version 1 index).
  int64_t seen_ns = 0;
  // 0 when the documents of the entry were delivered by a --new run of the
  // index's job (one whose whole output went into a regular file,
  // RecordRunExit; NewJob); else the id of the run that
  // last signed it: until delivered, --new counts its documents as new. Set
  // by the index on every write (this field is ignored there).
  int64_t pending = 0;
  // Not stored: the path the writing run walked the file as. Document names
  // made from it (the path, PATH:LINE) are stored as NULL, and problem
  // messages "PATH:LINE: reason" as ":LINE: reason", so that a run that
  // spells the file another way names them its way.
  std::string walked_as;
};

// An entry's pending mark (IndexedFile::pending).
struct PendingMark {
  int64_t id = 0;
  int64_t pending = 0;
};

// A stored JSONL problem (a malformed or too long line).
struct StoredProblem {
  uint64_t line = 0;
  std::string message;
};

struct IndexOpenOptions {
  // Seconds to wait for another run's lock; 0 = fail at once.
  double lock_wait = 0;
  // The run counts distinct shingles (--relation contains|both): the files
  // of documents stored without a count (0: a version 4 index, or a run
  // without --relation) are marked to be signed again when next walked, as
  // SignFilesAgain() marks them, so that their counts are filled.
  bool count_shingles = false;
};

class SignatureIndex {
 public:
  // Opens (creating when missing or empty) the index at `path` for writing,
  // takes the writer's lock and checks `params` against the stored ones.
  // Errors (InvalidArgument unless said): "PATH: not a neardup index ...",
  // "PATH: corrupt ...", "PATH: schema version N is newer ...", "PATH:
  // read-only ...", "PATH: in use by pid P on HOST since T", "PATH: the
  // signature parameters differ from the index's: ...; to start a new index,
  // give another --index FILE or remove PATH", "PATH: the index has N names
  // (hard links) ..." (an index is written under one name only: SQLite
  // keeps its journal by name).
  static Result<std::unique_ptr<SignatureIndex>> Open(const std::string& path, const SignatureParams& params,
                                                      const IndexOpenOptions& options);
  ~SignatureIndex();
  SignatureIndex(const SignatureIndex&) = delete;
  SignatureIndex& operator=(const SignatureIndex&) = delete;

  // Every file entry, each row checked (index_rows.h): a row that fails is
  // a one-line Corrupt error naming it, as is a sum of documents the file's
  // size cannot hold. Once `stop` (when set) reads true, returns Cancelled
  // within kStopRows rows.
  static constexpr int64_t kStopRows = 1024;
  Result<std::vector<IndexedFile>> Files(const std::atomic<bool>* stop = nullptr);
  // Calls `doc(slot, record, signature)` for each stored document of the
  // files `wanted` (entries Files() returned, which must outlive the call;
  // wanted[k] is the file for slot k), a file's documents by line; the
  // record's `file` is 0, `name` the raw name, or empty for a name made from
  // the file's path (the path for a text document, PATH:LINE for JSONL; see
  // IndexedFile::walked_as). Every row is checked first (index_rows.h), and
  // each file's rows counted: a row that fails, or a count that is not the
  // entry's, is a one-line Corrupt error naming the row (the documents given
  // before it are then of no use). With `threads` > 1, a large load is read
  // on up to that many threads (read-only connections of their own besides
  // this one), and `doc` is called from all of them at once, each slot from
  // one thread.
  // REQUIRES: Files() was called (it sets the limits the rows are checked against).
  using DocFn = std::function<void(size_t, DocRecord&&, SignatureView)>;
  // Once `stop` (when set) reads true, returns Cancelled within a row.
  Status LoadDocuments(const std::vector<const IndexedFile*>& wanted, const DocFn& doc, int threads = 1,
                       const std::atomic<bool>* stop = nullptr);
  // The stored problems of the files in `wanted`, as LoadDocuments, checked.
  Status LoadProblems(const std::vector<const IndexedFile*>& wanted,
                      const std::function<void(size_t, StoredProblem&&)>& problem);

  // Writes are grouped: Begin(), any number of Put/Append/Remove, Commit().
  Status Begin();
  Status Commit();
  // Replaces the entry file.id (documents and problems too) with these, or
  // adds one when file.id is 0 (REQUIRES: then no entry has file.path);
  // `signatures` holds num_perm values per document; `bitmaps` is empty
  // (none stored) or holds one per document (an empty one: none stored for it).
  Status PutFile(const IndexedFile& file, std::span<const DocRecord> docs, std::span<const uint32_t> signatures,
                 std::span<const StoredProblem> problems, std::span<const SetBitmap> bitmaps = {});
  // Updates the row of an existing entry (file.id) and adds documents and
  // problems (and bitmaps, as PutFile) to it (a JSONL file that grew).
  Status AppendToFile(const IndexedFile& file, std::span<const DocRecord> docs, std::span<const uint32_t> signatures,
                      std::span<const StoredProblem> problems, std::span<const SetBitmap> bitmaps = {});
  Status RemoveFile(int64_t id);
  // Gives the entry file.id the stat in `file` (dev, inode, mtime_ns,
  // ctime_ns) and this run's start as its seen_ns; its documents, counts and
  // pending mark stay: a file whose bytes were found as stored (chmod, touch,
  // a hard link).
  Status UpdateStat(const IndexedFile& file);

  // Records a run's start (its own transaction); returns its id. The entries
  // the run writes get this moment as their seen_ns: call it before the
  // run's files are stat'ed.
  Result<int64_t> StartRun(const std::string& options);
  // Records the end of the run StartRun() began, with its counts.
  Status EndRun(const IndexRun& counts);
  // Puts back the marks in `unchanged` (entries written again, by a racily
  // clean file, with the documents they had: as delivered as before). Every
  // run calls it once, in its last transaction.
  Status PutBackMarks(std::span<const PendingMark> unchanged);
  // Records which pending files (IndexedFile::pending) the run covers: those
  // in `reused_pending` (entries it reused) and those it signed. Their marks
  // are cleared when RecordRunExit records that the run delivered its output
  // as a run of the index's --new job. Only such a run calls it (a --new run
  // of the index's job, or of an index with none; NewJob), once, in its last
  // transaction, after PutBackMarks.
  Status CoverPending(std::span<const int64_t> reused_pending);
  // The index's --new job (meta: new_job, new_job_options); empty fields
  // when no --new run has delivered yet.
  Result<NewJob> StoredNewJob();
  // The run StartRun() began; 0 before.
  int64_t run() const;

  const std::string& path() const { return path_; }

  // True when Open() found the index's signatures made by an older MinHash
  // definition (sign/minhash.h): every file is then signed again when next
  // walked (SignFilesAgain, index_schema.h), once.
  bool signs_again() const;
  // The files Open() marked to be signed again for their shingle counts
  // (IndexOpenOptions::count_shingles).
  uint64_t counts_again() const;

 private:
  struct Impl;
  explicit SignatureIndex(std::unique_ptr<Impl> impl, std::string path);
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

// Removes the entries keyed `keys` (documents and problems too) from the
// index at `path`, in one transaction, so that the next run signs those files
// again: what a run does once --exact found them changed since their stored
// signatures. Opens the file as RecordRunExit does; errors as it.
Status ForgetFiles(const std::string& path, const std::vector<std::string>& keys);

}  // namespace neardup
