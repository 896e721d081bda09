#include "distributed/format/mark_list.h"

#include "base/coding.h"

namespace neardup {

namespace {

constexpr uint8_t kClustered = 1;
constexpr uint8_t kDuplicate = 2;
constexpr uint8_t kScored = 4;
constexpr uint8_t kKept = 8;
constexpr uint64_t kMarkBytes = 8 + 4 + 1 + 8 + 4;

}  // namespace

std::string EncodeMarkList(const MarkList& list) {
  std::string out(kMarksMagic, sizeof kMarksMagic);
  PutFixed32(&out, kMarksVersion);
  PutFixed32(&out, list.task.task);
  PutFixed32(&out, list.task.tasks);
  PutFixed64(&out, list.fingerprint);
  PutFixed64(&out, list.listing);
  PutFixed64(&out, list.docs);
  PutFixed64(&out, list.names.size());
  for (const std::string& name : list.names) PutText(&out, name);
  PutFixed64(&out, list.marks.size());
  for (const ShardMark& m : list.marks) {
    PutFixed64(&out, m.local);
    PutFixed32(&out, m.cluster);
    PutFixed8(&out, static_cast<uint8_t>((m.clustered ? kClustered : 0) | (m.duplicate ? kDuplicate : 0) |
                                         (m.scored ? kScored : 0) | (m.kept ? kKept : 0)));
    PutDouble(&out, m.score);
    PutFixed32(&out, m.duplicate ? m.name : 0);
  }
  PutChecksum(&out);
  return out;
}

Result<MarkList> DecodeMarkList(std::string_view bytes) {
  auto corrupt = [] { return Status::Corrupt("mark list: damaged (checksum, size or fields)"); };
  if (bytes.size() < 20 || !ChecksumMatches(bytes) || bytes.substr(0, 8) != std::string_view(kMarksMagic, 8)) {
    return corrupt();
  }
  Decoder r(bytes.substr(8, bytes.size() - 16), 8);
  if (r.U32("the version") != kMarksVersion) return Status::Corrupt("mark list: another format version");
  MarkList list;
  list.task.task = r.U32("the task");
  list.task.tasks = r.U32("the task count");
  list.fingerprint = r.U64("the fingerprint");
  list.listing = r.U64("the listing fingerprint");
  list.docs = r.U64("the document count");
  list.names.resize(r.Count("the name count", 8));
  for (std::string& name : list.names) name = r.Text("a name");
  list.marks.resize(r.Count("the mark count", kMarkBytes));
  for (ShardMark& m : list.marks) {
    m.local = r.U64("a document id");
    m.cluster = r.U32("a cluster");
    const uint8_t flags = r.U8("the flags");
    m.score = r.Double("a score");
    m.name = r.U32("a name");
    if (flags > (kClustered | kDuplicate | kScored | kKept)) return corrupt();
    m.clustered = (flags & kClustered) != 0;
    m.duplicate = (flags & kDuplicate) != 0;
    m.scored = (flags & kScored) != 0;
    m.kept = (flags & kKept) != 0;
  }
  if (!r.ok() || r.left() != 0) return corrupt();
  if (list.task.tasks == 0 || list.task.task >= list.task.tasks) return corrupt();
  for (size_t k = 0; k < list.marks.size(); ++k) {
    const ShardMark& m = list.marks[k];
    if (m.local >= list.docs || (k > 0 && m.local <= list.marks[k - 1].local) ||
        (m.duplicate && m.name >= list.names.size())) {
      return Status::Corrupt("mark list: marks out of range or order");
    }
  }
  return list;
}

}  // namespace neardup
