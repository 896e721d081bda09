// Fixture: a shard meta with every field set, for the tests of its encoding
// (format/shard_meta_test.cc) and of its check against its shard
// (shards_test.cc). Test code only.
#pragma once

#include "distributed/format/shard_meta.h"

namespace neardup {
namespace testing {

// Task 2 of 5: problems of files 4 and 1, 3 line hashes, 2 seen files.
inline ShardMeta SampleMeta() {
  ShardMeta m;
  m.task = {.task = 2, .tasks = 5};
  m.first_file = 17;
  m.first_begin = 123;
  m.last_end = 456;
  m.counts = {.bytes = 1000, .invalid_utf8 = 3, .transcoded = 1, .duplicate_ids = 0};
  m.problems.push_back(
      {.file = 4, .line = 9, .status = Status::Corrupt("a.jsonl:9: bad"), .kind = InputProblem::Kind::kMalformed});
  m.problems.push_back(
      {.file = 1, .line = 0, .status = Status::IoError("b.txt: denied"), .kind = InputProblem::Kind::kUnreadable});
  m.walk.hidden = 2;
  m.walk.special = 1;
  m.walk_errors.push_back(Status::NotFound("missing: No such file"));
  m.kept_paths = {"a/x.jsonl", "y.jsonl"};
  m.seen = {{.size = 900, .dev = 1, .ino = 2, .mtime_ns = -3, .raw_hash = 4},
            {.size = 100, .dev = 5, .ino = 6, .mtime_ns = 7, .raw_hash = 0}};
  m.line_hashes = {7, 0, 0xFFFFFFFFu};
  m.inputs = {"corpus/", "ref.jsonl"};
  return m;
}

}  // namespace testing
}  // namespace neardup
