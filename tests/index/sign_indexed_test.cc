// SignWithIndex (sign_indexed.h) through its header: signing with an index
// gives the table a plain Sign() gives.
#include "index/sign_indexed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
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
// default) at a threshold where they pay (kBitmapsBelow) builds the bitmaps
// that rule candidate pairs out for the documents it signs, the same as a
// plain run's, and stores them: a later such run gets them back for the
// documents it reuses, so it rules out what a plain run rules out.
// Runs `sql` on the index file `ix` with the sqlite3 shell.
void Sql(const TempDir& dir, const std::string& ix, const std::string& sql) {
  const testing::RunResult r = testing::RunProcess({"/usr/bin/sqlite3", ix, sql}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

// Makes every entry of `ix` seen an hour from now: no file is racily clean
// (sign_indexed.h), so an unchanged file is reused by its stat, not read.
void SeenAnHourOn(const TempDir& dir, const std::string& ix) {
  const int64_t hour_on = (static_cast<int64_t>(std::time(nullptr)) + 3600) * 1000000000;
  Sql(dir, ix, "UPDATE files SET seen_ns = " + std::to_string(hour_on));
}

// IndexedSign(o) with the stored bitmaps of every document it reused read
// in, as a scan reads those of the documents in candidate pairs, and the
// index's read snapshot then ended, as a scan ends it before anything opens
// the index again.
IndexedCorpus WithStoredBitmaps(const Options& o) {
  IndexedCorpus s = IndexedSign(o);
  if (s.stored_bitmaps != nullptr) {
    const std::vector<uint8_t> all(s.corpus.table.size(), 1);
    EXPECT_TRUE(s.stored_bitmaps->Fill(all, s.corpus.table.docs, UINT64_MAX, &s.corpus.bitmaps).ok());
    s.stored_bitmaps = nullptr;
  }
  return s;
}

bool SameBitmap(const SetBitmap& x, const SetBitmap& y) {
  return x.level == y.level && x.words == y.words && x.most == y.most && x.least == y.least && x.bits == y.bits;
}

TEST(SignWithIndexTest, DocumentsSignedNowAndReusedHaveThePlainRunsBitmaps) {
  TempDir dir;
  for (int i = 0; i < 12; ++i)
    WriteFile(dir / (std::string("c/").append(std::to_string(i))), Join(RandomWords(80, uint64_t(i))));
  Options o;
  o.paths = {dir / "c"};
  o.index = dir / "ix.db";
  o.threshold = 0.5;  // below kBitmapsBelow
  ASSERT_EQ(o.verify, VerifyMode::kExact);
  const SignedCorpus a = PlainSign(o);
  ASSERT_EQ(a.bitmaps.size(), a.table.size());
  const IndexedCorpus first = WithStoredBitmaps(o);
  ASSERT_EQ(first.corpus.bitmaps.size(), a.table.size());
  for (DocId d = 0; d < a.table.size(); ++d) {
    EXPECT_FALSE(first.corpus.bitmaps[d].empty()) << d;
    EXPECT_TRUE(SameBitmap(first.corpus.bitmaps[d], a.bitmaps[d])) << d;
  }
  SeenAnHourOn(dir, o.index);
  WriteFile(dir / "c/3", Join(RandomWords(90, 77)));  // another size: signed again
  const SignedCorpus b = PlainSign(o);
  const IndexedCorpus second = WithStoredBitmaps(o);
  ASSERT_EQ(second.corpus.bitmaps.size(), b.table.size());
  EXPECT_EQ(second.stats.reused, b.table.size() - 1);
  for (DocId d = 0; d < b.table.size(); ++d) {
    EXPECT_FALSE(second.corpus.bitmaps[d].empty()) << d;
    EXPECT_TRUE(SameBitmap(second.corpus.bitmaps[d], b.bitmaps[d])) << d;
  }
  // A run that wants none (-t 0.8) gets none, stored or built.
  o.threshold = 0.8;
  const IndexedCorpus high = WithStoredBitmaps(o);
  EXPECT_EQ(high.stats.reused, b.table.size());
  EXPECT_TRUE(high.corpus.bitmaps.empty());
  EXPECT_EQ(high.stored_bitmaps, nullptr);
}

// JSONL: the stored lines of a file that grew keep their bitmaps; the new
// lines get theirs; every one is the plain run's.
TEST(SignWithIndexTest, AGrownJsonlFileKeepsItsLinesBitmaps) {
  TempDir dir;
  std::string lines;
  for (int i = 0; i < 6; ++i) lines += "{\"text\": \"" + Join(RandomWords(60, uint64_t(i))) + "\"}\n";
  WriteFile(dir / "c/a.jsonl", lines);
  Options o;
  o.paths = {dir / "c"};
  o.index = dir / "ix.db";
  o.input = InputFormat::kJsonl;
  o.threshold = 0.5;
  ASSERT_EQ(WithStoredBitmaps(o).corpus.bitmaps.size(), 6u);
  for (int i = 6; i < 9; ++i) lines += "{\"text\": \"" + Join(RandomWords(60, uint64_t(i))) + "\"}\n";
  WriteFile(dir / "c/a.jsonl", lines);
  const SignedCorpus plain = PlainSign(o);
  const IndexedCorpus grown = WithStoredBitmaps(o);
  EXPECT_EQ(grown.stats.reused, 6u);
  EXPECT_EQ(grown.stats.signed_now, 3u);
  ASSERT_EQ(plain.bitmaps.size(), 9u);
  ASSERT_EQ(grown.corpus.bitmaps.size(), 9u);
  for (DocId d = 0; d < 9; ++d) {
    EXPECT_FALSE(grown.corpus.bitmaps[d].empty()) << d;
    EXPECT_TRUE(SameBitmap(grown.corpus.bitmaps[d], plain.bitmaps[d])) << d;
  }
}

// An index of schema version 2 (no `bitmaps` table) is migrated when opened
// for writing: its documents have no bitmap until their files are signed
// again, and then keep the one they get.
TEST(SignWithIndexTest, AVersion2IndexIsMigratedAndItsFilesGetBitmapsWhenSignedAgain) {
  TempDir dir;
  for (int i = 0; i < 4; ++i)
    WriteFile(dir / (std::string("c/").append(std::to_string(i))), Join(RandomWords(80, uint64_t(i))));
  Options o;
  o.paths = {dir / "c"};
  o.index = dir / "ix.db";
  o.threshold = 0.5;
  ASSERT_EQ(WithStoredBitmaps(o).corpus.bitmaps.size(), 4u);
  Sql(dir, o.index, "DROP TABLE bitmaps; PRAGMA user_version = 2;");
  SeenAnHourOn(dir, o.index);
  const IndexedCorpus migrated = WithStoredBitmaps(o);
  EXPECT_EQ(migrated.stats.reused, 4u);
  ASSERT_EQ(migrated.corpus.bitmaps.size(), 4u);
  for (DocId d = 0; d < 4; ++d) EXPECT_TRUE(migrated.corpus.bitmaps[d].empty()) << d;
  const testing::RunResult version =
      testing::RunProcess({"/usr/bin/sqlite3", o.index, "PRAGMA user_version;"}, dir.path());
  EXPECT_EQ(version.out, std::to_string(kIndexSchemaVersion) + "\n");
  WriteFile(dir / "c/2", Join(RandomWords(90, 77)));  // signed again: gets its bitmap
  const SignedCorpus plain = PlainSign(o);
  ASSERT_EQ(WithStoredBitmaps(o).stats.signed_now, 1u);
  SeenAnHourOn(dir, o.index);
  const IndexedCorpus after = WithStoredBitmaps(o);
  EXPECT_EQ(after.stats.reused, 4u);
  ASSERT_EQ(after.corpus.bitmaps.size(), 4u);
  for (DocId d = 0; d < 4; ++d) {
    EXPECT_EQ(after.corpus.bitmaps[d].empty(), d != 2) << d;
  }
  EXPECT_TRUE(SameBitmap(after.corpus.bitmaps[2], plain.bitmaps[2]));
}

}  // namespace
}  // namespace neardup
