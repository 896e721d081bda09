#include "index/index_bitmaps.h"

#include <algorithm>
#include <utility>

#include "base/coding.h"
#include "index/index_schema.h"
#include "sign/set_bitmap_codec.h"

namespace neardup {

std::string BitmapBlob(const SetBitmap& bitmap, const ContentHash& content) {
  std::string out;
  out.reserve(2 * sizeof(uint64_t) + SetBitmapBytes(bitmap) + sizeof(uint64_t));
  PutFixed64(&out, content.high);
  PutFixed64(&out, content.low);
  PutSetBitmap(&out, bitmap);
  PutChecksum(&out);
  return out;
}

SetBitmap BitmapOfBlob(std::string_view blob, const ContentHash& content) {
  if (!ChecksumMatches(blob)) return SetBitmap();
  Decoder in(blob.substr(0, blob.size() - sizeof(uint64_t)));
  ContentHash made_for;
  made_for.high = in.U64("a bitmap's content");
  made_for.low = in.U64("a bitmap's content");
  SetBitmap out = GetSetBitmap(in);
  if (!in.ok() || in.left() != 0 || !(made_for == content)) return SetBitmap();
  return out;
}

Status PutBitmaps(sqlite3* h, StmtCache& cache, const std::string& path, int64_t file_id,
                  std::span<const DocRecord> docs, std::span<const SetBitmap> bitmaps) {
  if (bitmaps.empty()) return Status::Ok();
  Stmt& ins = Cached(h, cache, "INSERT OR REPLACE INTO bitmaps(key, bitmap) VALUES(?, ?)");
  if (!ins.ok()) return SqlError(h, path, ins.prepare_rc());
  for (size_t k = 0; k < docs.size() && k < bitmaps.size(); ++k) {
    if (bitmaps[k].empty()) continue;
    const std::string blob = BitmapBlob(bitmaps[k], docs[k].content);
    ins.Reset();
    ins.Bind(1, DocKey(file_id, docs[k].line));
    ins.BindBlob(2, blob.data(), blob.size());
    if (const int rc = ins.Step(); rc != SQLITE_DONE) return SqlError(h, path, rc);
  }
  return Status::Ok();
}

Status DeleteBitmaps(sqlite3* h, StmtCache& cache, const std::string& path, int64_t file_id) {
  Stmt& del = Cached(h, cache, "DELETE FROM bitmaps WHERE key BETWEEN ? AND ?");
  if (!del.ok()) return SqlError(h, path, del.prepare_rc());
  del.Bind(1, DocKey(file_id, 0));
  del.Bind(2, DocKey(file_id, kMaxLine));
  if (const int rc = del.Step(); rc != SQLITE_DONE) return SqlError(h, path, rc);
  return Status::Ok();
}

Result<std::unique_ptr<StoredBitmaps>> StoredBitmaps::Open(const std::string& path, std::vector<int64_t> key_of_doc) {
  // Opened read-write, to read only: SQLite shares one set of file locks
  // among the connections of a process, and takes them through any of their
  // descriptors; a read-only descriptor cannot take a write lock for the
  // writer that opens the index next in this process (EBADF, "disk I/O
  // error"). The file was checked by the writer that holds the lock.
  int rc = SQLITE_OK;
  Db db = Connect(path, /*write=*/true, /*immutable=*/false, &rc);
  if (rc != SQLITE_OK) return SqlError(db.get(), path, rc);
  sqlite3* h = db.get();
  // The snapshot begins with the first read of the transaction.
  if (rc = Exec(h, "BEGIN; SELECT 1 FROM bitmaps LIMIT 1;"); rc != SQLITE_OK) return SqlError(h, path, rc);
  return std::unique_ptr<StoredBitmaps>(new StoredBitmaps(std::move(db), path, std::move(key_of_doc)));
}

Status StoredBitmaps::Fill(const std::vector<uint8_t>& wanted, std::span<const DocRecord> docs, uint64_t budget_bytes,
                           std::vector<SetBitmap>* bitmaps) {
  std::vector<std::pair<int64_t, size_t>> keys;  // (key, DocId), by key: the table read in order
  for (size_t d = 0; d < wanted.size() && d < key_of_doc_.size(); ++d) {
    if (wanted[d] != 0 && key_of_doc_[d] >= 0) keys.emplace_back(key_of_doc_[d], d);
  }
  std::sort(keys.begin(), keys.end());
  sqlite3* h = db_.get();
  Stmt q(h, "SELECT bitmap FROM bitmaps WHERE key = ?");
  if (!q.ok()) return SqlError(h, path_, q.prepare_rc());
  uint64_t given = 0;
  for (const auto& [key, doc] : keys) {
    if (given > budget_bytes) break;
    q.Reset();
    q.Bind(1, key);
    const int rc = q.Step();
    if (rc == SQLITE_DONE) continue;  // stored without one
    if (rc != SQLITE_ROW) return SqlError(h, path_, rc);
    if (q.Type(0) != SQLITE_BLOB) continue;
    const auto* data = static_cast<const char*>(q.Blob(0));  // before Bytes(), as SQLite asks
    SetBitmap b = BitmapOfBlob(std::string_view(data, q.Bytes(0)), docs[doc].content);
    if (b.empty()) continue;
    given += b.bytes();
    ++read_;
    (*bitmaps)[doc] = std::move(b);
  }
  return Status::Ok();
}

}  // namespace neardup
