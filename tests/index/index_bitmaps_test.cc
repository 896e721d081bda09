// The `bitmaps` table (index_bitmaps.h) through its header and through
// SignatureIndex: what is stored comes back at its document, a file signed
// again or removed takes its bitmaps with it, and a damaged blob is never
// taken for a bitmap.
#include "index/index_bitmaps.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "index/sign_indexed.h"  // SignatureParamsOf()
#include "index/signature_index.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::TempDir;

// A bitmap of `n` shingle hashes drawn from `seed`.
SetBitmap Bitmap(uint64_t n, uint64_t seed) {
  std::vector<uint64_t> hashes(n);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (uint64_t& h : hashes) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    h = x;
  }
  SetBitmapBuilder b;
  b.Begin(n * 8);
  b.Add(hashes);
  return b.Finish(n * 8);
}

bool Same(const SetBitmap& x, const SetBitmap& y) {
  return x.level == y.level && x.words == y.words && x.most == y.most && x.least == y.least && x.bits == y.bits;
}

TEST(IndexBitmapsTest, ABlobGivesBackItsBitmap) {
  const SetBitmap b = Bitmap(500, 1);
  ASSERT_FALSE(b.empty());
  EXPECT_TRUE(Same(BitmapOfBlob(BitmapBlob(b)), b));
  EXPECT_TRUE(BitmapOfBlob(BitmapBlob(SetBitmap())).empty());
}

TEST(IndexBitmapsTest, ADamagedBlobIsNoBitmap) {
  const std::string blob = BitmapBlob(Bitmap(500, 2));
  for (const size_t at : {size_t{0}, size_t{3}, size_t{30}, blob.size() / 2, blob.size() - 1}) {
    std::string bad = blob;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    EXPECT_TRUE(BitmapOfBlob(bad).empty()) << at;
  }
  EXPECT_TRUE(BitmapOfBlob(blob.substr(0, blob.size() - 8)).empty());
  EXPECT_TRUE(BitmapOfBlob(blob + "x").empty());
  EXPECT_TRUE(BitmapOfBlob("").empty());
}

SignatureParams Params() {
  Options o;
  o.num_perm = 4;
  return SignatureParamsOf(o);
}

TEST(IndexBitmapsTest, StoredBitmapsComeBackAtTheirDocumentsAndGoWithTheirFile) {
  TempDir dir;
  const std::string path = dir / "ix.db";
  Result<std::unique_ptr<SignatureIndex>> ix = SignatureIndex::Open(path, Params(), {});
  ASSERT_TRUE(ix.ok()) << ix.status().message();
  ASSERT_TRUE((*ix)->StartRun("test").ok());
  IndexedFile f;
  f.path = "/a/b.jsonl";
  f.jsonl = true;
  f.lines = 10;
  f.size = 1000;
  f.ends_newline = true;
  std::vector<DocRecord> docs(3);
  for (size_t k = 0; k < docs.size(); ++k) docs[k].line = 2 * k + 1;
  const std::vector<uint32_t> sigs(12, 7);
  const std::vector<SetBitmap> bitmaps = {Bitmap(300, 3), SetBitmap(), Bitmap(900, 4)};
  ASSERT_TRUE((*ix)->Begin().ok());
  ASSERT_TRUE((*ix)->PutFile(f, docs, sigs, {}, bitmaps).ok());
  ASSERT_TRUE((*ix)->Commit().ok());
  Result<std::vector<IndexedFile>> files = (*ix)->Files();
  ASSERT_TRUE(files.ok()) << files.status().message();
  ASSERT_EQ(files->size(), 1u);
  IndexedFile stored = (*files)[0];
  auto load = [&](uint64_t budget) {
    std::vector<std::pair<uint64_t, SetBitmap>> got;
    const Status s = (*ix)->LoadBitmaps({&stored}, budget, [&](size_t slot, uint64_t line, SetBitmap&& b) {
      EXPECT_EQ(slot, 0u);
      got.emplace_back(line, std::move(b));
    });
    EXPECT_TRUE(s.ok()) << s.message();
    return got;
  };
  std::vector<std::pair<uint64_t, SetBitmap>> got = load(UINT64_MAX);
  ASSERT_EQ(got.size(), 2u);  // the empty one is not stored
  EXPECT_EQ(got[0].first, 1u);
  EXPECT_TRUE(Same(got[0].second, bitmaps[0]));
  EXPECT_EQ(got[1].first, 5u);
  EXPECT_TRUE(Same(got[1].second, bitmaps[2]));
  EXPECT_EQ(load(0).size(), 1u);  // past the budget: no more is read

  // Signed again without bitmaps: the old ones are gone with the old documents.
  ASSERT_TRUE((*ix)->Begin().ok());
  ASSERT_TRUE((*ix)->PutFile(stored, docs, sigs, {}).ok());
  ASSERT_TRUE((*ix)->Commit().ok());
  EXPECT_TRUE(load(UINT64_MAX).empty());
  // Grown: the new lines' bitmaps join.
  std::vector<DocRecord> more(1);
  more[0].line = 9;
  stored.documents = 4;
  ASSERT_TRUE((*ix)->Begin().ok());
  ASSERT_TRUE((*ix)->AppendToFile(stored, more, std::vector<uint32_t>(4, 1), {}, bitmaps).ok());
  ASSERT_TRUE((*ix)->Commit().ok());
  got = load(UINT64_MAX);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].first, 9u);
  // Removed: nothing is left of it.
  ASSERT_TRUE((*ix)->Begin().ok());
  ASSERT_TRUE((*ix)->RemoveFile(stored.id).ok());
  ASSERT_TRUE((*ix)->Commit().ok());
  EXPECT_TRUE(load(UINT64_MAX).empty());
}

}  // namespace
}  // namespace neardup
