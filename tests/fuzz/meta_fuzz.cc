// Fuzz harness: bytes -> sign/I.meta -> ListingOfMetaHead, DecodeShardMeta
// and CheckShardMeta (stage_sign.h), as the stage tasks read them; and the same
// bytes as a completion marker -> ParseMarker (work_folder.h).
//
// The first byte chooses: bit 0, whether to make the meta's checksum match
// (so that mutations reach the checks behind it), and the marker's CHECK
// (the last 16 hex digits before the line break); bit 1, the marker's stage.
// The rest is the file. Checks that:
//   - DecodeShardMeta returns (no allocation the bytes do not justify); a
//     failure is Corrupt or InvalidArgument, one line; a decoded meta
//     re-encodes to the same bytes, and its head gives its listing; when CheckShardMeta() passes it against
//     its own task, every problem's file is one of the shard's;
//   - ParseMarker accepts only the exact text of a task of the stage, 0 <=
//     task < tasks <= 2^24.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "base/hash.h"
#include "distributed/stage_sign.h"
#include "distributed/work_folder.h"
#include "harnesses.h"

namespace neardup::fuzz {
namespace {

bool CheckMeta(std::string bytes, bool repair) {
  if (repair && bytes.size() >= 8) {
    const uint64_t sum = HashBytes(bytes.data(), bytes.size() - 8, 0);
    std::memcpy(bytes.data() + bytes.size() - 8, &sum, 8);
  }
  const std::optional<uint64_t> head = ListingOfMetaHead(bytes);
  Result<ShardMeta> meta = DecodeShardMeta(bytes);
  if (!meta.ok()) {
    NEARDUP_FUZZ_CHECK(meta.status().code() == Status::Code::kCorrupt ||
                       meta.status().code() == Status::Code::kInvalidArgument);
    NEARDUP_FUZZ_CHECK(meta.status().message().starts_with("shard meta: "));
    return true;
  }
  NEARDUP_FUZZ_CHECK(EncodeShardMeta(*meta) == bytes);
  NEARDUP_FUZZ_CHECK(head == meta->listing);  // what the tasks compare is the meta's
  const Status checked = CheckShardMeta(*meta, meta->task.task, meta->task.tasks,
                                        EndsOf(std::vector<InputFile>(meta->roots.size())), meta->line_hashes.size());
  if (checked.ok()) {
    for (const InputProblem& p : meta->problems) NEARDUP_FUZZ_CHECK(p.file < meta->roots.size());
  }
  return true;
}

bool CheckMarker(std::string text, bool repair, StageKind kind) {
  // "...<space><16 hex>\n": the check made that of the text before it.
  if (repair && text.size() >= 18 && text.back() == '\n' && text[text.size() - 18] == ' ') {
    const size_t body = text.size() - 18;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(HashBytes(text.data(), body, 0)));
    text.replace(body + 1, 16, hex);
  }
  Result<Marker> m = ParseMarker(text, kind);
  if (!m.ok()) {
    NEARDUP_FUZZ_CHECK(m.status().code() == Status::Code::kCorrupt);
    return true;
  }
  NEARDUP_FUZZ_CHECK(m->task.task < m->task.tasks && m->task.tasks <= kMaxTasks);
  NEARDUP_FUZZ_CHECK(WorkFolder::MarkerText(kind, m->task, m->fingerprint) == text);
  return true;
}

}  // namespace

int MetaFuzz(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  CheckMeta(bytes, (mode & 1) != 0);
  CheckMarker(bytes, (mode & 1) != 0, (mode & 2) != 0 ? StageKind::kBucket : StageKind::kSign);
  return 0;
}

}  // namespace neardup::fuzz

#ifndef NEARDUP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return neardup::fuzz::MetaFuzz(data, size); }
#endif
