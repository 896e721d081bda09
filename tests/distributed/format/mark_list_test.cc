// The mark list (format/mark_list.h): what is written is read back, field
// for field, and every kind of damage is refused.
#include "distributed/format/mark_list.h"

#include <gtest/gtest.h>

#include <string>

#include "base/coding.h"

namespace neardup {
namespace {

MarkList Sample() {
  MarkList list{.task = {.task = 1, .tasks = 3},
                .fingerprint = 0x5eed,
                .listing = 0xfeed,
                .docs = 40,
                .names = {"kept-a", "file.jsonl:7", ""},
                .marks = {}};
  list.marks.push_back({.local = 0, .cluster = 4, .name = 0, .score = 0, .clustered = true});
  list.marks.push_back({.local = 3,
                        .cluster = 4,
                        .name = 1,
                        .score = 0.8125,
                        .clustered = true,
                        .duplicate = true,
                        .scored = true,
                        .kept = false});
  list.marks.push_back({.local = 39, .cluster = 9, .name = 2, .clustered = true, .duplicate = true});
  return list;
}

TEST(MarkListTest, WhatIsWrittenIsReadBack) {
  const MarkList want = Sample();
  Result<MarkList> got = DecodeMarkList(EncodeMarkList(want));
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->task.task, 1u);
  EXPECT_EQ(got->task.tasks, 3u);
  EXPECT_EQ(got->fingerprint, want.fingerprint);
  EXPECT_EQ(got->listing, want.listing);
  EXPECT_EQ(got->docs, want.docs);
  EXPECT_EQ(got->names, want.names);
  ASSERT_EQ(got->marks.size(), want.marks.size());
  for (size_t k = 0; k < want.marks.size(); ++k) {
    const ShardMark& a = got->marks[k];
    const ShardMark& b = want.marks[k];
    EXPECT_EQ(a.local, b.local) << k;
    EXPECT_EQ(a.cluster, b.cluster) << k;
    EXPECT_EQ(a.name, b.duplicate ? b.name : 0u) << k;
    EXPECT_EQ(a.score, b.score) << k;
    EXPECT_EQ(a.clustered, b.clustered) << k;
    EXPECT_EQ(a.duplicate, b.duplicate) << k;
    EXPECT_EQ(a.scored, b.scored) << k;
    EXPECT_EQ(a.kept, b.kept) << k;
  }
}

TEST(MarkListTest, DamageIsRefused) {
  const std::string bytes = EncodeMarkList(Sample());
  for (size_t at = 0; at < bytes.size(); at += 7) {  // one flipped byte anywhere
    std::string bad = bytes;
    bad[at] = static_cast<char>(bad[at] ^ 0x20);
    EXPECT_FALSE(DecodeMarkList(bad).ok()) << at;
  }
  EXPECT_FALSE(DecodeMarkList(bytes.substr(0, bytes.size() - 1)).ok());
  EXPECT_FALSE(DecodeMarkList("").ok());
  // Fields out of range or order, with a checksum that matches.
  auto refused = [](MarkList list, const char* what) {
    Result<MarkList> got = DecodeMarkList(EncodeMarkList(list));
    ASSERT_FALSE(got.ok()) << what;
    EXPECT_EQ(got.status().message(), "mark list: marks out of range or order") << what;
  };
  MarkList list = Sample();
  list.marks[2].local = 40;
  refused(list, "an id past the documents");
  list = Sample();
  list.marks[1].local = 0;
  refused(list, "ids not ascending");
  list = Sample();
  list.marks[1].name = 3;
  refused(list, "a name past the names");
  // Another version.
  std::string other = bytes.substr(0, bytes.size() - 8);
  other[8] = 2;
  PutChecksum(&other);
  EXPECT_EQ(DecodeMarkList(other).status().message(), "mark list: another format version");
}

}  // namespace
}  // namespace neardup
