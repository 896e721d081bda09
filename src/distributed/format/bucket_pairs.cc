#include "distributed/format/bucket_pairs.h"

#include <cstring>
#include <utility>

#include "distributed/format/id_lists.h"

namespace neardup {
namespace {

constexpr uint64_t kPairSize = 24;
constexpr uint64_t kContainedSize = 16;

Status Damaged() { return Status::Corrupt("bucket pairs: damaged (checksum, size or fields)"); }

// The first error of a stream, kept while the stream goes on.
class FirstError {
 public:
  void Add(Status s) {
    if (first_.ok()) first_ = std::move(s);
  }
  bool ok() const { return first_.ok(); }
  Status Take() { return std::move(first_); }

 private:
  Status first_;
};

// The pairs and the lists of a stream whose header was read.
void StreamBody(FileSource& in, const BucketPairsVisitor& visit, FirstError& first) {
  const uint64_t n = first.ok() ? in.U64("the pair count") : 0;
  if (n > in.left() / kPairSize) first.Add(Damaged());
  for (uint64_t k = 0; k < n && first.ok(); ++k) {
    BucketPair p;
    p.a = in.U64("a pair's first id");
    p.b = in.U64("a pair's second id");
    p.band = in.U64("a pair's band");
    first.Add(visit.pair(k, p));
  }
  const uint64_t lists = first.ok() ? in.U64("the id list count") : 0;
  if (lists > in.left() / 8) first.Add(Damaged());
  for (uint64_t k = 0; k < lists && first.ok(); ++k) {
    const uint64_t size = in.U64("an id list's size");
    if (size > in.left() / 8) {
      first.Add(Damaged());
      break;
    }
    std::vector<uint64_t> list(size);
    for (uint64_t& id : list) id = in.U64("an id");
    first.Add(visit.list(std::move(list)));
  }
  const uint64_t visited = first.ok() ? in.U64("the containment pairs visited") : 0;
  if (first.ok() && visit.contained_visited) first.Add(visit.contained_visited(visited));
  const uint64_t contained = first.ok() ? in.U64("the containment candidate count") : 0;
  if (contained > in.left() / kContainedSize) first.Add(Damaged());
  for (uint64_t k = 0; k < contained && first.ok(); ++k) {
    ContainedPair p;
    p.a = in.U64("a containment candidate's first id");
    p.b = in.U64("a containment candidate's second id");
    if (visit.contained) first.Add(visit.contained(k, p));
  }
}

}  // namespace

std::string EncodeBucketOutput(const BucketOutput& o) {
  std::string out(kBucketPairsMagic, sizeof kBucketPairsMagic);
  PutFixed32(&out, kBucketPairsVersion);
  PutFixed64(&out, o.large_bucket);
  PutFixed64(&out, o.pairs.size());
  for (const BucketPair& p : o.pairs) {
    PutFixed64(&out, p.a);
    PutFixed64(&out, p.b);
    PutFixed64(&out, p.band);
  }
  PutIdLists(&out, o.large);
  PutFixed64(&out, o.contained_visited);
  PutFixed64(&out, o.contained.size());
  for (const ContainedPair& p : o.contained) {
    PutFixed64(&out, p.a);
    PutFixed64(&out, p.b);
  }
  PutChecksum(&out);
  return out;
}

Result<BucketOutput> DecodeBucketOutput(std::string_view bytes) {
  if (bytes.size() < 20 || !ChecksumMatches(bytes) || bytes.substr(0, 8) != std::string_view(kBucketPairsMagic, 8)) {
    return Damaged();
  }
  Decoder r(bytes.substr(8, bytes.size() - 16), 8);
  if (r.U32("the version") != kBucketPairsVersion)
    return Status::InvalidArgument("bucket pairs: another format version");
  BucketOutput o;
  o.large_bucket = r.U64("the large bucket size");
  o.pairs.resize(r.Count("the pair count", kPairSize));
  for (BucketPair& p : o.pairs) {
    p.a = r.U64("a pair's first id");
    p.b = r.U64("a pair's second id");
    p.band = r.U64("a pair's band");
  }
  if (!ReadIdLists(r, &o.large)) return Damaged();
  o.contained_visited = r.U64("the containment pairs visited");
  o.contained.resize(r.Count("the containment candidate count", kContainedSize));
  for (ContainedPair& p : o.contained) {
    p.a = r.U64("a containment candidate's first id");
    p.b = r.U64("a containment candidate's second id");
  }
  if (!r.ok() || r.left() != 0) return Damaged();
  return o;
}

Status StreamBucketPairs(FileSource& in, const BucketPairsVisitor& visit) {
  FirstError first;
  char magic[8] = {};
  in.Raw(magic, 8, "the magic");
  if (in.size() < 20 || std::memcmp(magic, kBucketPairsMagic, 8) != 0) first.Add(Damaged());
  if (first.ok() && in.U32("the version") != kBucketPairsVersion) {
    first.Add(Status::Corrupt("bucket pairs: another format version"));
  }
  if (first.ok()) first.Add(visit.header(in.U64("the large bucket size")));
  StreamBody(in, visit, first);
  if (first.ok() && (!in.ok() || in.left() != 0)) first.Add(Damaged());
  if (!in.ChecksumMatches()) return Damaged();
  return first.Take();
}

}  // namespace neardup
