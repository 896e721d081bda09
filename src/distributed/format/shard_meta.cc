#include "distributed/format/shard_meta.h"

#include <optional>
#include <utility>

#include "base/coding.h"

namespace neardup {
namespace {

// The smallest encodings of a problem (u32 file, u64 line, u8 kind, u8
// code, u64 message length), of a walk error (u8 code, u64 length), of a
// text (its length) and of a FileSeen (five u64).
constexpr uint64_t kProblemSize = 22;
constexpr uint64_t kWalkErrorSize = 9;
constexpr uint64_t kTextSize = 8;
constexpr uint64_t kFileSeenSize = 40;

void PutStatus(std::string* out, const Status& s) {
  PutFixed8(out, static_cast<uint8_t>(s.code()));
  PutText(out, s.message());
}

// A status of code `code` (a stored Status's, never Ok), or nothing for
// another byte.
std::optional<Status> MakeStatus(uint8_t code, std::string message) {
  if (code == 0 || code > static_cast<uint8_t>(Status::Code::kInternal)) return std::nullopt;
  switch (static_cast<Status::Code>(code)) {
    case Status::Code::kInvalidArgument:
      return Status::InvalidArgument(std::move(message));
    case Status::Code::kNotFound:
      return Status::NotFound(std::move(message));
    case Status::Code::kIoError:
      return Status::IoError(std::move(message));
    case Status::Code::kCorrupt:
      return Status::Corrupt(std::move(message));
    case Status::Code::kChanged:
      return Status::Changed(std::move(message));
    case Status::Code::kCancelled:
      return Status::Cancelled(std::move(message));
    default:
      return Status::Internal(std::move(message));
  }
}

// A stored status (u8 code, text message) from `r`; nothing (and `r`
// failed) for a code a stored status cannot have.
std::optional<Status> ReadStatus(Decoder& r) {
  const uint8_t code = r.U8("a status code");
  std::optional<Status> status = MakeStatus(code, r.Text("a status message"));
  if (!status) r.Fail("an unknown status code");
  return status;
}

void PutFileSeen(std::string* out, const FileSeen& f) {
  for (uint64_t v : {f.size, f.dev, f.ino, static_cast<uint64_t>(f.mtime_ns), f.raw_hash}) PutFixed64(out, v);
}

// The fields from the task to the counts.
void ReadHead(Decoder& r, ShardMeta* m) {
  m->task.task = r.U32("the task");
  m->task.tasks = r.U32("the task count");
  m->first_file = r.U64("the first file");
  m->first_begin = r.U64("first_begin");
  m->last_end = r.U64("last_end");
  m->listing = r.U64("the listing fingerprint");
  m->counts.bytes = r.U64("the byte count");
  m->counts.invalid_utf8 = r.U64("the invalid UTF-8 count");
  m->counts.transcoded = r.U64("the transcoded count");
  m->counts.duplicate_ids = r.U64("the duplicate id count");
}

// The problems, the walk's counts and its errors.
void ReadProblems(Decoder& r, ShardMeta* m) {
  const uint64_t n_problems = r.Count("the problem count", kProblemSize);
  for (uint64_t i = 0; i < n_problems && r.ok(); ++i) {
    InputProblem p;
    p.file = r.U32("a problem's file");
    p.line = r.U64("a problem's line");
    const uint8_t kind = r.U8("a problem's kind");
    if (kind > static_cast<uint8_t>(InputProblem::Kind::kCounted)) r.Fail("an unknown problem kind");
    p.kind = static_cast<InputProblem::Kind>(kind);
    std::optional<Status> status = ReadStatus(r);
    if (!status) return;
    p.status = std::move(*status);
    m->problems.push_back(std::move(p));
  }
  WalkCounts& c = m->walk;
  for (uint64_t* v : {&c.hidden, &c.glob, &c.too_large, &c.symlinks, &c.loops, &c.dangling, &c.special}) {
    *v = r.U64("a walk count");
  }
  const uint64_t n_errors = r.Count("the walk error count", kWalkErrorSize);
  for (uint64_t i = 0; i < n_errors && r.ok(); ++i) {
    std::optional<Status> status = ReadStatus(r);
    if (!status) return;
    m->walk_errors.push_back(std::move(*status));
  }
}

// `count` u32 values, their count first.
void ReadU32s(Decoder& r, const char* count, const char* value, std::vector<uint32_t>* out) {
  out->resize(r.Count(count, 4));
  for (uint32_t& v : *out) v = r.U32(value);
}

void ReadTexts(Decoder& r, const char* count, const char* value, std::vector<std::string>* out) {
  const uint64_t n = r.Count(count, kTextSize);
  for (uint64_t i = 0; i < n && r.ok(); ++i) out->push_back(r.Text(value));
}

}  // namespace

std::string EncodeShardMeta(const ShardMeta& m) {
  // Its size, near enough to grow it once at most: a meta of 100k files
  // is several MB, and each doubling copied and faulted it in again.
  size_t size = 256 + 8 * (m.walk_errors.size() + m.kept_paths.size() + m.inputs.size()) +
                4 * (m.roots.size() + m.line_hashes.size()) + kFileSeenSize * m.seen.size();
  for (const InputProblem& p : m.problems) size += kProblemSize + 16 + p.status.message().size();
  for (const Status& s : m.walk_errors) size += 16 + s.message().size();
  for (const std::string& p : m.kept_paths) size += p.size();
  for (const std::string& p : m.inputs) size += p.size();
  std::string out;
  out.reserve(size);
  out.append(kMetaMagic, sizeof kMetaMagic);
  PutFixed32(&out, kMetaVersion);
  PutFixed32(&out, m.task.task);
  PutFixed32(&out, m.task.tasks);
  for (uint64_t v : {m.first_file, m.first_begin, m.last_end, m.listing}) PutFixed64(&out, v);
  const SignCounts& n = m.counts;
  for (uint64_t v : {n.bytes, n.invalid_utf8, n.transcoded, n.duplicate_ids}) PutFixed64(&out, v);
  PutFixed64(&out, m.problems.size());
  for (const InputProblem& p : m.problems) {
    PutFixed32(&out, p.file);
    PutFixed64(&out, p.line);
    PutFixed8(&out, static_cast<uint8_t>(p.kind));
    PutStatus(&out, p.status);
  }
  const WalkCounts& c = m.walk;
  for (uint64_t v : {c.hidden, c.glob, c.too_large, c.symlinks, c.loops, c.dangling, c.special}) PutFixed64(&out, v);
  PutFixed64(&out, m.walk_errors.size());
  for (const Status& s : m.walk_errors) PutStatus(&out, s);
  PutFixed64(&out, m.roots.size());
  for (const uint32_t root : m.roots) PutFixed32(&out, root);
  PutFixed64(&out, m.kept_paths.size());
  for (const std::string& p : m.kept_paths) PutText(&out, p);
  PutFixed64(&out, m.line_hashes.size());
  for (const uint32_t h : m.line_hashes) PutFixed32(&out, h);
  PutFixed64(&out, m.inputs.size());
  for (const std::string& p : m.inputs) PutText(&out, p);
  PutFixed64(&out, m.seen.size());
  for (const FileSeen& f : m.seen) PutFileSeen(&out, f);
  PutChecksum(&out);
  return out;
}

std::optional<uint64_t> ListingOfMetaHead(std::string_view head) {
  if (head.size() < kMetaHeadSize || head.substr(0, 8) != std::string_view(kMetaMagic, 8)) return std::nullopt;
  Decoder r(head.substr(8, kMetaHeadSize - 8), 8);
  if (r.U32("the version") != kMetaVersion) return std::nullopt;
  char skipped[2 * 4 + 3 * 8];  // the task, its count, first_file, first_begin and last_end
  r.Raw(skipped, sizeof skipped, "the head");
  const uint64_t listing = r.U64("the listing fingerprint");
  if (!r.ok() || r.left() != 0) return std::nullopt;
  return listing;
}

namespace {

Status MetaDamaged() { return Status::Corrupt("shard meta: damaged (checksum, size or fields)"); }

// Checks `bytes`' checksum, magic and version, and decodes the meta up to
// its roots, which the decoder it returns reads next.
Result<Decoder> DecodeToRoots(std::string_view bytes, ShardMeta* m) {
  if (bytes.size() < 20 || !ChecksumMatches(bytes) || bytes.substr(0, 8) != std::string_view(kMetaMagic, 8)) {
    return MetaDamaged();
  }
  Decoder r(bytes.substr(8, bytes.size() - 16), 8);
  if (r.U32("the version") != kMetaVersion) {
    return Status::InvalidArgument("shard meta: another format version (made by another neardup)");
  }
  ReadHead(r, m);
  ReadProblems(r, m);
  return r;
}

}  // namespace

Result<std::vector<uint32_t>> DecodeShardMetaRoots(std::string_view bytes) {
  ShardMeta m;
  Result<Decoder> r = DecodeToRoots(bytes, &m);
  if (!r.ok()) return r.status();
  ReadU32s(*r, "the root count", "a root", &m.roots);
  if (!r->ok()) return MetaDamaged();
  return std::move(m.roots);
}

Result<ShardMeta> DecodeShardMeta(std::string_view bytes) {
  ShardMeta m;
  Result<Decoder> decoder = DecodeToRoots(bytes, &m);
  if (!decoder.ok()) return decoder.status();
  Decoder& r = *decoder;
  ReadU32s(r, "the root count", "a root", &m.roots);
  ReadTexts(r, "the kept path count", "a kept path", &m.kept_paths);
  ReadU32s(r, "the line hash count", "a line hash", &m.line_hashes);
  ReadTexts(r, "the input count", "an input", &m.inputs);
  m.seen.resize(r.Count("the file seen count", kFileSeenSize));
  for (FileSeen& f : m.seen) {
    f.size = r.U64("a file's size");
    f.dev = r.U64("a file's device");
    f.ino = r.U64("a file's inode");
    f.mtime_ns = static_cast<int64_t>(r.U64("a file's mtime"));
    f.raw_hash = r.U64("a file's hash");
  }
  if (!r.ok() || r.left() != 0) return MetaDamaged();
  return m;
}

}  // namespace neardup
