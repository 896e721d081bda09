// The `bitmaps` table (index_bitmaps.h) through its header and through
// SignatureIndex: what is stored comes back at its document, a file signed
// again or removed takes its bitmaps with it, and a damaged blob, or one
// made for another content, is never taken for a bitmap.
#include "index/index_bitmaps.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "index/index_schema.h"  // DocKey()
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
  const ContentHash c{.low = 5, .high = 6};
  ASSERT_FALSE(b.empty());
  EXPECT_TRUE(Same(BitmapOfBlob(BitmapBlob(b, c), c), b));
  EXPECT_TRUE(BitmapOfBlob(BitmapBlob(SetBitmap(), c), c).empty());
}

TEST(IndexBitmapsTest, ADamagedBlobOrOneOfAnotherContentIsNoBitmap) {
  const ContentHash c{.low = 5, .high = 6};
  const std::string blob = BitmapBlob(Bitmap(500, 2), c);
  for (const size_t at : {size_t{0}, size_t{9}, size_t{16}, size_t{30}, blob.size() / 2, blob.size() - 1}) {
    std::string bad = blob;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    EXPECT_TRUE(BitmapOfBlob(bad, c).empty()) << at;
  }
  EXPECT_TRUE(BitmapOfBlob(blob.substr(0, blob.size() - 8), c).empty());
  EXPECT_TRUE(BitmapOfBlob(blob + "x", c).empty());
  EXPECT_TRUE(BitmapOfBlob("", c).empty());
  EXPECT_TRUE(BitmapOfBlob(blob, ContentHash{.low = 5, .high = 7}).empty());
  EXPECT_TRUE(BitmapOfBlob(blob, ContentHash{.low = 4, .high = 6}).empty());
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
  for (size_t k = 0; k < docs.size(); ++k) {
    docs[k].line = 2 * k + 1;
    docs[k].content = {.low = k, .high = 1};
  }
  const std::vector<uint32_t> sigs(12, 7);
  const std::vector<SetBitmap> bitmaps = {Bitmap(300, 3), SetBitmap(), Bitmap(900, 4)};
  ASSERT_TRUE((*ix)->Begin().ok());
  ASSERT_TRUE((*ix)->PutFile(f, docs, sigs, {}, bitmaps).ok());
  ASSERT_TRUE((*ix)->Commit().ok());
  Result<std::vector<IndexedFile>> files = (*ix)->Files();
  ASSERT_TRUE(files.ok()) << files.status().message();
  ASSERT_EQ(files->size(), 1u);
  IndexedFile stored = (*files)[0];
  // As a run sees them: DocIds 0 to 3, the file's lines 1, 3, 5 and a
  // document with no key (signed now).
  const std::vector<int64_t> keys = {DocKey(stored.id, 1), DocKey(stored.id, 3), DocKey(stored.id, 5), -1};
  // The records as the run has them; the last of another content than any stored.
  std::vector<DocRecord> as_run = docs;
  as_run.emplace_back();
  auto load = [&](std::vector<uint8_t> wanted, uint64_t budget) {
    std::vector<SetBitmap> got(keys.size());
    got[3] = Bitmap(10, 9);
    Result<std::unique_ptr<StoredBitmaps>> sb = StoredBitmaps::Open(path, keys);
    EXPECT_TRUE(sb.ok()) << sb.status().message();
    if (!sb.ok()) return got;
    const Status s = (*sb)->Fill(wanted, as_run, budget, &got);
    EXPECT_TRUE(s.ok()) << s.message();
    return got;
  };
  std::vector<SetBitmap> got = load({1, 1, 1, 1}, UINT64_MAX);
  EXPECT_TRUE(Same(got[0], bitmaps[0]));
  EXPECT_TRUE(got[1].empty());  // stored without one
  EXPECT_TRUE(Same(got[2], bitmaps[2]));
  EXPECT_TRUE(Same(got[3], Bitmap(10, 9)));  // left as it was
  got = load({0, 1, 1, 0}, UINT64_MAX);      // only those wanted
  EXPECT_TRUE(got[0].empty());
  EXPECT_TRUE(Same(got[2], bitmaps[2]));
  got = load({1, 1, 1, 1}, 0);  // past the budget: no more is read
  EXPECT_FALSE(got[0].empty());
  EXPECT_TRUE(got[2].empty());

  // A snapshot keeps what was committed when it was opened.
  Result<std::unique_ptr<StoredBitmaps>> before = StoredBitmaps::Open(path, keys);
  ASSERT_TRUE(before.ok());
  // Signed again without bitmaps: the old ones are gone with the old documents.
  ASSERT_TRUE((*ix)->Begin().ok());
  ASSERT_TRUE((*ix)->PutFile(stored, docs, sigs, {}).ok());
  ASSERT_TRUE((*ix)->Commit().ok());
  got = load({1, 1, 1, 0}, UINT64_MAX);
  EXPECT_TRUE(got[0].empty() && got[1].empty() && got[2].empty());
  std::vector<SetBitmap> old(keys.size());
  ASSERT_TRUE((*before)->Fill({1, 1, 1, 0}, as_run, UINT64_MAX, &old).ok());
  EXPECT_TRUE(Same(old[0], bitmaps[0]));
  EXPECT_EQ((*before)->read(), 2u);
  before->reset();
  // Grown: the new lines' bitmaps join.
  std::vector<DocRecord> more(1);
  more[0].line = 9;
  more[0].content = {.low = 9, .high = 9};
  stored.documents = 4;
  ASSERT_TRUE((*ix)->Begin().ok());
  ASSERT_TRUE((*ix)->AppendToFile(stored, more, std::vector<uint32_t>(4, 1), {}, bitmaps).ok());
  ASSERT_TRUE((*ix)->Commit().ok());
  std::vector<SetBitmap> grown(1);
  Result<std::unique_ptr<StoredBitmaps>> sb = StoredBitmaps::Open(path, {DocKey(stored.id, 9)});
  ASSERT_TRUE(sb.ok());
  ASSERT_TRUE((*sb)->Fill({1}, more, UINT64_MAX, &grown).ok());
  EXPECT_TRUE(Same(grown[0], bitmaps[0]));
  // A document at that key of another content (what a later run stored
  // there) gets no bitmap from it.
  std::vector<DocRecord> other = more;
  other[0].content.low = 10;
  grown.assign(1, SetBitmap());
  ASSERT_TRUE((*sb)->Fill({1}, other, UINT64_MAX, &grown).ok());
  EXPECT_TRUE(grown[0].empty());
  sb->reset();
  // Removed: nothing is left of it.
  ASSERT_TRUE((*ix)->Begin().ok());
  ASSERT_TRUE((*ix)->RemoveFile(stored.id).ok());
  ASSERT_TRUE((*ix)->Commit().ok());
  grown.assign(1, SetBitmap());
  sb = StoredBitmaps::Open(path, {DocKey(stored.id, 9)});
  ASSERT_TRUE(sb.ok());
  ASSERT_TRUE((*sb)->Fill({1}, more, UINT64_MAX, &grown).ok());
  EXPECT_TRUE(grown[0].empty());
}

}  // namespace
}  // namespace neardup
