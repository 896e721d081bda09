// SignatureIndex (signature_index.h) through its header: what is stored
// comes back as it was. The parameters' check is index_schema_test.cc, the
// lock index_lock_test.cc, info and check index_check_test.cc, signing with
// an index sign_indexed_test.cc.
#include "index/signature_index.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "index/sign_indexed.h"  // SignatureParamsOf()
#include "neardup/index.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::TempDir;

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

// A run whose walk finds its kept output unchanged stops the reading under
// way (stored_result.h): once the flag reads true, Files() and
// LoadDocuments() return Cancelled instead of going on through every row.
TEST(SignatureIndexTest, ReadingStopsOnceAskedTo) {
  TempDir dir;
  const std::string path = dir / "ix.db";
  Result<std::unique_ptr<SignatureIndex>> ix = SignatureIndex::Open(path, Params(), {});
  ASSERT_TRUE(ix.ok()) << ix.status().message();
  ASSERT_TRUE((*ix)->StartRun("test").ok());
  constexpr size_t kFiles = 3 * SignatureIndex::kStopRows + 5;
  ASSERT_TRUE((*ix)->Begin().ok());
  for (size_t k = 0; k < kFiles; ++k) {
    IndexedFile f;
    f.path = "/f" + std::to_string(k);
    f.inode = k;
    f.size = 100;
    std::vector<DocRecord> docs(1);
    docs[0].size = 100;
    docs[0].kind = DocKind::kOk;
    const std::vector<uint32_t> sigs = {1, 2, 3, 4};
    ASSERT_TRUE((*ix)->PutFile(f, docs, sigs, {}).ok());
  }
  ASSERT_TRUE((*ix)->Commit().ok());
  std::atomic<bool> stop{true};
  Result<std::vector<IndexedFile>> stopped = (*ix)->Files(&stop);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().code(), Status::Code::kCancelled);
  stop.store(false);
  Result<std::vector<IndexedFile>> files = (*ix)->Files(&stop);
  ASSERT_TRUE(files.ok()) << files.status().message();
  ASSERT_EQ(files->size(), kFiles);
  std::vector<const IndexedFile*> wanted;
  for (const IndexedFile& f : *files) wanted.push_back(&f);
  size_t loaded = 0;
  stop.store(true);
  const Status s = (*ix)->LoadDocuments(
      wanted, [&](size_t, DocRecord&&, SignatureView) { ++loaded; }, 1, &stop);
  EXPECT_EQ(s.code(), Status::Code::kCancelled) << s.message();
  EXPECT_LT(loaded, kFiles);
}

}  // namespace
}  // namespace neardup
