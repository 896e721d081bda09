#include "lsh/copy_groups.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "sign_fixture.h"

namespace neardup {
namespace {

using Fixture = testing::Fixture;

// A table of n documents whose contents come from a pool of `distinct`
// hashes; some pool entries share their high half (so the low half decides),
// and every seventh document is not kOk (it belongs to no group).
SignatureTable RandomTable(size_t n, size_t distinct, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ContentHash> pool(distinct);
  for (size_t k = 0; k < distinct; ++k) {
    pool[k].high = k % 5 == 1 ? pool[k - 1].high : rng();
    pool[k].low = rng();
  }
  SignatureTable table(1);
  table.Resize(n);
  for (size_t i = 0; i < n; ++i) {
    table.docs[i].content = pool[rng() % distinct];
    table.docs[i].kind = i % 7 == 3 ? DocKind::kEmpty : DocKind::kOk;
  }
  return table;
}

// Sizes below and above the radix sort's threshold (256 entries) and past
// one with 16 radix bits.
TEST(CopyGroupsTest, GroupsEqualContentsAsAMapOfHashesDoes) {
  for (const auto& [n, distinct] : std::vector<std::pair<size_t, size_t>>{
           {0, 1}, {1, 1}, {50, 10}, {300, 40}, {5000, 3000}, {300000, 200000}, {300000, 50}}) {
    SCOPED_TRACE(n);
    const SignatureTable table = RandomTable(n, distinct, 42 + n + distinct);
    std::map<std::pair<uint64_t, uint64_t>, std::vector<DocId>> by_content;  // ids ascending
    for (DocId i = 0; i < n; ++i) {
      if (table.docs[i].kind == DocKind::kOk) {
        by_content[{table.docs[i].content.high, table.docs[i].content.low}].push_back(i);
      }
    }
    std::map<DocId, std::vector<DocId>> expected;  // by representative, ascending
    uint64_t copies = 0;
    for (const auto& [hash, ids] : by_content) {
      expected[ids.front()] = ids;
      copies += ids.size() - 1;
    }
    const CopyGroups g = CopyGroups::Build(table);
    ASSERT_EQ(g.size(), expected.size());
    EXPECT_EQ(g.copies(), copies);
    size_t slot = 0;
    for (const auto& [rep, ids] : expected) {
      ASSERT_EQ(g.representative(slot), rep);
      EXPECT_EQ(g.slot_of(rep), slot);
      const auto members = g.members(slot);
      ASSERT_EQ(std::vector<DocId>(members.begin(), members.end()), ids);
      for (DocId d : ids) EXPECT_EQ(g.rep_of(d), rep);
      ++slot;
    }
    for (DocId i = 0; i < n; ++i) {
      if (table.docs[i].kind != DocKind::kOk) {
        EXPECT_EQ(g.rep_of(i), CopyGroups::kNone);
      }
    }
  }
}

TEST(CopyGroupsTest, GroupsOkDocumentsByContentUnderTheSmallestId) {
  Fixture f;
  const SignedCorpus s = f.Signed(1);
  CopyGroups g = CopyGroups::Build(s.table);
  const DocId a = f.Id(s, "a.txt"), b = f.Id(s, "b.txt"), c = f.Id(s, "c.txt"), e = f.Id(s, "e.txt");
  EXPECT_EQ(g.size(), 3u);  // {a, b}, {c}, {d}; e is empty
  EXPECT_EQ(g.rep_of(b), std::min(a, b));
  EXPECT_EQ(g.rep_of(a), std::min(a, b));
  EXPECT_EQ(g.rep_of(c), c);
  EXPECT_EQ(g.rep_of(e), CopyGroups::kNone);
  EXPECT_EQ(g.copies(), 1u);
  const auto ab = g.members_of(g.rep_of(a));
  EXPECT_EQ(std::vector<DocId>(ab.begin(), ab.end()), (std::vector<DocId>{std::min(a, b), std::max(a, b)}));
  // Verification keeps only b of the group.
  g.KeepOnly({g.slot_of(g.rep_of(a))}, {{b}});
  EXPECT_EQ(g.rep_of(a), CopyGroups::kNone);
  EXPECT_EQ(g.copies(), 0u);
  EXPECT_EQ(g.members(g.slot_of(std::min(a, b))).size(), 1u);
}

}  // namespace
}  // namespace neardup
