// SignWithIndex (sign_indexed.h) through its header: signing with an index
// gives the table a plain Sign() gives.
#include "index/sign_indexed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "index/signature_index.h"
#include "sign/minhash.h"
#include "sign/sign.h"
#include "test_util.h"
#include "walk/walk.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::TempDir;
using testing::WriteFile;

// The table signed with an index equals a plain Sign(), whatever was stored.
// Sign() over the walk of `o`, two threads: what a plain run signs.
SignedCorpus PlainSign(const Options& o) {
  const MinHasher minhasher(o.num_perm, o.seed);
  const Workers w{.threads = 2, .tick = {}, .cancel = nullptr};
  Result<WalkedCorpus> walked = WalkCorpus(o);
  SignProgress counts;
  return Sign({o, minhasher, FileSystem::Default(), w, false, counts}, std::move(walked->files));
}

// SignWithIndex() over the walk of `o` with o.index, two threads.
IndexedCorpus IndexedSign(const Options& o) {
  const MinHasher minhasher(o.num_perm, o.seed);
  const Workers w{.threads = 2, .tick = {}, .cancel = nullptr};
  Result<std::unique_ptr<SignatureIndex>> ix = OpenIndexFor(o);
  EXPECT_TRUE(ix.ok()) << ix.status().message();
  Result<WalkedCorpus> walked = WalkCorpus(o);
  SignProgress counts;
  Result<IndexedCorpus> s =
      SignWithIndex({o, minhasher, FileSystem::Default(), w, false, counts}, std::move(walked->files), **ix);
  EXPECT_TRUE(s.ok());
  return std::move(*s);
}

TEST(SignWithIndexTest, TableEqualsPlainSign) {
  TempDir dir;
  for (int i = 0; i < 20; ++i)
    WriteFile(dir / (std::string("c/").append(std::to_string(i))), Join(RandomWords(50, uint64_t(i % 5))));
  WriteFile(dir / "c/empty", "");
  Options o;
  o.paths = {dir / "c"};
  o.num_perm = 16;
  o.index = dir / "ix.db";
  auto plain = [&] { return PlainSign(o); };
  auto indexed = [&](uint64_t* reused) {
    IndexedCorpus s = IndexedSign(o);
    *reused = s.stats.reused;
    return std::move(s.corpus);
  };
  // Rounds: first run, unchanged (the stored matrix is taken over as it is),
  // one file edited, one added that sorts first (its entry is the newest:
  // stored order is no longer path order), unchanged again.
  for (int round = 0; round < 5; ++round) {
    if (round == 2) WriteFile(dir / "c/3", Join(RandomWords(60, 77)));
    if (round == 3) WriteFile(dir / "c/00", Join(RandomWords(40, 78)));
    const SignedCorpus a = plain();
    uint64_t reused = 0;
    const SignedCorpus b = indexed(&reused);
    const uint64_t want[] = {0, 21, 20, 21, 22};
    EXPECT_EQ(reused, want[round]) << "round " << round;
    ASSERT_EQ(a.table.size(), b.table.size());
    for (DocId d = 0; d < a.table.size(); ++d) {
      EXPECT_EQ(a.table.docs[d].name, b.table.docs[d].name);
      EXPECT_EQ(a.table.docs[d].size, b.table.docs[d].size);
      EXPECT_EQ(a.table.docs[d].kind, b.table.docs[d].kind);
      EXPECT_TRUE(a.table.docs[d].content == b.table.docs[d].content);
      EXPECT_EQ(a.table.docs[d].mtime_ns, b.table.docs[d].mtime_ns);
    }
    EXPECT_TRUE(std::equal(a.table.values().begin(), a.table.values().end(), b.table.values().begin()));
    EXPECT_EQ(a.counts.bytes, b.counts.bytes);
  }
}

// "Right by default" (#41): an --index run that verifies exactly (the
// default) at a threshold where they pay (kBitmapsBelow) builds the bitmaps that rule candidate pairs out for the
// documents it signs, the same as a plain run's; the documents it reuses
// have none (an empty bitmap rules nothing out).
TEST(SignWithIndexTest, DocumentsSignedNowHaveThePlainRunsBitmaps) {
  TempDir dir;
  for (int i = 0; i < 12; ++i)
    WriteFile(dir / (std::string("c/").append(std::to_string(i))), Join(RandomWords(80, uint64_t(i))));
  Options o;
  o.paths = {dir / "c"};
  o.index = dir / "ix.db";
  o.threshold = 0.5;  // below kBitmapsBelow
  ASSERT_EQ(o.verify, VerifyMode::kExact);
  auto plain = [&] { return PlainSign(o); };
  auto indexed = [&] { return IndexedSign(o); };
  auto same = [](const SetBitmap& x, const SetBitmap& y) { return x.level == y.level && x.words == y.words; };
  const SignedCorpus a = plain();
  ASSERT_EQ(a.bitmaps.size(), a.table.size());
  const IndexedCorpus first = indexed();
  ASSERT_EQ(first.corpus.bitmaps.size(), a.table.size());
  for (DocId d = 0; d < a.table.size(); ++d) {
    EXPECT_FALSE(first.corpus.bitmaps[d].empty()) << d;
    EXPECT_TRUE(same(first.corpus.bitmaps[d], a.bitmaps[d])) << d;
  }
  WriteFile(dir / "c/3", Join(RandomWords(90, 77)));  // another size: signed again
  const SignedCorpus b = plain();
  const IndexedCorpus second = indexed();
  ASSERT_EQ(second.corpus.bitmaps.size(), b.table.size());
  size_t with = 0;
  for (DocId d = 0; d < b.table.size(); ++d) {
    if (second.signed_now[d] == 0) {
      EXPECT_TRUE(second.corpus.bitmaps[d].empty()) << d;
      continue;
    }
    ++with;
    EXPECT_TRUE(same(second.corpus.bitmaps[d], b.bitmaps[d])) << d;
  }
  EXPECT_GE(with, 1u);
}

}  // namespace
}  // namespace neardup
