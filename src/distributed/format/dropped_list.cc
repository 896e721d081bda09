#include "distributed/format/dropped_list.h"

#include "base/coding.h"

namespace neardup {

std::string EncodeDroppedList(const DroppedList& list) {
  std::string out(kDroppedMagic, sizeof kDroppedMagic);
  PutFixed32(&out, kDroppedVersion);
  PutFixed32(&out, list.task.task);
  PutFixed32(&out, list.task.tasks);
  PutFixed64(&out, list.fingerprint);
  PutFixed64(&out, list.listing);
  PutFixed64(&out, list.docs);
  for (const std::string* text : {&list.clash.first, &list.clash.second, &list.clash.name}) PutText(&out, *text);
  PutFixed8(&out, list.deferred ? 1 : 0);
  PutFixed64(&out, list.ids.size());
  for (const uint64_t id : list.ids) PutFixed64(&out, id);
  PutChecksum(&out);
  return out;
}

Result<DroppedList> DecodeDroppedList(std::string_view bytes) {
  auto corrupt = [] { return Status::Corrupt("dropped list: damaged (checksum, size or fields)"); };
  if (bytes.size() < 20 || !ChecksumMatches(bytes) || bytes.substr(0, 8) != std::string_view(kDroppedMagic, 8)) {
    return corrupt();
  }
  Decoder r(bytes.substr(8, bytes.size() - 16), 8);
  if (r.U32("the version") != kDroppedVersion) return Status::Corrupt("dropped list: another format version");
  DroppedList list;
  list.task.task = r.U32("the task");
  list.task.tasks = r.U32("the task count");
  list.fingerprint = r.U64("the fingerprint");
  list.listing = r.U64("the listing fingerprint");
  list.docs = r.U64("the document count");
  for (std::string* text : {&list.clash.first, &list.clash.second, &list.clash.name}) *text = r.Text("a clash path");
  const uint8_t deferred = r.U8("the deferred byte");
  const uint64_t n = r.U64("the id count");
  if (deferred > 1 || (deferred == 1 && n > 0)) return corrupt();
  list.deferred = deferred == 1;
  if (!r.ok() || n != r.left() / 8 || r.left() % 8 != 0) return corrupt();
  if (list.task.tasks == 0 || list.task.task >= list.task.tasks || n > list.docs) return corrupt();
  list.ids.resize(n);
  for (uint64_t& id : list.ids) id = r.U64("an id");
  for (size_t k = 0; k < list.ids.size(); ++k) {
    if (list.ids[k] >= list.docs || (k > 0 && list.ids[k] <= list.ids[k - 1])) {
      return Status::Corrupt("dropped list: ids out of range or order");
    }
  }
  return list;
}

}  // namespace neardup
