#include "distributed/format/verify_output.h"

#include <bit>
#include <cstring>
#include <optional>

#include "base/coding.h"
#include "base/hash.h"
#include "distributed/format/id_lists.h"

namespace neardup {
namespace {

constexpr uint64_t kPairSize = 33;
constexpr uint64_t kLeftOutSize = 17;  // u64 id, u8 code, u64 length
constexpr uint64_t kSetSize = 16;      // u64 id, u64 size

// A left-out document's status back from its code; nullopt for a code a
// left-out document cannot have.
std::optional<Status> StatusOf(uint8_t code, std::string message) {
  switch (static_cast<Status::Code>(code)) {
    case Status::Code::kIoError:
      return Status::IoError(std::move(message));
    case Status::Code::kChanged:
      return Status::Changed(std::move(message));
    case Status::Code::kNotFound:
      return Status::NotFound(std::move(message));
    case Status::Code::kCorrupt:
      return Status::Corrupt(std::move(message));
    case Status::Code::kInvalidArgument:
      return Status::InvalidArgument(std::move(message));
    default:
      return std::nullopt;
  }
}

// The read-again sections of `o` (left out, sets) from `r`; false when damaged.
bool ReadVerdicts(Decoder& r, VerifyOutput* o) {
  const uint64_t n = r.Count("the left-out count", kLeftOutSize);
  for (uint64_t k = 0; k < n && r.ok(); ++k) {
    const uint64_t id = r.U64("a left-out id");
    const uint8_t code = r.U8("a left-out status code");
    std::optional<Status> why = StatusOf(code, r.Text("a left-out message"));
    if (!why || why->ok()) return false;
    o->left_out.push_back({.id = id, .why = std::move(*why)});
  }
  const uint64_t sets = r.Count("the set count", kSetSize);
  for (uint64_t k = 0; k < sets && r.ok(); ++k) {
    const uint64_t id = r.U64("a set's id");
    std::vector<uint64_t> set(r.Count("a set's size", 8));
    r.U64s(set, "a set's hashes");
    if (r.ok()) o->sets.emplace_back(id, std::move(set));
  }
  return r.ok();
}

}  // namespace

void EncodeVerifyOutputTo(const VerifyOutput& o, const std::function<void(std::string_view)>& write) {
  // The small fields gather in `out`, given to `write` kPiece bytes at a
  // time; a set's hashes go from the set itself. The checksum follows all.
  constexpr size_t kPiece = size_t{64} << 10;
  Hasher64 sum;
  sum.Reset(0);  // Checksum64()
  std::string out;
  out.reserve(kPiece + 64);
  auto give = [&](std::string_view bytes) {
    sum.Update(bytes.data(), bytes.size());
    write(bytes);
  };
  auto flush = [&](size_t above) {
    if (out.size() <= above) return;
    give(out);
    out.clear();
  };
  out.append(kVerifyMagic, sizeof kVerifyMagic);
  PutFixed32(&out, kVerifyVersion);
  PutFixed8(&out, o.reread ? 1 : 0);
  PutFixed64(&out, o.large_bucket);
  PutFixed64(&out, o.visited);
  PutFixed64(&out, o.pairs.size());
  for (const VerifiedPair& p : o.pairs) {
    PutFixed64(&out, p.a);
    PutFixed64(&out, p.b);
    PutDouble(&out, p.estimate);
    PutDouble(&out, p.jaccard);
    PutFixed8(&out, static_cast<uint8_t>(p.kind));
    flush(kPiece);
  }
  PutIdLists(&out, o.large);
  PutFixed64(&out, o.left_out.size());
  for (const LeftOutDoc& d : o.left_out) {
    PutFixed64(&out, d.id);
    PutFixed8(&out, static_cast<uint8_t>(d.why.code()));
    PutText(&out, d.why.message());
    flush(kPiece);
  }
  PutFixed64(&out, o.sets.size());
  for (const auto& [id, set] : o.sets) {
    PutFixed64(&out, id);
    PutFixed64(&out, set.size());
    if constexpr (std::endian::native == std::endian::little) {
      if (set.size() * 8 >= kPiece / 16) {  // a large set: from where it is
        flush(0);
        give(std::string_view(reinterpret_cast<const char*>(set.data()), set.size() * 8));
        continue;
      }
    }
    PutFixed64s(&out, set);
    flush(kPiece);
  }
  flush(0);
  PutFixed64(&out, sum.Digest());
  write(out);
}

std::string EncodeVerifyOutput(const VerifyOutput& o) {
  // Sized once: the sets are most of the bytes, and growing by doubling
  // copied them and touched fresh pages twice.
  size_t bytes = 128 + o.pairs.size() * kPairSize + o.sets.size() * kSetSize;
  for (const auto& [id, set] : o.sets) bytes += set.size() * 8;
  for (const std::vector<uint64_t>& list : o.large) bytes += 8 + list.size() * 8;
  for (const LeftOutDoc& d : o.left_out) bytes += kLeftOutSize + d.why.message().size();
  std::string out;
  out.reserve(bytes);
  EncodeVerifyOutputTo(o, [&out](std::string_view piece) { out.append(piece); });
  return out;
}

Result<VerifyOutput> DecodeVerifyOutput(std::string_view bytes) {
  auto corrupt = [] { return Status::Corrupt("verified pairs: damaged (checksum, size or fields)"); };
  if (bytes.size() < 20 || !ChecksumMatches(bytes) || bytes.substr(0, 8) != std::string_view(kVerifyMagic, 8)) {
    return corrupt();
  }
  Decoder r(bytes.substr(8, bytes.size() - 16), 8);
  if (r.U32("the version") != kVerifyVersion) return Status::InvalidArgument("verified pairs: another format version");
  VerifyOutput o;
  const uint8_t reread = r.U8("the reread byte");
  if (reread > 1) return corrupt();
  o.reread = reread == 1;
  o.large_bucket = r.U64("the large bucket size");
  o.visited = r.U64("the visited count");
  o.pairs.resize(r.Count("the pair count", kPairSize));
  for (VerifiedPair& p : o.pairs) {
    p.a = r.U64("a pair's first id");
    p.b = r.U64("a pair's second id");
    p.estimate = r.Double("a pair's estimate");
    p.jaccard = r.Double("a pair's Jaccard");
    const uint8_t kind = r.U8("a pair's kind");
    if (kind > static_cast<uint8_t>(PairKind::kBInA)) return corrupt();
    p.kind = static_cast<PairKind>(kind);
  }
  if (!ReadIdLists(r, &o.large) || !ReadVerdicts(r, &o) || r.left() != 0) return corrupt();
  return o;
}

std::optional<bool> PeekVerifyReread(const std::string& path) {
  FileSource in(path);
  if (!in.Open().ok() || in.size() < 21) return std::nullopt;
  char magic[8] = {};
  in.Raw(magic, 8, "the magic");
  if (std::memcmp(magic, kVerifyMagic, 8) != 0 || in.U32("the version") != kVerifyVersion) return std::nullopt;
  return in.U8("the reread byte") == 1;
}

}  // namespace neardup
