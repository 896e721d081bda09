#include "distributed/byte_shares.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <optional>

#include "base/ascii.h"
#include "neardup/quote.h"
#include "walk/parquet_rows.h"
namespace neardup {

namespace {

constexpr size_t kScanChunk = size_t{1} << 20;  // bytes read at once to find or count newlines

bool Compressed(const std::string& path) { return path.ends_with(".gz") || path.ends_with(".zst"); }

class RangeByteReader final : public ByteReader {
 public:
  RangeByteReader(std::unique_ptr<ByteReader> inner, uint64_t begin, uint64_t end)
      : inner_(std::move(inner)), pos_(begin), end_(std::max(begin, end)), skip_(begin) {}

  bool CanReadAhead() const override { return inner_->CanReadAhead(); }

  Result<size_t> Read(char* buf, size_t n) override {
    if (pos_ >= end_) return size_t{0};
    n = static_cast<size_t>(std::min<uint64_t>(n, end_ - pos_));
    Result<size_t> got = inner_->CanReadAhead() ? inner_->ReadAhead(pos_, buf, n) : Skipped(buf, n);
    if (got.ok()) pos_ += *got;
    return got;
  }

  Result<size_t> ReadAhead(uint64_t ahead, char* buf, size_t n) override {
    if (ahead >= end_ - pos_) return size_t{0};
    n = static_cast<size_t>(std::min<uint64_t>(n, end_ - pos_ - ahead));
    return inner_->ReadAhead(pos_ + ahead, buf, n);
  }

 private:
  // A reader that cannot read ahead: drops the bytes before the range first.
  Result<size_t> Skipped(char* buf, size_t n) {
    while (skip_ > 0) {
      Result<size_t> got = inner_->Read(buf, static_cast<size_t>(std::min<uint64_t>(n, skip_)));
      if (!got.ok()) return got;
      if (*got == 0) return size_t{0};
      skip_ -= *got;
    }
    return inner_->Read(buf, n);
  }

  std::unique_ptr<ByteReader> inner_;
  uint64_t pos_;  // the next byte's offset in the file
  uint64_t end_;
  uint64_t skip_;  // bytes still to drop (a reader that cannot read ahead)
};

bool Parquet(const Options& o) { return o.input == InputFormat::kParquet; }

bool Splittable(const Options& o, const InputFile& f) {
  return RowsAreDocuments(o.input) && !f.identity.stream && (Parquet(o) || !Compressed(f.path)) &&
         f.size >= kMinSplitBytes;
}

// The row groups of Parquet file `f` when a byte range of it holds whole
// ones in row order; nullopt when not (it is then shared whole), and when
// its footer cannot be read (its sign task says why).
std::optional<std::vector<ParquetRowGroup>> SplittableGroups(FileSystem& fs, const InputFile& f) {
  Result<std::vector<ParquetRowGroup>> groups = ParquetRowGroups(fs, f.path, f.identity);
  if (!groups.ok() || !RowGroupsInFileOrder(*groups)) return std::nullopt;
  return std::move(*groups);
}

// Where a range of Parquet file `f` cut at byte p starts: where the first
// row group starting at or after p starts, or the file's end when none
// does; nullopt when the file cannot be split.
std::optional<uint64_t> RowGroupStartFrom(FileSystem& fs, const InputFile& f, uint64_t p) {
  const std::optional<std::vector<ParquetRowGroup>> groups = SplittableGroups(fs, f);
  if (!groups) return std::nullopt;
  for (const ParquetRowGroup& g : *groups) {
    if (g.start >= p) return std::min(g.start, f.size);
  }
  return f.size;
}

Result<std::unique_ptr<ByteReader>> OpenRange(FileSystem& fs, const InputFile& f, uint64_t begin, uint64_t end) {
  Result<std::unique_ptr<ByteReader>> in = fs.OpenExpected(f.path, f.identity);
  if (!in.ok()) return in.status();
  return RangeReader(std::move(*in), begin, end);
}

// Where a range of `f` cut at byte p starts: just after the first newline
// at or after byte p - 1 (p itself when byte p - 1 is one), or the file's
// end when there is none.
Result<uint64_t> LineStartFrom(FileSystem& fs, const InputFile& f, uint64_t p) {
  if (p == 0) return uint64_t{0};
  Result<std::unique_ptr<ByteReader>> in = OpenRange(fs, f, p - 1, f.size);
  if (!in.ok()) return in.status();
  std::string chunk(kScanChunk, '\0');
  uint64_t at = p - 1;
  for (;;) {
    Result<size_t> got = (*in)->Read(chunk.data(), chunk.size());
    if (!got.ok()) return got.status();
    if (*got == 0) return f.size;
    if (const void* nl = std::memchr(chunk.data(), '\n', *got)) {
      return at + static_cast<uint64_t>(static_cast<const char*>(nl) - chunk.data()) + 1;
    }
    at += *got;
  }
}

// The newlines in bytes [0, end) of `f`.
Result<uint64_t> LinesBefore(FileSystem& fs, const InputFile& f, uint64_t end) {
  Result<std::unique_ptr<ByteReader>> in = OpenRange(fs, f, 0, end);
  if (!in.ok()) return in.status();
  std::string chunk(kScanChunk, '\0');
  uint64_t lines = 0, read = 0;
  for (;;) {
    Result<size_t> got = (*in)->Read(chunk.data(), chunk.size());
    if (!got.ok()) return got.status();
    if (*got == 0) break;
    read += *got;
    lines += CountByte(chunk.data(), *got, '\n');
  }
  if (read != end) return Status::Changed(ShellQuoted(f.path) + ": changed during the run (shorter than when listed)");
  return lines;
}

// Cut k of `tasks` over `files` (starting at byte `starts[i]` of the whole,
// starts.back() the total), as a byte of the whole (see byte_shares.h).
Result<uint64_t> CutAt(FileSystem& fs, const Options& o, const std::vector<InputFile>& files,
                       const std::vector<uint64_t>& starts, uint64_t k, uint64_t tasks) {
  const uint64_t total = starts.back();
  if (k == 0 || total == 0) return uint64_t{0};  // no bytes (no file, or empty ones): every cut at 0
  if (k >= tasks) return total;
  // k*total/tasks without overflow (k < tasks < 2^32): total = q*tasks + r.
  const uint64_t q = total / tasks, r = total % tasks;
  const uint64_t target = k * q + k * r / tasks;
  // The file holding byte `target`: the last one starting at or before it.
  const size_t i = static_cast<size_t>(std::upper_bound(starts.begin(), starts.end() - 1, target) - starts.begin()) - 1;
  const InputFile& f = files[i];
  const uint64_t p = target - starts[i];
  if (p == 0 || p >= f.size) return starts[i] + std::min(p, f.size);
  const uint64_t whole = starts[i] + (2 * p < f.size ? 0 : f.size);
  if (!Splittable(o, f)) return whole;
  if (Parquet(o)) {
    const std::optional<uint64_t> at = RowGroupStartFrom(fs, f, p);
    return at ? starts[i] + *at : whole;
  }
  Result<uint64_t> at = LineStartFrom(fs, f, p);
  if (!at.ok()) return at.status();
  return starts[i] + *at;
}

Status NoStreams(const std::vector<InputFile>& share) {
  for (const InputFile& f : share) {
    if (f.identity.stream) {
      return Status::InvalidArgument(ShellQuoted(f.path) +
                                     ": a stream (pipe, stdin, device) cannot be read by a stage task; "
                                     "save it to a file first");
    }
  }
  return Status::Ok();
}

// Files [t*F/N, (t+1)*F/N) of the F walked, whole. A share of every file
// (one task) is the walk's list itself: a copy of 100k entries took 12 MB of
// fresh memory, a page fault a page, on the thread that reads nothing yet.
// A smaller share is copied out, so that the rest of the list is freed.
Share ShareOfFiles(std::vector<InputFile> files, StageTask t) {
  const uint64_t n = files.size();
  const uint64_t lo = t.task * n / t.tasks;
  const uint64_t hi = (t.task + 1) * n / t.tasks;
  Share out;
  out.first_file = lo;
  if (lo == 0 && hi == n) {
    out.files = std::move(files);
  } else {
    out.files.assign(std::make_move_iterator(files.begin() + static_cast<ptrdiff_t>(lo)),
                     std::make_move_iterator(files.begin() + static_cast<ptrdiff_t>(hi)));
  }
  out.parts.reserve(out.files.size());
  for (const InputFile& f : out.files) out.parts.push_back({.begin = 0, .end = f.size, .line_base = 0});
  return out;
}

}  // namespace

std::unique_ptr<ByteReader> RangeReader(std::unique_ptr<ByteReader> inner, uint64_t begin, uint64_t end) {
  return std::make_unique<RangeByteReader>(std::move(inner), begin, end);
}

Result<Share> ShareOf(FileSystem& fs, const Options& o, std::vector<InputFile> files, StageTask t) {
  if (!RowsAreDocuments(o.input)) {
    Share out = ShareOfFiles(std::move(files), t);
    if (Status s = NoStreams(out.files); !s.ok()) return s;
    return out;
  }
  std::vector<uint64_t> starts{0};
  for (const InputFile& f : files) starts.push_back(starts.back() + f.size);
  const uint64_t total = starts.back();
  Result<uint64_t> lo = CutAt(fs, o, files, starts, t.task, t.tasks);
  if (!lo.ok()) return lo.status();
  Result<uint64_t> hi = CutAt(fs, o, files, starts, uint64_t{t.task} + 1, t.tasks);
  if (!hi.ok()) return hi.status();
  const bool last = t.task + 1 == t.tasks;
  Share out;
  // An empty share: where its files would start.
  out.first_file = static_cast<uint64_t>(std::lower_bound(starts.begin(), starts.end() - 1, *lo) - starts.begin());
  for (size_t i = 0; i < files.size(); ++i) {
    const uint64_t a = starts[i], b = starts[i + 1];
    const uint64_t from = std::max(a, *lo), to = std::min(b, *hi);
    const bool mine = a == b ? (*lo <= a && (a < *hi || (last && a == total))) : from < to;
    if (!mine) continue;
    if (out.files.empty()) out.first_file = i;
    out.parts.push_back({.begin = from - a, .end = to - a, .line_base = 0});
    out.files.push_back(std::move(files[i]));
  }
  if (Status s = NoStreams(out.files); !s.ok()) return s;
  if (!out.parts.empty() && out.parts.front().begin > 0 && Parquet(o)) {
    // Cut where a row group starts: the rows of the groups before.
    const std::optional<std::vector<ParquetRowGroup>> groups = SplittableGroups(fs, out.files.front());
    if (!groups) return Status::Changed(ShellQuoted(out.files.front().path) + ": changed during the run");
    out.parts.front().line_base = RowsStartingIn(*groups, 0, out.parts.front().begin).second;
  } else if (!out.parts.empty() && out.parts.front().begin > 0) {
    Result<uint64_t> lines = LinesBefore(fs, out.files.front(), out.parts.front().begin);
    if (!lines.ok()) return lines.status();
    out.parts.front().line_base = *lines;
  }
  return out;
}

RangedFileSystem::RangedFileSystem(FileSystem& base, const std::vector<InputFile>& files,
                                   const std::vector<FilePart>& parts)
    : base_(base) {
  for (size_t i = 0; i < files.size(); ++i) {
    if (!parts[i].Whole(files[i])) ranges_[files[i].path] = {parts[i].begin, parts[i].end};
  }
}

Result<std::unique_ptr<ByteReader>> RangedFileSystem::Ranged(const std::string& path,
                                                             Result<std::unique_ptr<ByteReader>> in) {
  if (!in.ok()) return in;
  const auto r = ranges_.find(path);
  if (r == ranges_.end()) return in;
  return RangeReader(std::move(*in), r->second.first, r->second.second);
}

std::pair<uint64_t, uint64_t> RangedFileSystem::Range(const std::string& path, uint64_t size) {
  const auto r = ranges_.find(path);
  return r == ranges_.end() ? std::pair<uint64_t, uint64_t>{0, size} : r->second;
}

Result<std::unique_ptr<ByteReader>> RangedFileSystem::Open(const std::string& path) {
  return Ranged(path, base_.Open(path));
}

Result<std::unique_ptr<ByteReader>> RangedFileSystem::OpenExpected(const std::string& path,
                                                                   const FileIdentity& expected) {
  return Ranged(path, base_.OpenExpected(path, expected));
}

}  // namespace neardup
