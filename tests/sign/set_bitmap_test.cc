// SetBitmap: the bound on the Jaccard must never be below the Jaccard of the
// sets, whatever their sizes, repeats, levels and the spread of their hashes;
// and it must be close enough to rule out most pairs well below a threshold.
#include "sign/set_bitmap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "sign/minhash.h"
#include "sign/sign.h"
#include "test_util.h"
#include "walk/walk.h"

namespace neardup {
namespace {

// The distinct hashes of `a` and `b`, and how many they share.
struct HashCounts {
  size_t a = 0, b = 0, common = 0;
};
HashCounts HashOverlap(std::vector<uint64_t> a, std::vector<uint64_t> b) {
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  std::sort(b.begin(), b.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  std::vector<uint64_t> common;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
  return {a.size(), b.size(), common.size()};
}

double Jaccard(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  const HashCounts o = HashOverlap(a, b);
  const size_t all = o.a + o.b - o.common;
  return all == 0 ? 0.0 : static_cast<double>(o.common) / static_cast<double>(all);
}

// Builds in pieces, as DocumentReader feeds a builder chunk by chunk.
SetBitmap Build(const std::vector<uint64_t>& hashes, uint64_t bytes) {
  SetBitmapBuilder b;
  b.Begin(bytes);
  for (size_t at = 0; at < hashes.size(); at += 97) {
    b.Add(std::span<const uint64_t>(hashes).subspan(at, std::min<size_t>(97, hashes.size() - at)));
  }
  return b.Finish(bytes);
}

// Two sets: `shared` hashes in both, `only_a` and `only_b` in one; each hash
// added 1 to `repeat` times, in shuffled order. `mask` squeezes the hashes
// into part of the range (top bits cleared: many share a bit).
struct Pair {
  std::vector<uint64_t> a, b;
};
Pair MakePair(std::mt19937_64& rng, size_t shared, size_t only_a, size_t only_b, int repeat, uint64_t mask) {
  Pair p;
  std::uniform_int_distribution<int> times(1, repeat);
  auto add = [&](std::vector<uint64_t>* to, uint64_t h) {
    for (int k = times(rng); k > 0; --k) to->push_back(h);
  };
  for (size_t i = 0; i < shared; ++i) {
    const uint64_t h = rng() & mask;
    add(&p.a, h);
    add(&p.b, h);
  }
  for (size_t i = 0; i < only_a; ++i) add(&p.a, rng() & mask);
  for (size_t i = 0; i < only_b; ++i) add(&p.b, rng() & mask);
  std::shuffle(p.a.begin(), p.a.end(), rng);
  std::shuffle(p.b.begin(), p.b.end(), rng);
  return p;
}

// 6,000 pairs (seed 11) of every shape: sizes 1 to 6,000, Jaccard 0 to 1,
// repeats, hashes crowded into 2^20 values or fewer, byte counts that give
// the two documents different levels (so one is folded), or too small a
// count for the hashes (a crowded bitmap).
TEST(SetBitmapTest, BoundIsNeverBelowTheJaccard) {
  std::mt19937_64 rng(11);
  std::vector<uint64_t> scratch;
  const uint64_t masks[] = {~uint64_t{0}, ~uint64_t{0} << 20, (uint64_t{1} << 20) - 1, 0xFFFF000000000000ULL};
  int crowded_bits_checked = 0;
  for (int t = 0; t < 6000; ++t) {
    const size_t shared = rng() % 2000, only_a = rng() % (t % 3 == 0 ? 4000 : 300), only_b = rng() % 300;
    const uint64_t mask = masks[t % 4];
    const Pair p = MakePair(rng, shared, only_a, only_b, 1 + static_cast<int>(rng() % 4), mask);
    if (p.a.empty() || p.b.empty()) continue;
    // Bytes per hash: 6 as for English words, 1 as for characters, or far
    // too few (a long document said to be short).
    const uint64_t per[] = {6, 1, 0};
    const uint64_t bytes_a = std::max<uint64_t>(1, p.a.size() * per[t % 3]),
                   bytes_b = std::max<uint64_t>(1, p.b.size() * per[(t / 3) % 3]);
    const SetBitmap a = Build(p.a, bytes_a), b = Build(p.b, bytes_b);
    const double j = Jaccard(p.a, p.b);
    const double bound = JaccardBound(a, b, &scratch);
    ASSERT_GE(bound, j) << "t " << t << " sizes " << p.a.size() << " " << p.b.size() << " levels " << int(a.level)
                        << " " << int(b.level);
    ASSERT_EQ(bound, JaccardBound(b, a, &scratch));
    if (mask != ~uint64_t{0}) ++crowded_bits_checked;
  }
  EXPECT_GT(crowded_bits_checked, 4000);
}

// The larger containment of either set in the other, |A n B| / min(|A|, |B|).
double Containment(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  const HashCounts o = HashOverlap(a, b);
  return static_cast<double>(o.common) / static_cast<double>(std::min(o.a, o.b));
}

// ContainmentBound over the same 6,000 shapes of pairs (seed 17), sizes
// far apart among them: never below either containment; a set inside
// another (only_a = 0) always at 1; and where a small document shares a
// tenth of its shingles with one 8 times larger (a template's headers, not a
// quote), the bound rules the pair out at 0.8.
TEST(SetBitmapTest, ContainmentBoundIsNeverBelowTheContainment) {
  std::mt19937_64 rng(17);
  std::vector<uint64_t> scratch;
  const uint64_t masks[] = {~uint64_t{0}, ~uint64_t{0} << 20, (uint64_t{1} << 20) - 1, 0xFFFF000000000000ULL};
  for (int t = 0; t < 6000; ++t) {
    const size_t shared = rng() % 1000, only_a = t % 5 == 0 ? 0 : rng() % 300, only_b = rng() % (t % 2 ? 8000 : 300);
    const Pair p = MakePair(rng, shared, only_a, only_b, 1 + static_cast<int>(rng() % 4), masks[t % 4]);
    if (p.a.empty() || p.b.empty()) continue;
    const uint64_t per[] = {6, 1, 0};
    const SetBitmap a = Build(p.a, std::max<uint64_t>(1, p.a.size() * per[t % 3]));
    const SetBitmap b = Build(p.b, std::max<uint64_t>(1, p.b.size() * per[(t / 3) % 3]));
    const double bound = ContainmentBound(a, b, &scratch);
    ASSERT_GE(bound, Containment(p.a, p.b)) << "t " << t << " sizes " << p.a.size() << " " << p.b.size();
    ASSERT_EQ(bound, ContainmentBound(b, a, &scratch));
    if (only_a == 0 && shared > 0) {
      ASSERT_GE(bound, 1.0) << "t " << t;
    }
  }
  int ruled_out = 0;
  for (int t = 0; t < 500; ++t) {
    const Pair p = MakePair(rng, 60, 540, 4740, 2, ~uint64_t{0});  // |A| 600, |B| 4800, C(A, B) 0.1
    ruled_out += ContainmentBound(Build(p.a, 3600), Build(p.b, 28800), &scratch) < 0.8 ? 1 : 0;
  }
  EXPECT_EQ(ruled_out, 500);
}

// The same set, with different repeats, order and byte counts (so different
// levels): the bound is at least 1, so equal sets are never ruled out.
TEST(SetBitmapTest, EqualSetsAreBoundedByOne) {
  std::mt19937_64 rng(12);
  std::vector<uint64_t> scratch;
  for (int t = 0; t < 2000; ++t) {
    const Pair p =
        MakePair(rng, 1 + rng() % 3000, 0, 0, 1 + static_cast<int>(rng() % 3), t % 2 == 0 ? ~uint64_t{0} : 0xFFF);
    const SetBitmap a = Build(p.a, p.a.size() * (1 + rng() % 8)), b = Build(p.b, p.b.size() * (1 + rng() % 8));
    ASSERT_GE(JaccardBound(a, b, &scratch), 1.0) << "t " << t;
  }
}

// What the bitmap counts: at least the set's size in `most`, at most in
// `least`, whatever the repeats; with none, `most` is the set's size but
// for hashes that met another in their bit.
TEST(SetBitmapTest, SizesBracketTheSetSize) {
  std::mt19937_64 rng(13);
  for (int t = 0; t < 500; ++t) {
    const Pair p = MakePair(rng, 1 + rng() % 5000, 0, 0, 1 + t % 5, t % 7 == 0 ? 0xFFFF : ~uint64_t{0});
    std::set<uint64_t> distinct(p.a.begin(), p.a.end());
    const SetBitmap a = Build(p.a, p.a.size() * 6);
    ASSERT_GE(a.most, distinct.size());
    ASSERT_LE(a.least, distinct.size());
    ASSERT_GE(a.least, a.bits);
    ASSERT_EQ(a.words.size() * 64, size_t{1} << a.level);
  }
  // Every hash added three times, uniform: the repeats are found.
  const Pair p = MakePair(rng, 800, 0, 0, 1, ~uint64_t{0});
  std::vector<uint64_t> thrice = p.a;
  thrice.insert(thrice.end(), p.a.begin(), p.a.end());
  thrice.insert(thrice.end(), p.a.begin(), p.a.end());
  const SetBitmap a = Build(thrice, 800 * 6);
  EXPECT_LE(a.most, 880u);  // a hash that met another in its bit counts its repeats as new (~40)
  EXPECT_GE(a.most, 800u);
}

// 8 to 16 bits a member, and never more than 4 bits a byte of text.
TEST(SetBitmapTest, LevelFollowsTheSizeAndTheBytes) {
  std::mt19937_64 rng(14);
  const Pair p = MakePair(rng, 1000, 0, 0, 1, ~uint64_t{0});
  const SetBitmap words = Build(p.a, 6000);  // 1,000 words of English
  EXPECT_EQ(words.level, 13);                // 8,192 bits
  const SetBitmap chars = Build(p.a, 1000);  // 1,000 characters
  EXPECT_EQ(chars.level, 11);                // 2,048 bits
  EXPECT_TRUE(Build(p.a, 0).empty());        // a stream: no size, no bitmap
  SetBitmapBuilder b;
  b.Begin(100);
  EXPECT_TRUE(b.Finish(100).empty());  // nothing added
  std::vector<uint64_t> scratch;
  EXPECT_EQ(JaccardBound(SetBitmap(), words, &scratch), 1.0);
}

// Pairs of 800-member sets of Jaccard 0.3 and 0.4 against -t 0.5: the
// bound rules out nearly all (uniform hashes, 6 bytes a member).
TEST(SetBitmapTest, RulesOutMostPairsWellBelowTheThreshold) {
  std::mt19937_64 rng(15);
  std::vector<uint64_t> scratch;
  for (const double j : {0.3, 0.4}) {
    int ruled_out = 0;
    for (int t = 0; t < 500; ++t) {
      // |A n B| = s, |A| = |B| = 800: J = s / (1600 - s).
      const size_t s = static_cast<size_t>(j * 1600 / (1 + j));
      const Pair p = MakePair(rng, s, 800 - s, 800 - s, 2, ~uint64_t{0});
      const double bound = JaccardBound(Build(p.a, 4800), Build(p.b, 4800), &scratch);
      ruled_out += bound < 0.5 ? 1 : 0;
    }
    EXPECT_GE(ruled_out, j < 0.35 ? 500 : 475) << "J " << j;
  }
}

TEST(SetBitmapTest, FoldVersionsAgreeWithTheRule) {
  std::mt19937_64 rng(16);
  for (const size_t n : {2, 8, 16, 18, 64, 1024}) {
    std::vector<uint64_t> words(n);
    for (uint64_t& w : words) w = rng() & rng();  // about a quarter of the bits set
    std::vector<uint64_t> want(n / 2, 0);
    for (size_t i = 0; i < n * 32; ++i) {
      const bool set =
          ((words[(2 * i) / 64] >> ((2 * i) % 64)) & 1) | ((words[(2 * i + 1) / 64] >> ((2 * i + 1) % 64)) & 1);
      if (set) want[i / 64] |= uint64_t{1} << (i % 64);
    }
    std::vector<uint64_t> portable = words;
    internal::FoldBitmapPortable(portable.data(), n);
    portable.resize(n / 2);
    EXPECT_EQ(portable, want) << n;
    if (internal::FoldBitmapAvx2Supported()) {
      std::vector<uint64_t> avx2 = words;
      internal::FoldBitmapAvx2(avx2.data(), n);
      avx2.resize(n / 2);
      EXPECT_EQ(avx2, want) << n;
    }
    if (internal::FoldBitmapAvx512Supported()) {
      std::vector<uint64_t> wide = words;
      internal::FoldBitmapAvx512(wide.data(), n);
      wide.resize(n / 2);
      EXPECT_EQ(wide, want) << n;
    }
  }
}

SignedCorpus SignAll(const Options& o, int threads) {
  Result<WalkedCorpus> walked = WalkCorpus(o);
  EXPECT_TRUE(walked.ok());
  const MinHasher minhasher(o.num_perm, o.seed);
  Workers w{.threads = threads, .tick = {}, .cancel = nullptr};
  SignProgress counts;
  return Sign({o, minhasher, FileSystem::Default(), w, false, counts}, std::move(walked->files));
}

// Sign() builds a bitmap for every signed document of a run that verifies
// by exact Jaccard, by DocId: the same for the same text, as a text file or
// a JSONL line, on one thread or two; none for an empty document, and none
// at all in signature mode.
TEST(SetBitmapTest, SignBuildsOneForEveryDocumentWithExact) {
  testing::TempDir dir;
  const std::string a = testing::Join(testing::RandomWords(700, 51));
  const std::string b = testing::Join(testing::RandomWords(90, 52));
  testing::WriteFile(dir / "t/1.txt", a);
  testing::WriteFile(dir / "t/2.txt", "");
  testing::WriteFile(dir / "t/3.txt", b);
  std::string jsonl;
  for (int k = 0; k < 300; ++k) {
    jsonl += "{\"text\": \"" + (k % 3 == 0 ? a : k % 3 == 1 ? std::string() : b) + "\"}\n";
  }
  testing::WriteFile(dir / "j/docs.jsonl", jsonl);
  Options o;
  o.verify = VerifyMode::kExact;
  o.threshold = 0.5;
  o.paths = {dir / "t"};
  const SignedCorpus text = SignAll(o, 2);
  ASSERT_EQ(text.bitmaps.size(), 3u);
  EXPECT_FALSE(text.bitmaps[0].empty());
  EXPECT_TRUE(text.bitmaps[1].empty());
  EXPECT_FALSE(text.bitmaps[2].empty());
  o.input = InputFormat::kJsonl;
  o.paths = {dir / "j"};
  for (const int threads : {1, 2}) {
    const SignedCorpus lines = SignAll(o, threads);
    ASSERT_EQ(lines.bitmaps.size(), lines.table.docs.size());
    ASSERT_EQ(lines.table.docs.size(), 200u);  // the empty lines are only counted
    for (size_t d = 0; d < lines.table.docs.size(); ++d) {
      const SetBitmap& want = text.bitmaps[d % 2 == 0 ? 0 : 2];
      ASSERT_EQ(lines.bitmaps[d].words, want.words) << d;
      ASSERT_EQ(lines.bitmaps[d].most, want.most) << d;
      ASSERT_EQ(lines.bitmaps[d].least, want.least) << d;
    }
  }
  o.verify = VerifyMode::kSignature;
  EXPECT_TRUE(SignAll(o, 2).bitmaps.empty());
  // Nor at a threshold where banding lets few candidates through: they
  // would cost more than they save (WantsBitmaps).
  o.verify = VerifyMode::kExact;
  o.threshold = kBitmapsBelow;
  EXPECT_TRUE(SignAll(o, 2).bitmaps.empty());
}

// SignContext::bitmap_text: the documents whose text, added up in input
// order, passes it get none, as text files and as JSONL lines; a drain (a
// stage sign task's) receives each block's bitmaps with its documents.
TEST(SetBitmapTest, TheTextBudgetEndsTheBitmapsAndADrainGetsThem) {
  testing::TempDir dir;
  const std::string a = testing::Join(testing::RandomWords(700, 61));
  const std::string b = testing::Join(testing::RandomWords(90, 62));
  testing::WriteFile(dir / "t/1.txt", a);
  testing::WriteFile(dir / "t/2.txt", b);
  testing::WriteFile(dir / "t/3.txt", a);
  testing::WriteFile(dir / "j/docs.jsonl", "{\"text\": \"" + a + "\"}\n{\"text\": \"" + b + "\"}\n{\"text\": \"" + a +
                                               "\"}\n{\"text\": \"" + b + "\"}\n");
  Options o;
  o.verify = VerifyMode::kExact;
  o.threshold = 0.5;
  const MinHasher minhasher(o.num_perm, o.seed);
  Workers w{.threads = 2, .tick = {}, .cancel = nullptr};
  SignProgress counts;
  for (const InputFormat input : {InputFormat::kText, InputFormat::kJsonl}) {
    o.input = input;
    o.paths = {dir / (input == InputFormat::kText ? "t" : "j")};
    Result<WalkedCorpus> walked = WalkCorpus(o);
    ASSERT_TRUE(walked.ok());
    SignContext ctx{o, minhasher, FileSystem::Default(), w, false, counts};
    ctx.bitmap_text = a.size() + b.size();  // the first two documents' text
    std::vector<SetBitmap> drained;
    size_t docs = 0;
    if (input == InputFormat::kJsonl) {
      ctx.drain = [&](std::vector<DocRecord>& d, std::span<const uint32_t>, std::span<const SetBitmap> bitmaps) {
        EXPECT_EQ(bitmaps.size(), d.size());
        docs += d.size();
        drained.insert(drained.end(), bitmaps.begin(), bitmaps.end());
        return true;
      };
    }
    SignedCorpus signed_docs = SignShare(ctx, walked->files);
    const std::vector<SetBitmap>& got = input == InputFormat::kText ? signed_docs.bitmaps : drained;
    if (input == InputFormat::kJsonl) {
      EXPECT_EQ(docs, 4u);
      EXPECT_TRUE(signed_docs.table.docs.empty());
    }
    ASSERT_GE(got.size(), 3u) << static_cast<int>(input);
    EXPECT_FALSE(got[0].empty());
    EXPECT_FALSE(got[1].empty());
    for (size_t d = 2; d < got.size(); ++d) EXPECT_TRUE(got[d].empty()) << d;
  }
}

}  // namespace
}  // namespace neardup
