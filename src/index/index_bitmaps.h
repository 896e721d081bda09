// The `bitmaps` table of an --index file: per stored document, the SetBitmap
// of its shingle set (set_bitmap.h) when the run that signed it built one
// (WantsBitmaps, sign.h), so that a later run that wants bitmaps gets them
// for the documents it reuses, and --exact rules out the same candidate
// pairs as a run without an index (it reads the same documents again).
//
// A row is keyed as its document (DocKey: file id times 2^32 plus line); a
// document without a row has no bitmap (rules nothing out). Its blob is
// PutSetBitmap()'s bytes followed by their XXH3-64 checksum (coding.h). A
// blob that is not whole (checksum, decoding, bytes left over) is taken as
// no bitmap: a damaged bitmap is never trusted, and a run only reads more
// documents again for it. Rows change with their documents' rows, in the
// same transactions (signature_index.cc).
//
// Reads are one pass over the table in key order; only a run that wants
// bitmaps makes it (a run at -t 0.7 and above, or with --verify signature,
// never reads the table).
//
// Thread safety: free functions; a connection is used by one thread at a time.
//
//   PutBitmaps(h, cache, path, file_id, docs, bitmaps);
//   LoadBitmaps(h, path, wanted, budget, [&](size_t slot, uint64_t line, SetBitmap&& b) { ... });
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "index/index_sql.h"
#include "index/signature_index.h"
#include "sign/set_bitmap.h"

namespace neardup {

// The blob stored for `bitmap`: its bytes (set_bitmap_codec.h) and their
// checksum.
std::string BitmapBlob(const SetBitmap& bitmap);

// The bitmap stored as `blob`; an empty one (no bitmap) when the blob is
// damaged: a wrong checksum, bytes no bitmap gives, or bytes left over.
SetBitmap BitmapOfBlob(std::string_view blob);

// Stores the bitmaps of the documents `docs` of file `file_id`
// (bitmaps[k] for docs[k]); an empty bitmap stores no row. `bitmaps` empty:
// nothing is stored. Errors: SqlError's.
// REQUIRES: bitmaps is empty or holds one per document; a write transaction.
Status PutBitmaps(sqlite3* h, StmtCache& cache, const std::string& path, int64_t file_id,
                  std::span<const DocRecord> docs, std::span<const SetBitmap> bitmaps);

// Deletes the bitmaps of file `file_id`. Errors: SqlError's.
Status DeleteBitmaps(sqlite3* h, StmtCache& cache, const std::string& path, int64_t file_id);

// What LoadBitmaps() gives: the bitmap of the document at line `line` of
// the wanted file `slot`.
using BitmapFn = std::function<void(size_t slot, uint64_t line, SetBitmap&& bitmap)>;

// Gives `bitmap` the stored bitmaps of the files `wanted` (wanted[slot]), in
// one pass over the table in key order, until the bitmaps given hold more
// than `budget_bytes` (SetBitmap::bytes()): the rest are not read. Damaged
// blobs are left out (BitmapOfBlob). Errors: SqlError's.
Status LoadBitmaps(sqlite3* h, const std::string& path, const std::vector<const IndexedFile*>& wanted,
                   uint64_t budget_bytes, const BitmapFn& bitmap);

}  // namespace neardup
