#include "index/index_rows.h"

#include <limits>

#include "neardup/quote.h"

namespace neardup {

namespace {

constexpr uint64_t kMaxInt64 = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

// A stored unsigned value as SQLite holds it: an int64 (so a value above
// kMaxInt64 was a negative number).
std::string Shown(uint64_t v) { return v > kMaxInt64 ? std::to_string(static_cast<int64_t>(v)) : std::to_string(v); }

std::string OutOf(const std::string& row, const char* column, const std::string& value, const std::string& range) {
  return std::string(row).append(": ").append(column).append(" is ").append(value).append(", not ").append(range);
}

// The first column of `f` out of its type's range, or empty.
std::string RangeProblem(const IndexedFile& f) {
  const struct {
    const char* column;
    uint64_t value;
  } counts[] = {{"size", f.size},
                {"lines", f.lines},
                {"bytes", f.bytes},
                {"invalid_utf8", f.invalid_utf8},
                {"transcoded", f.transcoded},
                {"documents", f.documents}};
  for (const auto& c : counts) {
    if (c.value > kMaxInt64) return OutOf(FileRowName(f), c.column, Shown(c.value), "0 or more");
  }
  if (f.pending < 0) return OutOf(FileRowName(f), "pending", std::to_string(f.pending), "0 or more");
  return {};
}

}  // namespace

uint64_t MaxDocuments(uint64_t database_bytes, size_t num_perm) {
  return num_perm == 0 ? 0 : database_bytes / (num_perm * sizeof(uint32_t));
}

bool CompressedPath(const std::string& path) { return path.ends_with(".gz") || path.ends_with(".zst"); }

std::string OneLine(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b != 0x7f) {
      out += c;
      continue;
    }
    constexpr char kHex[] = "0123456789abcdef";
    out.append("\\x").append(1, kHex[b >> 4]).append(1, kHex[b & 15]);
  }
  return out;
}

std::string FileRowName(const IndexedFile& f) {
  return std::string("files row ").append(std::to_string(f.id)).append(" (").append(OneLine(f.path)).append(")");
}

std::string FileRowProblem(const IndexedFile& f, const RowLimits& limits, const std::string& not_integer) {
  // The row's name is made only for a problem: most rows have none.
  const auto row = [&f] { return FileRowName(f); };
  if (!not_integer.empty()) return row() + ": " + not_integer + " is not an integer";
  if (f.id < 1 || f.id > kMaxFileId) {
    return OutOf(row(), "id", std::to_string(f.id), "1 to " + std::to_string(kMaxFileId));
  }
  if (f.path.empty() || (limits.absolute_paths && f.path[0] != '/')) return row() + ": path is not an absolute path";
  if (std::string r = RangeProblem(f); !r.empty()) return r;
  // (jsonl and ends_newline are read as `!= 0`; Files() checks them 0 or 1.)
  if (!f.jsonl && f.documents != 1) return OutOf(row(), "documents", Shown(f.documents), "1 (a text file)");
  if (f.documents > limits.max_documents) {
    return OutOf(row(), "documents", Shown(f.documents),
                 "0 to " + std::to_string(limits.max_documents) + " (what the index's size can hold)");
  }
  if (f.jsonl && !CompressedPath(f.path)) {
    if (f.lines > f.size) return OutOf(row(), "lines", Shown(f.lines), "0 to its size, " + std::to_string(f.size));
    if (f.documents > f.lines + 1) {
      return OutOf(row(), "documents", Shown(f.documents), "0 to its lines + 1, " + std::to_string(f.lines + 1));
    }
  }
  return {};
}

std::string DocumentRowProblem(const DocumentRow& d, const IndexedFile& f, uint64_t ordinal, const RowLimits& limits) {
  const uint64_t line = static_cast<uint64_t>(d.key) & kMaxStoredLine;
  // The row's name is made only for a problem: most rows have none.
  const auto row = [&] {
    std::string r = "documents row " + std::to_string(d.key) + " (" + OneLine(f.path);
    if (f.jsonl) r.append(1, ':').append(std::to_string(line));
    return r.append(1, ')');
  };
  if (ordinal >= f.documents) {
    return row() + ": more documents than its " + FileRowName(f) + " counts, " + Shown(f.documents);
  }
  const uint64_t last_line = !f.jsonl ? 0 : CompressedPath(f.path) ? kMaxStoredLine : f.lines + 1;
  if (line > last_line || (f.jsonl && line == 0)) {
    return OutOf(row(), "line", std::to_string(line),
                 f.jsonl ? "1 to " + std::to_string(last_line) : std::string("0 (a text file)"));
  }
  if (!d.name_ok) return row() + ": name is neither text nor NULL";
  if (!d.size_integer || d.size < 0) return OutOf(row(), "size", std::to_string(d.size), "an integer, 0 or more");
  if (d.content_bytes != 16) return row() + ": content is not a 16-byte BLOB";
  if (!d.kind_integer || d.kind < 0 || d.kind > 4) return OutOf(row(), "kind", std::to_string(d.kind), "0 to 4");
  if (d.signature_bytes != limits.num_perm * sizeof(uint32_t)) {
    return row() + ": signature is " +
           (d.signature_bytes == SIZE_MAX ? std::string("not a BLOB") : std::to_string(d.signature_bytes) + " bytes") +
           ", not " + std::to_string(limits.num_perm) + " values of 4 bytes";
  }
  if (!d.shingles_integer || d.shingles < 0) {
    return OutOf(row(), "shingles", std::to_string(d.shingles), "an integer, 0 or more");
  }
  return {};
}

std::string DocumentCountProblem(const IndexedFile& f, uint64_t read) {
  if (read == f.documents) return {};
  return FileRowName(f) + ": documents is " + Shown(f.documents) + ", but it has " + std::to_string(read) +
         " rows in documents";
}

std::string ProblemRowProblem(const IndexedFile& f, int64_t line, bool line_integer, bool message_ok) {
  const std::string row = std::string("problems row (")
                              .append(std::to_string(f.id))
                              .append(", ")
                              .append(std::to_string(line))
                              .append(") of ")
                              .append(FileRowName(f));
  const uint64_t last = CompressedPath(f.path) ? kMaxStoredLine : f.lines + 1;
  if (!f.jsonl) return row + ": a problem of a text file";
  if (!line_integer || line < 1 || static_cast<uint64_t>(line) > last) {
    return OutOf(row, "line", std::to_string(line), "1 to " + std::to_string(last));
  }
  if (!message_ok) return row + ": message is not text";
  return {};
}

Status CorruptRow(const std::string& index_path, const std::string& problem) {
  return Status::Corrupt(ShellQuoted(index_path)
                             .append(": corrupt index: ")
                             .append(problem)
                             .append("; `neardup index check ")
                             .append(ShellQuoted(index_path))
                             .append("` lists every problem; remove ")
                             .append(ShellQuoted(index_path))
                             .append(" (the next run signs every file again) or give another --index FILE"));
}

}  // namespace neardup
