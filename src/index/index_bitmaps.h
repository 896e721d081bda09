// The `bitmaps` table of an --index file: per stored document, the SetBitmap
// of its shingle set (set_bitmap.h) when the run that signed it built one
// (WantsBitmaps, sign.h), so that a later run that wants bitmaps gets them
// for the documents it reuses, and --exact rules out the same candidate
// pairs as a run without an index (it reads the same documents again).
//
// A row is keyed as its document (DocKey: file id times 2^32 plus line); a
// document without a row has no bitmap (rules nothing out). Its blob is
// the content hash of the document it was built from (u64 high, u64 low),
// PutSetBitmap()'s bytes, then the XXH3-64 checksum of all of them
// (coding.h). A blob that is not whole (checksum, decoding, bytes left
// over), or made for another content than the document's at its key, is
// taken as no bitmap: a damaged or stray bitmap is never trusted, and a run
// only reads more documents again for it. (Two documents of one content
// have one shingle set: either one's bitmap bounds it.) Rows change with their documents' rows, in the
// same transactions (signature_index.cc).
//
// Reads are lookups by key of the bitmaps of the documents in candidate
// pairs (StoredBitmaps), made after banding; only a run that wants bitmaps
// makes them (a run at -t 0.7 and above, or with --verify signature, never
// reads the table).
//
// Thread safety: free functions; a connection is used by one thread at a time.
//
//   PutBitmaps(h, cache, path, file_id, docs, bitmaps);  // in the write transaction
//   Result<std::unique_ptr<StoredBitmaps>> sb = StoredBitmaps::Open(path, std::move(key_of_doc));
//   (*sb)->Fill(wanted, budget, &corpus.bitmaps);
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/types.h"
#include "index/index_sql.h"
#include "neardup/status.h"
#include "sign/set_bitmap.h"

namespace neardup {

// The blob stored for `bitmap`, built from a document of content `content`.
std::string BitmapBlob(const SetBitmap& bitmap, const ContentHash& content);

// The bitmap stored as `blob` for a document of content `content`; an empty
// one (no bitmap) when the blob is damaged (a wrong checksum, bytes no
// bitmap gives, bytes left over) or was made for another content.
SetBitmap BitmapOfBlob(std::string_view blob, const ContentHash& content);

// Stores the bitmaps of the documents `docs` of file `file_id`
// (bitmaps[k] for docs[k]); an empty bitmap stores no row. `bitmaps` empty:
// nothing is stored. Errors: SqlError's.
// REQUIRES: bitmaps is empty or holds one per document; a write transaction.
Status PutBitmaps(sqlite3* h, StmtCache& cache, const std::string& path, int64_t file_id,
                  std::span<const DocRecord> docs, std::span<const SetBitmap> bitmaps);

// Deletes the bitmaps of file `file_id`. Errors: SqlError's.
Status DeleteBitmaps(sqlite3* h, StmtCache& cache, const std::string& path, int64_t file_id);

// The stored bitmaps of the documents a run reused, read only when asked:
// after banding, those of the documents in candidate pairs, so that a run
// reads the bitmaps of the few documents they name rather than all of
// them. Reads go through a read-only connection whose snapshot was taken
// when the run's last write committed, under its lock (Open()): whatever a
// later run writes, a bitmap read is the one stored with the document the
// run reused.
//
// Thread safety: one thread at a time.
class StoredBitmaps {
 public:
  // Opens `path` (read-write, to read only) and begins the snapshot. `key_of_doc`: per DocId of
  // the run, its document's key (DocKey), or -1 for one to read none of (a
  // document signed now has its bitmap already). Errors: SqlError's.
  // REQUIRES: the caller holds the index's lock and has committed.
  static Result<std::unique_ptr<StoredBitmaps>> Open(const std::string& path, std::vector<int64_t> key_of_doc);
  StoredBitmaps(const StoredBitmaps&) = delete;
  StoredBitmaps& operator=(const StoredBitmaps&) = delete;

  // Reads into (*bitmaps)[d] the stored bitmap of each document d with
  // wanted[d] != 0 and a key, by key, until the bitmaps read hold
  // `budget_bytes`. A document without one, or whose blob is damaged or of
  // another content than docs[d]'s, is left as it is. Errors: SqlError's
  // (the bitmaps read before stay: each is sound).
  // REQUIRES: wanted, docs and *bitmaps have one entry per DocId.
  Status Fill(const std::vector<uint8_t>& wanted, std::span<const DocRecord> docs, uint64_t budget_bytes,
              std::vector<SetBitmap>* bitmaps);
  // Bitmaps read so far.
  uint64_t read() const { return read_; }

 private:
  StoredBitmaps(Db db, std::string path, std::vector<int64_t> key_of_doc)
      : db_(std::move(db)), path_(std::move(path)), key_of_doc_(std::move(key_of_doc)) {}
  Db db_;
  std::string path_;
  std::vector<int64_t> key_of_doc_;
  uint64_t read_ = 0;
};

}  // namespace neardup
