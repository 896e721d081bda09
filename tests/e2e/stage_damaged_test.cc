// End to end: a damaged work folder (a flipped bit, or a value out of range
// in a file whose checksum was made to match) makes the stage that reads it
// exit 2 with one line naming the file, never a signal, a silent skip or a
// different answer; and the stage commands refuse the options they do not
// read. Each check of the work folder's files has a test here that fails
// without it.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "base/hash.h"
#include "distributed/format/shard_meta.h"
#include "distributed/stage_bucket.h"
#include "distributed/stage_sign.h"
#include "distributed/stage_verify.h"
#include "e2e/run_neardup.h"
#include "lsh/candidates.h"
#include "sign/table_codec.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::ReadFile;
using testing::RunNeardup;
using testing::RunResult;
using testing::TempDir;
using testing::With;
using testing::WriteFile;

using Args = std::vector<std::string>;

// The band file's layout (stage_sign.h), written out here so that the test
// recomputes its checksums as a forger would.
constexpr size_t kHeader = 48;
constexpr size_t kEntry = kBandEntrySize;  // u64 hash, 4-byte local id
constexpr size_t kCopy = 16;               // a document's content hash

uint64_t Get64(const std::string& bytes, size_t at) {
  uint64_t v = 0;
  std::memcpy(&v, bytes.data() + at, 8);
  return v;
}
void Put64(std::string& bytes, size_t at, uint64_t v) { std::memcpy(bytes.data() + at, &v, 8); }
uint32_t Get32(const std::string& bytes, size_t at) {
  uint32_t v = 0;
  std::memcpy(&v, bytes.data() + at, 4);
  return v;
}

// The band file `bytes` of one run (a small shard spills none) with every
// checksum of its trailer made to match (each band's, then the header's and
// the trailer's).
void RechecksumBands(std::string& bytes) {
  const uint64_t bands = Get32(bytes, 12);
  ASSERT_EQ(Get32(bytes, 20), 1u) << "one run";
  const uint64_t per_band = Get64(bytes, 32);
  const uint64_t docs = Get64(bytes, 40);
  const size_t copies = kHeader + bands * per_band * kEntry;
  const size_t trailer = copies + docs * kCopy;  // the counts, then the checksums
  ASSERT_EQ(bytes.size(), trailer + bands * 16 + 16);
  for (uint64_t b = 0; b < bands; ++b) {
    const size_t run = kHeader + b * per_band * kEntry;
    Put64(bytes, trailer + (bands + b) * 8, HashBytes(bytes.data() + run, per_band * kEntry, 0));
  }
  Put64(bytes, trailer + bands * 16, HashBytes(bytes.data() + copies, docs * kCopy, 0));
  std::string covered = bytes.substr(0, kHeader) + bytes.substr(trailer, bands * 16 + 8);
  Put64(bytes, trailer + bands * 16 + 8, HashBytes(covered.data(), covered.size(), 0));
}

// A file ending with XXH3-64 of the rest, made to match.
void RechecksumTail(std::string& bytes) {
  Put64(bytes, bytes.size() - 8, HashBytes(bytes.data(), bytes.size() - 8, 0));
}

// Near copies of a few texts and unique texts.
void MakeCorpus(const TempDir& dir) {
  for (int base = 0; base < 3; ++base) {
    const auto words = RandomWords(200, static_cast<uint64_t>(300 + base));
    for (int copy = 0; copy < 4; ++copy) {
      auto edited = words;
      edited[static_cast<size_t>(copy * 7)] = "edit" + std::to_string(copy);
      WriteFile(dir / ("docs/b" + std::to_string(base) + "/c" + std::to_string(copy) + ".txt"), Join(edited));
    }
  }
  for (int u = 0; u < 6; ++u) {
    WriteFile(dir / ("docs/u" + std::to_string(u) + ".txt"), Join(RandomWords(150, static_cast<uint64_t>(900 + u))));
  }
}

// More than kLargeBucket near copies: a large bucket in cluster modes.
void MakeLargeBucketCorpus(const TempDir& dir) {
  const auto base = RandomWords(120, 9);
  for (int i = 0; i < 300; ++i) {
    auto words = base;
    words.push_back("tail" + std::to_string(i));
    WriteFile(dir / ("docs/f" + std::to_string(1000 + i) + ".txt"), Join(words));
  }
}

// Signs `docs` in 2 shards, buckets in 2 tasks and verifies in 2, with
// `options`.
void SignAndBucket(const TempDir& dir, const std::string& work, const Args& options = {}) {
  for (const char* task : {"0", "1"}) {
    Args args = {"sign", "--task", task, "--tasks", "2"};
    args.insert(args.end(), options.begin(), options.end());
    args.insert(args.end(), {work, dir / "docs"});
    const RunResult r = RunNeardup(With({"stage"}, args), dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  for (const char* task : {"0", "1"}) {
    Args args = {"bucket", "--task", task, "--tasks", "2"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back(work);
    const RunResult r = RunNeardup(With({"stage"}, args), dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  for (const char* task : {"0", "1"}) {
    Args args = {"verify", "--task", task, "--tasks", "2"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back(work);
    const RunResult r = RunNeardup(With({"stage"}, args), dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
}

// Verify task `task` of 2 over `work` with `options`, run afresh (verify/
// removed first): the stage that reads the bucket tasks' pairs.
RunResult Verify(const TempDir& dir, const std::string& work, const char* task, const Args& options = {}) {
  std::filesystem::remove_all(work + "/verify");
  Args args = {"verify", "--task", task, "--tasks", "2"};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back(work);
  return RunNeardup(With({"stage"}, args), dir.path());
}

// Exit 2, nothing on stdout, one short line on stderr naming `file` and
// saying `what`.
void ExpectRefused(const RunResult& r, const std::string& file, const std::string& what) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_LE(r.err.size(), 401u);
  EXPECT_NE(r.err.find(file + ": "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
}

constexpr const char* kEmptyFolder = "run again in an empty work folder";

// The verify tasks' outputs whose fields the tests below damage by hand are
// those of signature verification (an estimate, no Jaccard).
const Args kBySignature = {"--verify", "signature"};

// Bucket task `task` of 2 over `work`, run afresh (bucket/ removed first).
RunResult Bucket(const TempDir& dir, const std::string& work, const char* task) {
  std::filesystem::remove_all(work + "/bucket");
  return RunNeardup({"stage", "bucket", "--task", task, "--tasks", "2", work}, dir.path());
}

// ---------------------------------------------------------------- bands

// Finding: one band entry of a real bucket given the local id 2^40-1 (and
// no checksum to say so) passed both bucket tasks, then the report crashed.
TEST(StageDamagedTest, BandEntryEditedIsRefusedByTheBucketTask) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string work = dir / "work";
  SignAndBucket(dir, work);
  const std::string path = work + "/sign/1.bands";
  const std::string good = ReadFile(path);
  // An entry of band 0 that shares its hash with the next one: a real bucket.
  const uint64_t per_band = Get64(good, 32);
  size_t at = 0;
  for (uint64_t k = 0; k + 1 < per_band && at == 0; ++k) {
    if (Get64(good, kHeader + k * kEntry) == Get64(good, kHeader + (k + 1) * kEntry)) at = kHeader + k * kEntry;
  }
  ASSERT_NE(at, 0u) << "no bucket of two in shard 1, band 0";
  std::string bad = good;
  std::memset(bad.data() + at + 8, 0xff, 5);  // the local id 2^40-1

  WriteFile(path, bad);  // as found: the id is checked before the run's checksum
  ExpectRefused(Bucket(dir, work, "0"), path, "a document id out of range: " + std::string(kEmptyFolder));

  RechecksumBands(bad);  // and with its checksums made to match
  WriteFile(path, bad);
  const RunResult r = Bucket(dir, work, "0");
  ExpectRefused(r, path, "a document id out of range: " + std::string(kEmptyFolder));
  EXPECT_FALSE(std::filesystem::exists(work + "/bucket/0.pairs"));
}

// Every byte of a band file is covered: a bit flipped in a run, the header
// or the trailer is refused, by the bucket task that reads that band.
TEST(StageDamagedTest, BandFileBitFlipsAreRefused) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string work = dir / "work";
  SignAndBucket(dir, work);
  const std::string path = work + "/sign/0.bands";
  const std::string good = ReadFile(path);
  const uint64_t bands = Get32(good, 12);
  const uint64_t per_band = Get64(good, 32);
  const size_t last_run = kHeader + (bands - 1) * per_band * kEntry;
  const size_t copies = kHeader + bands * per_band * kEntry;
  const size_t trailer = copies + Get64(good, 40) * kCopy;
  // A band hash of the last band (read only by the last bucket task), a
  // content hash of the copies section (read by every bucket task), the
  // header's fingerprint, a run's count, a run's checksum, the copies
  // section's, the trailer's.
  for (const size_t at :
       {last_run + 2, copies + 5, size_t{28}, trailer + 8, good.size() - 24, good.size() - 16, good.size() - 1}) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x04);
    WriteFile(path, bad);
    ExpectRefused(Bucket(dir, work, "1"), path, "checksum mismatch");
  }
  WriteFile(path, good.substr(0, good.size() - 1));
  ExpectRefused(Bucket(dir, work, "0"), path, "its size does not match");
  WriteFile(path, good);
  EXPECT_EQ(Bucket(dir, work, "0").exit_code, 0);
}

// With checksums that match: an entry count the file does not hold, and
// entries out of order.
TEST(StageDamagedTest, BandFileValuesAreCheckedBehindTheChecksums) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string work = dir / "work";
  SignAndBucket(dir, work);
  const std::string path = work + "/sign/0.bands";
  const std::string good = ReadFile(path);
  const uint64_t per_band = Get64(good, 32);
  ASSERT_GE(per_band, 2u);

  std::string bad = good;
  Put64(bad, 32, per_band + 1);                      // one entry a band more than there is
  const size_t sums = (2 * Get32(bad, 12) + 1) * 8;  // the runs' counts and checksums, the copies section's
  std::string covered = bad.substr(0, kHeader) + bad.substr(bad.size() - 8 - sums, sums);
  Put64(bad, bad.size() - 8, HashBytes(covered.data(), covered.size(), 0));
  WriteFile(path, bad);
  ExpectRefused(Bucket(dir, work, "0"), path, "its size does not match");

  bad = good;  // the first two entries of band 0 swapped
  std::string first = bad.substr(kHeader, kEntry);
  bad.replace(kHeader, kEntry, bad.substr(kHeader + kEntry, kEntry));
  bad.replace(kHeader + kEntry, kEntry, first);
  RechecksumBands(bad);
  WriteFile(path, bad);
  ExpectRefused(Bucket(dir, work, "0"), path, "out of order");

  bad = good;  // an id past the shard's documents (the shard is the file's)
  const uint64_t docs = Get64(bad, 40);
  std::memcpy(bad.data() + kHeader + 8, &docs, kBandIdBytes);
  RechecksumBands(bad);
  WriteFile(path, bad);
  ExpectRefused(Bucket(dir, work, "0"), path, "a document id out of range");
}

// The bucket tasks check ids against the shard's document count from its
// table's header: a header of another size than its file is refused.
TEST(StageDamagedTest, TableOfAnotherSizeIsRefusedByTheBucketTask) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string work = dir / "work";
  SignAndBucket(dir, work);
  const std::string path = work + "/sign/1.table";
  WriteFile(path, ReadFile(path) + "x");
  ExpectRefused(Bucket(dir, work, "0"), path, "its size does not match its header: " + std::string(kEmptyFolder));
}

// A shard signed by a neardup of MinHash definition 0 (its values mixed):
// its signatures are never banded with this one's; the message says why and
// the way out.
TEST(StageDamagedTest, TableOfAnOlderMinHashDefinitionIsRefusedWithTheWayOut) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string work = dir / "work";
  SignAndBucket(dir, work);
  const std::string path = work + "/sign/0.table";
  Result<DecodedTable> table = DecodeFrom(ReadFile(path));
  ASSERT_TRUE(table.ok()) << table.status().message();
  EXPECT_EQ(table->params.minhash_version, kMinHashVersion);
  table->params.minhash_version = 0;
  std::string older;
  ASSERT_TRUE(EncodeTo(table->table, table->params, &older).ok());
  WriteFile(path, older);
  const std::string why =
      "signed with other parameters: MinHash definition: 1 here, 0 in shard 0 (signatures of an "
      "older neardup): " +
      std::string(kEmptyFolder);
  ExpectRefused(Bucket(dir, work, "0"), path, why);
  ExpectRefused(RunNeardup({"stage", "report", work}, dir.path()), path, why);
}

// A JSONL shard keeps where each line starts, so that a verify task reads
// again only the lines it checks; a place that is wrong (the table
// rewritten, its checksum made to match) is never trusted: the line found
// there is not the one signed, so its document is left out as changed and
// no pair of it is reported.
TEST(StageDamagedTest, JsonlLinePlacesAreKeptAndAWrongOneIsNeverTrusted) {
  TempDir dir;
  const auto base = RandomWords(120, 21);
  std::string text;
  std::vector<uint64_t> starts;  // of lines 1..12
  for (int i = 0; i < 12; ++i) {
    auto words = i % 2 == 0 ? base : RandomWords(120, static_cast<uint64_t>(200 + i));
    if (i % 2 == 0) words[static_cast<size_t>(i)] = "edit";
    starts.push_back(text.size());
    text += R"({"id": "doc)" + std::to_string(i) + R"(", "text": ")" + Join(words) + "\"}\r\n";
  }
  WriteFile(dir / "docs/a.jsonl", text);
  const Args options = {"--input", "jsonl", "-t", "0.8", "-f", "tsv"};
  const std::string work = dir / "work";
  SignAndBucket(dir, work, options);
  const RunResult right = RunNeardup(With(With({"stage", "report"}, options), {work}), dir.path());
  const RunResult scan = RunNeardup(With(With({"scan"}, options), {dir / "docs"}), dir.path());
  ASSERT_EQ(right.exit_code, 0) << right.err;
  EXPECT_EQ(right.out, scan.out);
  EXPECT_EQ(std::count(right.out.begin(), right.out.end(), '\n'), 15) << right.out;  // 6 near copies: 15 pairs

  size_t seen = 0;
  for (const char* shard : {"0", "1"}) {
    const std::string path = work + "/sign/" + shard + ".table";
    Result<DecodedTable> table = DecodeFrom(ReadFile(path));
    ASSERT_TRUE(table.ok()) << table.status().message();
    for (DocRecord& d : table->table.docs) {
      ASSERT_GE(d.line, 1u);
      EXPECT_EQ(d.offset, starts[d.line - 1]) << d.name;
      ++seen;
      // Line 2's place for every document but doc2 (line 3) and doc3.
      if (d.line != 3 && d.line != 4) d.offset = starts[1];
    }
    std::string forged;
    ASSERT_TRUE(EncodeTo(table->table, table->params, &forged).ok());
    WriteFile(path, forged);
  }
  EXPECT_EQ(seen, 12u);
  std::filesystem::remove_all(work + "/verify");
  for (const char* task : {"0", "1"}) {
    const RunResult r =
        RunNeardup(With({"stage", "verify", "--task", task, "--tasks", "2"}, With(options, {work})), dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const RunResult forged = RunNeardup(With(With({"stage", "report"}, options), {work}), dir.path());
  EXPECT_EQ(forged.exit_code, 2) << forged.err;  // documents changed: an error
  EXPECT_NE(forged.err.find("a.jsonl:1: changed during the run"), std::string::npos) << forged.err;
  // Of the near copies only doc2 (line 3) was found where it is: no pair
  // has both its documents read again.
  EXPECT_EQ(forged.out, "") << forged.out;
}

// ---------------------------------------------------------------- pairs

// Writes `out` as `path`, with a valid checksum.
void WritePairs(const std::string& path, const BucketOutput& out) { WriteFile(path, EncodeBucketOutput(out)); }

// A flipped bit of a .pairs file is refused by the report (no test had it).
TEST(StageDamagedTest, PairsFileBitFlipIsRefused) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string work = dir / "work";
  SignAndBucket(dir, work);
  const RunResult before = RunNeardup({"stage", "report", work}, dir.path());
  ASSERT_EQ(before.exit_code, 0) << before.err;
  const std::string path = work + "/bucket/0.pairs";
  const std::string good = ReadFile(path);
  Result<BucketOutput> decoded = DecodeBucketOutput(good);
  ASSERT_TRUE(decoded.ok());
  ASSERT_GE(decoded->pairs.size(), 2u);
  std::string bad = good;
  bad[20 + 24 + 8] ^= 0x01;  // the second pair's first id
  WriteFile(path, bad);
  ExpectRefused(Verify(dir, work, "1"), path,
                "bucket pairs: damaged (checksum, size or fields): " + std::string(kEmptyFolder));
  EXPECT_FALSE(std::filesystem::exists(work + "/verify/1.pairs"));
  WriteFile(path, good);
  ASSERT_EQ(Verify(dir, work, "1").exit_code, 0);
  ASSERT_EQ(RunNeardup({"stage", "verify", "--task", "0", "--tasks", "2", work}, dir.path()).exit_code, 0);
  EXPECT_EQ(RunNeardup({"stage", "report", work}, dir.path()).out, before.out);
}

// Findings: crafted .pairs files with valid checksums, a bad local id or a
// huge band number, crashed the report.
TEST(StageDamagedTest, PairsValuesOutOfRangeAreRefused) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string work = dir / "work";
  SignAndBucket(dir, work);
  const std::string path = work + "/bucket/0.pairs";
  const std::string good = ReadFile(path);
  Result<BucketOutput> decoded = DecodeBucketOutput(good);
  ASSERT_TRUE(decoded.ok());
  ASSERT_FALSE(decoded->pairs.empty());
  const BucketPair real = decoded->pairs.back();
  struct Case {
    BucketPair pair;
    const char* what;
  };
  const Case cases[] = {
      {{.a = real.a, .b = GlobalId(1, (uint64_t{1} << 40) - 1), .band = real.band}, "a document id out of range"},
      {{.a = real.a, .b = GlobalId(1, 4000), .band = real.band}, "a document id out of range"},
      {{.a = real.a, .b = GlobalId(9, 0), .band = real.band}, "a document id out of range"},
      {{.a = real.a, .b = real.b, .band = uint64_t{1} << 62}, "a band out of range"},
      {{.a = real.a, .b = real.b, .band = 15}, "a band out of range"},  // bucket task 1's band
      {{.a = real.b, .b = real.a, .band = real.band}, "a pair out of order"},
  };
  for (const Case& c : cases) {
    BucketOutput out = *decoded;
    out.pairs = {c.pair};
    WritePairs(path, out);
    ExpectRefused(Verify(dir, work, "0"), path, std::string(c.what) + ": " + kEmptyFolder);
  }
  BucketOutput out = *decoded;  // a pair twice
  out.pairs.push_back(out.pairs.back());
  WritePairs(path, out);
  ExpectRefused(Verify(dir, work, "0"), path, "out of order");
}

// Finding: a large bucket naming a shard that does not exist ended in
// "internal error: vector::_M_range_check".
TEST(StageDamagedTest, LargeBucketValuesOutOfRangeAreRefused) {
  TempDir dir;
  MakeLargeBucketCorpus(dir);
  const std::string work = dir / "work";
  SignAndBucket(dir, work, {"--mode", "clusters"});
  const RunResult before = RunNeardup({"stage", "report", "--mode", "clusters", work}, dir.path());
  ASSERT_EQ(before.exit_code, 0) << before.err;
  std::string path;
  BucketOutput found;
  for (const char* j : {"0", "1"}) {
    Result<BucketOutput> o = DecodeBucketOutput(ReadFile(work + "/bucket/" + j + ".pairs"));
    ASSERT_TRUE(o.ok());
    if (!o->large.empty() && path.empty()) {
      path = work + "/bucket/" + j + ".pairs";
      found = *o;
    }
  }
  ASSERT_FALSE(path.empty()) << "no large bucket";
  auto expect = [&](const BucketOutput& out, const std::string& what) {
    WritePairs(path, out);
    ExpectRefused(Verify(dir, work, "0", {"--mode", "clusters"}), path, what + ": " + kEmptyFolder);
  };
  BucketOutput out = found;
  out.large[0].push_back(GlobalId(7, 0));  // a shard out of range
  expect(out, "a document id out of range");
  out = found;
  out.large[0].resize(kLargeBucket);
  expect(out, "a large bucket that is not large");
  out = found;
  std::swap(out.large[0][0], out.large[0][1]);
  expect(out, "a large bucket out of order");
}

// ---------------------------------------------------------------- verify

// The report reads the verify tasks' pairs: one missing, cut short, with a
// bit flipped or with values out of range is named, with exit 2; put back,
// the report is the one before.
TEST(StageDamagedTest, VerifyOutputMissingOrDamagedIsNamed) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string work = dir / "work";
  SignAndBucket(dir, work, kBySignature);
  const RunResult before = RunNeardup({"stage", "report", "--verify", "signature", work}, dir.path());
  ASSERT_EQ(before.exit_code, 0) << before.err;
  std::string path;
  VerifyOutput found;
  for (const char* k : {"0", "1"}) {
    Result<VerifyOutput> o = DecodeVerifyOutput(ReadFile(work + "/verify/" + k + ".pairs"));
    ASSERT_TRUE(o.ok());
    if (!o->pairs.empty() && path.empty()) {
      path = work + "/verify/" + k + ".pairs";
      found = *o;
    }
  }
  ASSERT_FALSE(path.empty()) << "no verified pair";
  const std::string good = ReadFile(path);

  std::filesystem::remove(path);
  RunResult r = RunNeardup({"stage", "report", "--verify", "signature", work}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;

  WriteFile(path, good.substr(0, good.size() - 9));
  ExpectRefused(RunNeardup({"stage", "report", "--verify", "signature", work}, dir.path()), path,
                "verified pairs: damaged (checksum, size or fields): " + std::string(kEmptyFolder));
  std::string bad = good;
  bad[8 + 4 + 8 + 8 + 8 + 16] ^= 0x01;  // the first pair's estimate
  WriteFile(path, bad);
  ExpectRefused(RunNeardup({"stage", "report", "--verify", "signature", work}, dir.path()), path,
                "verified pairs: damaged (checksum, size or fields)");

  auto expect = [&](const VerifyOutput& out, const std::string& what) {
    WriteFile(path, EncodeVerifyOutput(out));
    ExpectRefused(RunNeardup({"stage", "report", "--verify", "signature", work}, dir.path()), path,
                  what + ": " + kEmptyFolder);
  };
  VerifyOutput out = found;
  out.pairs[0].b = GlobalId(9, 0);
  expect(out, "a document id out of range");
  out = found;
  out.pairs[0].estimate = 1.5;
  expect(out, "an estimate out of range");
  out = found;
  out.pairs[0].estimate = 0.01;  // below the threshold, the floor of --verify signature
  expect(out, "an estimate out of range");
  out = found;
  out.pairs.push_back(out.pairs.back());
  expect(out, "its pairs are out of order");
  out = found;
  std::swap(out.pairs[0].a, out.pairs[0].b);
  expect(out, "a pair out of order");
  out = found;
  out.visited = 0;
  expect(out, "fewer candidates visited than verified");

  WriteFile(path, good);
  r = RunNeardup({"stage", "report", "--verify", "signature", work}, dir.path());
  EXPECT_EQ(r.exit_code, before.exit_code);
  EXPECT_EQ(r.out, before.out);
  std::filesystem::remove(work + "/verify/1.done");
  r = RunNeardup({"stage", "report", "--verify", "signature", work}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("1 of 2 verify tasks missing: 1"), std::string::npos) << r.err;
}

// A pair given to the other verify task (its first document's id hashes to
// the other) is refused: each pair has one task.
TEST(StageDamagedTest, VerifiedPairOfAnotherTaskIsRefused) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string work = dir / "work";
  SignAndBucket(dir, work, kBySignature);
  const std::string path = work + "/verify/0.pairs";
  Result<VerifyOutput> o = DecodeVerifyOutput(ReadFile(path));
  ASSERT_TRUE(o.ok());
  uint64_t other = 0;  // a document of shard 0 that task 1 takes
  while (VerifyTaskOf(other, 2) != 1) ++other;
  VerifyOutput moved = *o;
  moved.pairs = {{.a = other, .b = GlobalId(1, 0), .estimate = 0.9}};
  WriteFile(path, EncodeVerifyOutput(moved));
  ExpectRefused(RunNeardup({"stage", "report", "--verify", "signature", work}, dir.path()), path,
                "a pair of another task");
}

// ---------------------------------------------------------------- meta

// The report refuses shards whose files do not follow each other (a meta
// from another walk, its checksum right): no test had this check.
TEST(StageDamagedTest, ShardsFromDifferentWalksAreRefused) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string work = dir / "work";
  SignAndBucket(dir, work);
  const std::string path = work + "/sign/1.meta";
  const std::string good = ReadFile(path);
  ASSERT_EQ(RunNeardup({"stage", "report", work}, dir.path()).exit_code, 0);
  Result<ShardMeta> meta = DecodeShardMeta(good);
  ASSERT_TRUE(meta.ok());
  ShardMeta moved = *meta;
  moved.first_file += 1;
  WriteFile(path, EncodeShardMeta(moved));
  ExpectRefused(RunNeardup({"stage", "report", work}, dir.path()), path,
                "its files do not follow the last shard's: " + std::string(kEmptyFolder));

  moved = *meta;  // a problem of a file the shard does not have
  moved.problems.push_back({.file = 1000, .line = 0, .status = Status::IoError("x"), .kind = {}});
  WriteFile(path, EncodeShardMeta(moved));
  ExpectRefused(RunNeardup({"stage", "report", work}, dir.path()), path, "a problem of a file out of range");

  std::string bad = good;  // a problem kind out of range, the checksum right
  moved = *meta;
  moved.problems.push_back({.file = 0, .line = 0, .status = Status::IoError("x"), .kind = {}});
  bad = EncodeShardMeta(moved);
  // u8 kind, u8 code, u64 length 1, "x".
  const size_t kind_at = bad.find(std::string("\x01\0\0\0\0\0\0\0x", 9)) - 2;
  ASSERT_EQ(bad[kind_at], 0);
  bad[kind_at] = 9;
  RechecksumTail(bad);
  WriteFile(path, bad);
  ExpectRefused(RunNeardup({"stage", "report", work}, dir.path()), path, "shard meta: damaged");
}

// The tasks compare the shards' listings from their metas' heads alone
// (format/shard_meta.h): a meta damaged in its listing is still named as
// damaged by every task, and one damaged after its head by the report,
// which reads it whole.
TEST(StageDamagedTest, AMetaDamagedInItsHeadOrAfterIsNamed) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string work = dir / "work";
  SignAndBucket(dir, work);
  const std::string path = work + "/sign/1.meta";
  const std::string good = ReadFile(path);
  ASSERT_GT(good.size(), kMetaHeadSize + 8);
  std::string bad = good;
  bad[kMetaHeadSize - 1] = static_cast<char>(bad[kMetaHeadSize - 1] ^ 0x01);  // the listing
  WriteFile(path, bad);
  ExpectRefused(Bucket(dir, work, "0"), path, "shard meta: damaged");
  ExpectRefused(Verify(dir, work, "0"), path, "shard meta: damaged");
  ExpectRefused(RunNeardup({"stage", "report", work}, dir.path()), path, "shard meta: damaged");

  bad = good;
  bad[kMetaHeadSize + 4] = static_cast<char>(bad[kMetaHeadSize + 4] ^ 0x01);  // a count after the head
  WriteFile(path, bad);
  ASSERT_EQ(Bucket(dir, work, "0").exit_code, 0);
  ASSERT_EQ(RunNeardup({"stage", "bucket", "--task", "1", "--tasks", "2", work}, dir.path()).exit_code, 0);
  ASSERT_EQ(Verify(dir, work, "0").exit_code, 0);
  ASSERT_EQ(RunNeardup({"stage", "verify", "--task", "1", "--tasks", "2", work}, dir.path()).exit_code, 0);
  ExpectRefused(RunNeardup({"stage", "report", work}, dir.path()), path, "shard meta: damaged");

  WriteFile(path, good);
  EXPECT_EQ(RunNeardup({"stage", "report", work}, dir.path()).exit_code, 0);
}

// ---------------------------------------------------------------- markers

TEST(StageDamagedTest, DamagedMarkersAreRefused) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string work = dir / "work";
  SignAndBucket(dir, work);
  const std::string path = work + "/sign/1.done";
  const std::string good = ReadFile(path);
  ASSERT_TRUE(good.starts_with("neardup sign 1 2 ")) << good;
  std::string bad = good;
  bad[15] = '5';  // "neardup sign 1 5 ...": the checksum no longer matches
  WriteFile(path, bad);
  ExpectRefused(RunNeardup({"stage", "report", work}, dir.path()), path,
                "not a completion marker: " + std::string(kEmptyFolder));
  std::filesystem::remove_all(work + "/bucket");
  ExpectRefused(RunNeardup({"stage", "bucket", "--task", "0", "--tasks", "3", work}, dir.path()), path,
                "not a completion marker");

  // A count of tasks past 2^24, its checksum right.
  std::string body = "neardup sign 1 18446744073709551615 " + good.substr(17, 16);
  char check[18];
  std::snprintf(check, sizeof check, " %016llx",
                static_cast<unsigned long long>(HashBytes(body.data(), body.size(), 0)));
  WriteFile(path, body + check + "\n");
  ExpectRefused(RunNeardup({"stage", "report", work}, dir.path()), path, "not a completion marker");

  WriteFile(work + "/sign/0.done", good);  // task 1's marker in task 0's file
  WriteFile(path, good);
  ExpectRefused(RunNeardup({"stage", "report", work}, dir.path()), work + "/sign/0.done", "another task's marker");
}

// Finding: a sign run of 2^24 tasks made `stage bucket` list every missing
// task in one error line of 157 MB.
TEST(StageDamagedTest, MissingTasksOfAHugeRunAreListedInOneShortLine) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string work = dir / "work";
  ASSERT_EQ(
      RunNeardup({"stage", "sign", "--task", "0", "--tasks", "16777216", work, dir / "docs"}, dir.path()).exit_code, 0);
  RunResult r = RunNeardup({"stage", "bucket", "--task", "0", "--tasks", "16777216", work}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "neardup: " + work +
                       "/sign: 16777215 of 16777216 sign tasks missing: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ... and "
                       "16777205 more\n");
  std::filesystem::remove_all(work);
  SignAndBucket(dir, work);
  std::filesystem::remove_all(work + "/bucket");
  ASSERT_EQ(RunNeardup({"stage", "bucket", "--task", "16777215", "--tasks", "16777216", work}, dir.path()).exit_code,
            0);
  r = RunNeardup({"stage", "report", work}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_LE(r.err.size(), 200u) << r.err.size();
  EXPECT_NE(r.err.find("16777215 of 16777216 bucket tasks missing: 0, 1, 2"), std::string::npos) << r.err;
}

// ---------------------------------------------------------------- options

// Findings: the stages silently ignored --index and --new. Every option of
// scan that no stage reads is refused by every stage, by name.
TEST(StageDamagedTest, OptionsNoStageReadsAreRefused) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string work = dir / "work";
  const Args refused[] = {
      {"--index", dir / "x.db"}, {"--new"}, {"--lock-wait", "1"}, {"--progress"}, {"--no-progress"}};
  const Args commands[] = {{"sign", "--task", "0", "--tasks", "1"},
                           {"bucket", "--task", "0", "--tasks", "1"},
                           {"verify", "--task", "0", "--tasks", "1"},
                           {"report"}};
  for (const Args& options : refused) {
    const std::string& name = options[0];
    for (const Args& command : commands) {
      Args args = command;
      args.insert(args.end(), options.begin(), options.end());
      args.push_back(work);
      if (command[0] == "sign") args.push_back(dir / "docs");
      const RunResult r = RunNeardup(With({"stage"}, args), dir.path());
      EXPECT_EQ(r.exit_code, 2) << command[0] << " " << name;
      EXPECT_EQ(r.err, "neardup: " + name + " applies to scan only: the stage commands do not read it\n");
    }
  }
  EXPECT_FALSE(std::filesystem::exists(work));
  EXPECT_FALSE(std::filesystem::exists(dir / "x.db"));
  const RunResult help = RunNeardup({"stage", "sign", "--help"}, dir.path());
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out.find("--index"), std::string::npos);
  EXPECT_NE(help.out.find("--mode"), std::string::npos);
}

// Any error line is capped: a PATH of thousands of bytes keeps its start
// and its end.
TEST(StageDamagedTest, LongErrorLinesAreCapped) {
  TempDir dir;
  const std::string missing = dir / (std::string(3000, 'd') + "/end");
  const RunResult r = RunNeardup({"scan", missing}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  std::string first = r.err.substr(0, r.err.find('\n'));
  EXPECT_EQ(first.size(), 400u) << first;
  EXPECT_TRUE(first.starts_with("neardup: " + dir.path())) << first;
  EXPECT_NE(first.find(" ... "), std::string::npos) << first;
}

}  // namespace
}  // namespace neardup
