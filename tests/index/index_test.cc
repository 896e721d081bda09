// SignatureIndex (signature_index.h) and SignWithIndex (sign_indexed.h)
// through their headers: what is stored comes back as it was, and signing
// with an index gives the table a plain Sign() gives. The parameters' check
// is index_schema_test.cc, the lock index_lock_test.cc, info and check
// index_check_test.cc.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "index/sign_indexed.h"
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

SignatureParams Params(int num_perm = 4) {
  Options o;
  o.num_perm = num_perm;
  return SignatureParamsOf(o);
}

TEST(SignatureIndexTest, StoredFilesAndDocumentsComeBackAsWritten) {
  TempDir dir;
  const std::string path = dir / "ix.db";
  {
    Result<std::unique_ptr<SignatureIndex>> ix = SignatureIndex::Open(path, Params(), {});
    ASSERT_TRUE(ix.ok()) << ix.status().message();
    ASSERT_TRUE((*ix)->StartRun("test").ok());
    IndexedFile f;
    f.path = "/a/b.jsonl";
    f.dev = 7;
    f.inode = 9;
    f.size = 1234;
    f.mtime_ns = -5;
    f.ctime_ns = 42;
    f.jsonl = true;
    f.lines = 3;
    f.raw_hash = ~0ull;
    f.ends_newline = true;
    f.bytes = 99;
    std::vector<DocRecord> docs(2);
    docs[0].name = "x";
    docs[0].line = 1;
    docs[0].size = 10;
    docs[0].content = {.low = 1, .high = ~0ull};
    docs[0].kind = DocKind::kOk;
    docs[1].name = "a/b.jsonl:3";
    docs[1].line = 3;
    docs[1].kind = DocKind::kTooShort;
    const std::vector<uint32_t> sigs = {1, 2, 3, 4, 5, 6, 7, UINT32_MAX};
    const std::vector<StoredProblem> problems = {{2, "a/b.jsonl:2: bad"}};
    ASSERT_TRUE((*ix)->Begin().ok());
    ASSERT_TRUE((*ix)->PutFile(f, docs, sigs, problems).ok());
    ASSERT_TRUE((*ix)->Commit().ok());
  }
  Result<std::unique_ptr<SignatureIndex>> ix = SignatureIndex::Open(path, Params(), {});
  ASSERT_TRUE(ix.ok()) << ix.status().message();
  Result<std::vector<IndexedFile>> files = (*ix)->Files();
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 1u);
  const IndexedFile& f = (*files)[0];
  EXPECT_EQ(f.path, "/a/b.jsonl");
  EXPECT_EQ(f.dev, 7u);
  EXPECT_EQ(f.inode, 9u);
  EXPECT_EQ(f.size, 1234u);
  EXPECT_EQ(f.mtime_ns, -5);
  EXPECT_EQ(f.ctime_ns, 42);
  EXPECT_EQ(f.raw_hash, ~0ull);
  EXPECT_TRUE(f.ends_newline);
  EXPECT_EQ(f.documents, 2u);
  std::vector<DocRecord> got;
  std::vector<uint32_t> got_sigs;
  ASSERT_TRUE((*ix)
                  ->LoadDocuments({&f},
                                  [&](size_t slot, DocRecord&& r, SignatureView s) {
                                    EXPECT_EQ(slot, 0u);
                                    got.push_back(std::move(r));
                                    got_sigs.insert(got_sigs.end(), s.begin(), s.end());
                                  })
                  .ok());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].name, "x");
  EXPECT_EQ(got[0].size, 10u);
  EXPECT_TRUE(got[0].content == (ContentHash{.low = 1, .high = ~0ull}));
  EXPECT_EQ(got[1].kind, DocKind::kTooShort);
  EXPECT_EQ(got[1].line, 3u);
  EXPECT_EQ(got_sigs, (std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7, UINT32_MAX}));
  std::vector<StoredProblem> got_problems;
  ASSERT_TRUE((*ix)->LoadProblems({&f}, [&](size_t, StoredProblem&& p) { got_problems.push_back(p); }).ok());
  ASSERT_EQ(got_problems.size(), 1u);
  EXPECT_EQ(got_problems[0].message, "a/b.jsonl:2: bad");

  ASSERT_TRUE((*ix)->Begin().ok());
  ASSERT_TRUE((*ix)->RemoveFile(f.id).ok());
  ASSERT_TRUE((*ix)->Commit().ok());
  EXPECT_TRUE((*ix)->Files()->empty());
  ix->reset();
  Result<std::vector<std::string>> check = CheckIndex(path);
  ASSERT_TRUE(check.ok());
  EXPECT_TRUE(check->empty());
}

// A large load is read on several threads (connections of their own, ranges
// of file ids): every wanted file's documents come back, each on its slot,
// in line order, with its signatures, as one thread reads them; unwanted
// files' documents do not come back.
TEST(SignatureIndexTest, LoadOnSeveralThreadsGivesWhatOneThreadGives) {
  TempDir dir;
  const std::string path = dir / "ix.db";
  Result<std::unique_ptr<SignatureIndex>> ix = SignatureIndex::Open(path, Params(), {});
  ASSERT_TRUE(ix.ok()) << ix.status().message();
  ASSERT_TRUE((*ix)->StartRun("test").ok());
  constexpr size_t kFiles = 20000;  // past the size a load is cut into parts at
  ASSERT_TRUE((*ix)->Begin().ok());
  for (size_t k = 0; k < kFiles; ++k) {
    IndexedFile f;
    f.path = "/f" + std::to_string(k);
    f.inode = k;
    f.jsonl = true;
    f.size = 100;
    f.lines = 3;
    const size_t n_docs = 1 + k % 3;
    std::vector<DocRecord> docs(n_docs);
    std::vector<uint32_t> sigs;
    for (size_t j = 0; j < n_docs; ++j) {
      docs[j].line = j + 1;
      docs[j].size = k * 10 + j;
      docs[j].kind = DocKind::kOk;
      for (uint32_t v = 0; v < 4; ++v) sigs.push_back(static_cast<uint32_t>(k * 100 + j * 10 + v));
    }
    ASSERT_TRUE((*ix)->PutFile(f, docs, sigs, {}).ok());
  }
  ASSERT_TRUE((*ix)->Commit().ok());
  Result<std::vector<IndexedFile>> files = (*ix)->Files();
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), kFiles);
  // Every file but each seventh, in an order other than the ids'.
  std::vector<const IndexedFile*> wanted;
  std::vector<size_t> file_of_slot;
  for (size_t k = kFiles; k-- > 0;) {
    if (k % 7 == 0) continue;
    wanted.push_back(&(*files)[k]);
    file_of_slot.push_back(k);
  }
  struct Got {
    std::vector<uint64_t> lines, sizes;
    std::vector<uint32_t> sigs;
    bool operator==(const Got&) const = default;
  };
  auto load = [&](int threads) {
    std::vector<Got> got(wanted.size());
    std::vector<std::atomic<int>> calls_on(wanted.size());
    const Status s = (*ix)->LoadDocuments(
        wanted,
        [&](size_t slot, DocRecord&& r, SignatureView sig) {
          Got& g = got[slot];  // each slot from one thread: no lock
          g.lines.push_back(r.line);
          g.sizes.push_back(r.size);
          g.sigs.insert(g.sigs.end(), sig.begin(), sig.end());
        },
        threads);
    EXPECT_TRUE(s.ok()) << s.message();
    return got;
  };
  const std::vector<Got> one = load(1);
  for (size_t slot = 0; slot < wanted.size(); ++slot) {
    const size_t k = std::stoul((*files)[file_of_slot[slot]].path.substr(2));
    ASSERT_EQ(one[slot].lines.size(), 1 + k % 3) << k;
    EXPECT_EQ(one[slot].lines.back(), 1 + k % 3);
    EXPECT_EQ(one[slot].sizes.front(), k * 10);
    EXPECT_EQ(one[slot].sigs.back(), static_cast<uint32_t>(k * 100 + (k % 3) * 10 + 3));
  }
  for (const int threads : {2, 3, 8}) EXPECT_TRUE(load(threads) == one) << threads;
}

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
