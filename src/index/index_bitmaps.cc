#include "index/index_bitmaps.h"

#include <algorithm>
#include <utility>

#include "base/coding.h"
#include "index/index_schema.h"
#include "sign/set_bitmap_codec.h"

namespace neardup {

std::string BitmapBlob(const SetBitmap& bitmap) {
  std::string out;
  out.reserve(SetBitmapBytes(bitmap) + sizeof(uint64_t));
  PutSetBitmap(&out, bitmap);
  PutChecksum(&out);
  return out;
}

SetBitmap BitmapOfBlob(std::string_view blob) {
  if (!ChecksumMatches(blob)) return SetBitmap();
  Decoder in(blob.substr(0, blob.size() - sizeof(uint64_t)));
  SetBitmap out = GetSetBitmap(in);
  if (!in.ok() || in.left() != 0) return SetBitmap();
  return out;
}

Status PutBitmaps(sqlite3* h, StmtCache& cache, const std::string& path, int64_t file_id,
                  std::span<const DocRecord> docs, std::span<const SetBitmap> bitmaps) {
  if (bitmaps.empty()) return Status::Ok();
  Stmt& ins = Cached(h, cache, "INSERT OR REPLACE INTO bitmaps(key, bitmap) VALUES(?, ?)");
  if (!ins.ok()) return SqlError(h, path, ins.prepare_rc());
  for (size_t k = 0; k < docs.size() && k < bitmaps.size(); ++k) {
    if (bitmaps[k].empty()) continue;
    const std::string blob = BitmapBlob(bitmaps[k]);
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

Status LoadBitmaps(sqlite3* h, const std::string& path, const std::vector<const IndexedFile*>& wanted,
                   uint64_t budget_bytes, const BitmapFn& bitmap) {
  if (wanted.empty()) return Status::Ok();
  std::vector<std::pair<int64_t, size_t>> slots;  // (file id, slot), by id
  slots.reserve(wanted.size());
  for (size_t k = 0; k < wanted.size(); ++k) slots.emplace_back(wanted[k]->id, k);
  std::sort(slots.begin(), slots.end());
  Stmt q(h, "SELECT key, bitmap FROM bitmaps WHERE key BETWEEN ? AND ?");
  if (!q.ok()) return SqlError(h, path, q.prepare_rc());
  q.Bind(1, DocKey(slots.front().first, 0));
  q.Bind(2, DocKey(slots.back().first, kMaxLine));
  uint64_t given = 0;
  auto at = slots.begin();  // rows come in key order: the wanted ids are met in order
  int rc = SQLITE_OK;
  while ((rc = q.Step()) == SQLITE_ROW && given <= budget_bytes) {
    const int64_t id = q.Int(0) >> kLineBits;
    while (at != slots.end() && at->first < id) ++at;
    if (at == slots.end()) break;
    if (at->first != id || q.Type(1) != SQLITE_BLOB) continue;
    const auto* data = static_cast<const char*>(q.Blob(1));  // before Bytes(), as SQLite asks
    const std::string_view blob(data, q.Bytes(1));
    SetBitmap b = BitmapOfBlob(blob);
    if (b.empty()) continue;
    given += b.bytes();
    bitmap(at->second, q.UInt(0) & kMaxLine, std::move(b));
  }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return SqlError(h, path, rc);
  return Status::Ok();
}

}  // namespace neardup
