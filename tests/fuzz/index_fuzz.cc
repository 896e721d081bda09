// Fuzz harness: damaged --index files, read as `scan --index` reads them
// (OpenIndexFor, ReadStoredInputs: every files row, and the documents and
// problems of the entries under the scanned path) and as `index check` does.
//
// The input is either a whole database (bytes starting "SQLite format 3"),
// or edits of a small sound index (two text files, a JSONL file with a
// malformed line, a compressed JSONL file; 4 permutations): 12 bytes each,
// UPDATE one column of one row of `files`, `documents`, `problems` or
// `meta` to an integer (small or any 64 bits), a real, a text, a blob or
// NULL, or DELETE the row.
//
// Checks:
//   - nothing crashes, and no allocation is sized by a value read (ASan's
//     allocation limit and RSS limit catch one);
//   - every error is one line naming the index file;
//   - the scan's reads and `index check` agree: when the reads fail on a
//     row (Corrupt), `index check` lists a problem; when `index check` says
//     the index is sound, the reads succeed;
//   - what the reads give is whole: every entry read has exactly its
//     `documents` rows, each of a known kind.
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "harnesses.h"
#include "index/sign_indexed.h"
#include "index/signature_index.h"
#include "neardup/index.h"

namespace neardup::fuzz {
namespace {

constexpr int kNumPerm = 4;

Options IndexOptions(const std::string& dir) {
  Options o;
  o.num_perm = kNumPerm;
  o.bands = 2;
  o.rows = 2;
  o.input = InputFormat::kJsonl;
  o.paths = {dir + "/c"};
  o.index = dir + "/ix.db";
  o.threads = 1;
  return o;
}

// The bytes of the sound index the edits apply to, made once.
const std::string& BaseIndex(const std::string& dir) {
  static const std::string base = [&] {
    const Options o = IndexOptions(dir);
    std::filesystem::remove(o.index);
    {
      Result<std::unique_ptr<SignatureIndex>> ix = OpenIndexFor(o);
      if (!ix.ok()) std::abort();
      if (!(*ix)->Begin().ok()) std::abort();
      auto put = [&](const std::string& name, bool jsonl, uint64_t size, uint64_t lines, size_t docs,
                     std::vector<StoredProblem> problems) {
        IndexedFile f;
        f.path = dir + "/c/" + name;
        f.walked_as = f.path;
        f.jsonl = jsonl;
        f.size = size;
        f.lines = lines;
        f.ends_newline = true;
        f.bytes = size;
        std::vector<DocRecord> records(docs);
        std::vector<uint32_t> sigs;
        for (size_t k = 0; k < docs; ++k) {
          records[k].line = jsonl ? (k == 0 ? 1 : 3 + k) : 0;
          records[k].name = k == 1 ? "id" + std::to_string(k) : std::string();
          records[k].size = 10 + k;
          records[k].kind = static_cast<DocKind>(k % 5);
          records[k].content = ContentHash{.low = k, .high = size};
          for (uint32_t v = 0; v < kNumPerm; ++v) sigs.push_back(static_cast<uint32_t>(k * 31 + v));
        }
        if (!(*ix)->PutFile(f, records, sigs, problems).ok()) std::abort();
      };
      put("a.txt", false, 100, 0, 1, {});
      put("b.txt", false, 200, 0, 1, {});
      put("j.jsonl", true, 400, 6, 3, {{2, dir + "/c/j.jsonl:2: malformed"}, {3, "too long"}});
      put("z.jsonl.gz", true, 50, 0, 2, {});
      if (!(*ix)->Commit().ok()) std::abort();
    }
    std::ifstream in(o.index, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  return base;
}

// A scratch directory of this process, made once.
const std::string& ScratchDir() {
  static const std::string dir = [] {
    // In memory where the system has it (and TMPDIR does not say otherwise):
    // SQLite syncs its files on every commit.
    std::error_code ec;
    const bool shm = std::getenv("TMPDIR") == nullptr && std::filesystem::is_directory("/dev/shm", ec) &&
                     ::access("/dev/shm", W_OK) == 0;
    std::string tmpl = ((shm ? std::filesystem::path("/dev/shm") : std::filesystem::temp_directory_path()) /
                        "neardup-index-fuzz-XXXXXX")
                           .string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    return tmpl;
  }();
  static const bool cleanup = [] {
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    });
    return true;
  }();
  (void)cleanup;
  return dir;
}

// Applies the 12-byte edits in `data` to the database at `path`.
void ApplyEdits(const std::string& path, const uint8_t* data, size_t size) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return;
  }
  struct Table {
    const char* name;
    const char* key;  // what picks a row
    std::vector<const char*> columns;
  };
  static const Table kTables[] = {
      {"files",
       "rowid",
       {"id", "path", "dev", "inode", "size", "mtime_ns", "ctime_ns", "reading", "jsonl", "lines", "raw_hash",
        "ends_newline", "bytes", "invalid_utf8", "transcoded", "documents", "run", "seen_ns", "pending"}},
      {"documents", "rowid", {"key", "name", "size", "content", "kind", "signature"}},
      {"problems", "file_id, line", {"file_id", "line", "message"}},
      {"meta", "key", {"key", "value"}},
  };
  for (size_t at = 0; at + 12 <= size; at += 12) {
    const uint8_t* op = data + at;
    const Table& t = kTables[op[0] % 4];
    const char* column = t.columns[op[1] % t.columns.size()];
    const std::string pick = std::string("(") + t.key + ") = (SELECT " + t.key + " FROM " + t.name + " ORDER BY " +
                             t.key + " LIMIT 1 OFFSET " + std::to_string(op[2] % 8) + ")";
    const int kind = op[3] % 8;
    const std::string sql = kind == 7 ? std::string("DELETE FROM ") + t.name + " WHERE " + pick
                                      : std::string("UPDATE ") + t.name + " SET " + column + " = ? WHERE " + pick;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      sqlite3_finalize(st);
      continue;
    }
    int64_t v = 0;
    std::memcpy(&v, op + 4, sizeof v);
    switch (kind) {
      case 0:
        sqlite3_bind_int64(st, 1, static_cast<int8_t>(op[4]));
        break;  // small, often -1, 0, 1
      case 1:
        sqlite3_bind_int64(st, 1, v);
        break;
      case 2:
        sqlite3_bind_int64(st, 1, v >> (op[4] % 64));
        break;  // any magnitude
      case 3:
        sqlite3_bind_double(st, 1, static_cast<double>(v) / 1024.0);
        break;
      case 4:
        sqlite3_bind_text(st, 1, reinterpret_cast<const char*>(op + 4), op[4] % 9, SQLITE_TRANSIENT);
        break;
      case 5:
        sqlite3_bind_blob(st, 1, op + 4, op[4] % 9, SQLITE_TRANSIENT);
        break;
      case 6:
        sqlite3_bind_null(st, 1);
        break;
      default:
        break;
    }
    sqlite3_step(st);
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
}

bool OneLineNaming(const Status& s, const std::string& path) {
  NEARDUP_FUZZ_CHECK(s.message().find('\n') == std::string::npos);
  NEARDUP_FUZZ_CHECK(s.message().starts_with(path + ": "));
  return true;
}

// Reads the index at o.index as a scan does; what it read must be whole.
// *corrupt: the reads failed on a row.
bool ReadAsScan(const Options& o, bool* opened, bool* corrupt, bool* read_ok) {
  *opened = false;
  *corrupt = false;
  *read_ok = false;
  Result<std::unique_ptr<SignatureIndex>> ix = OpenIndexFor(o);
  if (!ix.ok()) return OneLineNaming(ix.status(), o.index);
  *opened = true;
  Result<StoredInputs> stored = ReadStoredInputs(o, **ix);
  if (!stored.ok()) {
    *corrupt = stored.status().code() == Status::Code::kCorrupt &&
               stored.status().message().starts_with(o.index + ": corrupt index: ");
    return OneLineNaming(stored.status(), o.index);
  }
  *read_ok = true;
  size_t total = 0;
  for (const size_t k : stored->by_path) {
    NEARDUP_FUZZ_CHECK(stored->first[k] == total);
    total += stored->files[k].documents;
  }
  NEARDUP_FUZZ_CHECK(stored->docs.size() == total);
  NEARDUP_FUZZ_CHECK(stored->signatures.size() == total * kNumPerm);
  for (const DocRecord& r : stored->docs) NEARDUP_FUZZ_CHECK(static_cast<int>(r.kind) <= 4);
  return true;
}

bool Run(const uint8_t* data, size_t size) {
  const std::string& dir = ScratchDir();
  const Options o = IndexOptions(dir);
  const std::string& base = BaseIndex(dir);
  for (const char* extra : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(o.index + extra);
  {
    std::ofstream out(o.index, std::ios::binary);
    const bool whole = size >= 16 && std::memcmp(data, "SQLite format 3", 16) == 0;
    if (whole) {
      out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    } else {
      out.write(base.data(), static_cast<std::streamsize>(base.size()));
    }
    out.close();
    if (!whole) ApplyEdits(o.index, data, size);
  }
  Result<std::vector<std::string>> check = CheckIndex(o.index);
  if (!check.ok()) NEARDUP_FUZZ_CHECK(OneLineNaming(check.status(), o.index));
  bool opened = false, corrupt = false, read_ok = false;
  if (!ReadAsScan(o, &opened, &corrupt, &read_ok)) return false;
  // The reads and `index check` share their checks (index_rows.h).
  if (corrupt && check.ok()) NEARDUP_FUZZ_CHECK(!check->empty());
  if (opened && check.ok() && check->empty()) NEARDUP_FUZZ_CHECK(read_ok);
  return true;
}

}  // namespace

int IndexFuzz(const uint8_t* data, size_t size) {
  Run(data, size);
  return 0;
}

}  // namespace neardup::fuzz

#ifndef NEARDUP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return neardup::fuzz::IndexFuzz(data, size); }
#endif
