// The stage files: shard meta and bucket output encodings, and the work
// folder's markers (work_folder.cc, stage_sign.cc, stage_bucket.cc).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "base/hash.h"
#include "distributed/stage_bucket.h"
#include "distributed/stage_sign.h"
#include "distributed/work_folder.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::TempDir;

ShardMeta SampleMeta() {
  ShardMeta m;
  m.task = {.task = 2, .tasks = 5};
  m.first_file = 17;
  m.first_begin = 123;
  m.last_end = 456;
  m.counts = {.bytes = 1000, .invalid_utf8 = 3, .transcoded = 1, .duplicate_ids = 0};
  m.problems.push_back(
      {.file = 4, .line = 9, .status = Status::Corrupt("a.jsonl:9: bad"), .kind = InputProblem::Kind::kMalformed});
  m.problems.push_back(
      {.file = 1, .line = 0, .status = Status::IoError("b.txt: denied"), .kind = InputProblem::Kind::kUnreadable});
  m.walk.hidden = 2;
  m.walk.special = 1;
  m.walk_errors.push_back(Status::NotFound("missing: No such file"));
  m.kept_paths = {"a/x.jsonl", "y.jsonl"};
  m.seen = {{.size = 900, .dev = 1, .ino = 2, .mtime_ns = -3, .raw_hash = 4},
            {.size = 100, .dev = 5, .ino = 6, .mtime_ns = 7, .raw_hash = 0}};
  m.line_hashes = {7, 0, 0xFFFFFFFFu};
  m.inputs = {"corpus/", "ref.jsonl"};
  return m;
}

TEST(ShardMetaTest, RoundTripsEveryField) {
  const ShardMeta m = SampleMeta();
  const std::string bytes = EncodeShardMeta(m);
  Result<ShardMeta> back = DecodeShardMeta(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->task.task, 2u);
  EXPECT_EQ(back->task.tasks, 5u);
  EXPECT_EQ(back->first_file, 17u);
  EXPECT_EQ(back->first_begin, 123u);
  EXPECT_EQ(back->last_end, 456u);
  EXPECT_EQ(back->counts.invalid_utf8, 3u);
  ASSERT_EQ(back->problems.size(), 2u);
  EXPECT_EQ(back->problems[0].line, 9u);
  EXPECT_EQ(back->problems[0].kind, InputProblem::Kind::kMalformed);
  EXPECT_EQ(back->problems[0].status.code(), Status::Code::kCorrupt);
  EXPECT_EQ(back->problems[1].status.message(), "b.txt: denied");
  EXPECT_EQ(back->walk.hidden, 2u);
  EXPECT_EQ(back->walk.special, 1u);
  ASSERT_EQ(back->walk_errors.size(), 1u);
  EXPECT_EQ(back->walk_errors[0].code(), Status::Code::kNotFound);
  EXPECT_EQ(back->kept_paths, m.kept_paths);
  EXPECT_EQ(back->line_hashes, m.line_hashes);
  EXPECT_EQ(back->inputs, m.inputs);
  ASSERT_EQ(back->seen.size(), 2u);
  EXPECT_EQ(back->seen[0].size, 900u);
  EXPECT_EQ(back->seen[0].mtime_ns, -3);
  EXPECT_EQ(back->seen[0].raw_hash, 4u);
  EXPECT_EQ(back->seen[1].ino, 6u);
  EXPECT_EQ(EncodeShardMeta(*back), bytes);
}

TEST(ShardMetaTest, AnyFlippedBitOrTruncationIsCorrupt) {
  const std::string bytes = EncodeShardMeta(SampleMeta());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    EXPECT_FALSE(DecodeShardMeta(bad).ok()) << i;
  }
  for (size_t n = 0; n < bytes.size(); ++n) EXPECT_FALSE(DecodeShardMeta(bytes.substr(0, n)).ok()) << n;
}

TEST(BucketOutputTest, RoundTripsPairsAndLargeBuckets) {
  BucketOutput o;
  o.large_bucket = 256;
  o.pairs = {{.a = 1, .b = 2, .band = 0}, {.a = GlobalId(1, 5), .b = GlobalId(3, 0), .band = 7}};
  o.large = {{1, 2, 3}, {GlobalId(2, 1), GlobalId(2, 2)}};
  const std::string bytes = EncodeBucketOutput(o);
  Result<BucketOutput> back = DecodeBucketOutput(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->large_bucket, 256u);
  EXPECT_EQ(back->pairs, o.pairs);
  EXPECT_EQ(back->large, o.large);
  std::string bad = bytes;
  bad[20] = static_cast<char>(bad[20] ^ 1);
  EXPECT_EQ(DecodeBucketOutput(bad).status().code(), Status::Code::kCorrupt);
}

TEST(BucketOutputTest, AnyFlippedBitOrTruncationIsCorrupt) {
  BucketOutput o;
  o.large_bucket = 256;
  o.pairs = {{.a = 1, .b = 2, .band = 0}, {.a = GlobalId(1, 5), .b = GlobalId(3, 0), .band = 7}};
  o.large = {{1, 2, 3}};
  const std::string bytes = EncodeBucketOutput(o);
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x40);
    EXPECT_EQ(DecodeBucketOutput(bad).status().code(), Status::Code::kCorrupt) << i;
  }
  for (size_t n = 0; n < bytes.size(); ++n) EXPECT_FALSE(DecodeBucketOutput(bytes.substr(0, n)).ok()) << n;
}

// Each value of a bucket task's output against the shards, the task's bands
// and the mode.
TEST(BucketOutputTest, EveryValueIsCheckedAgainstTheRun) {
  const PairsLimits limits{.shard_docs = {3, 5}, .bands = {.first = 4, .last = 8}, .large_bucket = 2};
  const BucketPair good{.a = GlobalId(0, 2), .b = GlobalId(1, 4), .band = 4};
  BucketOutput o;
  o.large_bucket = 2;
  o.pairs = {good};
  o.large = {{GlobalId(0, 0), GlobalId(0, 1), GlobalId(1, 0)}};
  ASSERT_TRUE(CheckBucketOutput(o, limits).ok());
  auto message = [&](const BucketOutput& bad) { return CheckBucketOutput(bad, limits).message(); };
  const std::pair<BucketPair, std::string> pairs[] = {
      {{.a = GlobalId(0, 3), .b = GlobalId(1, 0), .band = 4}, "a document id out of range"},
      {{.a = GlobalId(0, 0), .b = GlobalId(1, 5), .band = 4}, "a document id out of range"},
      {{.a = GlobalId(0, 0), .b = GlobalId(2, 0), .band = 4}, "a document id out of range"},
      {{.a = GlobalId(0, 0), .b = GlobalId(0, 0), .band = 4}, "a pair out of order"},
      {{.a = GlobalId(1, 0), .b = GlobalId(0, 0), .band = 4}, "a pair out of order"},
      {{.a = GlobalId(0, 0), .b = GlobalId(0, 1), .band = 3}, "a band out of range"},
      {{.a = GlobalId(0, 0), .b = GlobalId(0, 1), .band = 8}, "a band out of range"},
      {{.a = GlobalId(0, 0), .b = GlobalId(0, 1), .band = ~uint64_t{0}}, "a band out of range"},
  };
  for (const auto& [pair, what] : pairs) {
    BucketOutput bad = o;
    bad.pairs = {pair};
    EXPECT_EQ(message(bad), what) << pair.a << " " << pair.b << " " << pair.band;
  }
  BucketOutput bad = o;
  bad.pairs = {good, good};
  EXPECT_EQ(message(bad), "its pairs are out of order");
  bad = o;
  bad.large[0].push_back(GlobalId(5, 0));
  EXPECT_EQ(message(bad), "a document id out of range");
  bad = o;
  bad.large[0].pop_back();
  EXPECT_EQ(message(bad), "a large bucket that is not large");
  bad = o;
  std::swap(bad.large[0][0], bad.large[0][1]);
  EXPECT_EQ(message(bad), "a large bucket out of order");
  bad = o;
  bad.large_bucket = 0;
  EXPECT_EQ(CheckBucketOutput(bad, limits).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(CheckBucketOutput(bad, {.shard_docs = {3, 5}, .bands = {4, 8}, .large_bucket = 0}).message(),
            "a large bucket in pairs mode");
}

// Values behind a matching checksum: a problem's kind and status code.
TEST(ShardMetaTest, KindsAndCodesOutOfRangeAreCorrupt) {
  ShardMeta m = SampleMeta();
  m.problems = {{.file = 0, .line = 0, .status = Status::IoError("zz"), .kind = InputProblem::Kind::kCounted}};
  const std::string bytes = EncodeShardMeta(m);
  ASSERT_TRUE(DecodeShardMeta(bytes).ok());
  const size_t at = bytes.find(std::string("\x02\0\0\0\0\0\0\0zz", 10)) - 2;  // u8 kind, u8 code, length, text
  ASSERT_EQ(bytes[at], static_cast<char>(InputProblem::Kind::kCounted));
  for (const auto& [offset, value] : {std::pair<size_t, char>{0, 4}, {0, -1}, {1, 0}, {1, 8}}) {
    std::string bad = bytes;
    bad[at + offset] = value;
    const uint64_t sum = HashBytes(bad.data(), bad.size() - 8, 0);
    std::memcpy(bad.data() + bad.size() - 8, &sum, 8);
    EXPECT_EQ(DecodeShardMeta(bad).status().code(), Status::Code::kCorrupt) << offset << " " << int{value};
  }
}

TEST(ShardMetaTest, CheckedAgainstItsShard) {
  ShardMeta m = SampleMeta();      // task 2 of 5, problems of files 4 and 1, 3 documents
  m.first_begin = m.last_end = 0;  // whole files (of no bytes)
  m.roots.assign(5, 0);
  m.kept_paths.assign(5, "x");
  m.seen.assign(5, {});
  EXPECT_TRUE(CheckShardMeta(m, 2, 5, EndsOf(std::vector<InputFile>(5)), 3).ok());
  EXPECT_EQ(CheckShardMeta(m, 1, 5, EndsOf(std::vector<InputFile>(5)), 3).message(), "another task's meta");
  EXPECT_EQ(CheckShardMeta(m, 2, 4, EndsOf(std::vector<InputFile>(5)), 3).message(), "another task's meta");
  EXPECT_EQ(CheckShardMeta(m, 2, 5, EndsOf(std::vector<InputFile>(6)), 3).message(),
            "its roots do not match the shard's files");
  EXPECT_EQ(CheckShardMeta(m, 2, 5, EndsOf(std::vector<InputFile>(5)), 4).message(),
            "its line hashes do not match the shard's documents");
  m.kept_paths.assign(4, "x");
  m.seen.assign(4, {});
  EXPECT_EQ(CheckShardMeta(m, 2, 5, EndsOf(std::vector<InputFile>(5)), 3).message(),
            "its roots do not match the shard's files");
  m.roots.assign(4, 0);
  EXPECT_EQ(CheckShardMeta(m, 2, 5, EndsOf(std::vector<InputFile>(4)), 3).message(),
            "a problem of a file out of range");
}

TEST(ShardMetaTest, ByteRangeCheckedAgainstItsFiles) {
  ShardMeta m = SampleMeta();
  m.problems.clear();
  m.roots.assign(2, 0);
  m.kept_paths.assign(2, "x");
  m.seen.assign(2, {});
  std::vector<InputFile> files(2);
  files[0].size = 100;
  files[1].size = 50;
  m.first_begin = 40;  // continues an earlier shard's range of files[0]
  m.last_end = 20;     // a later shard continues files[1]
  EXPECT_TRUE(CheckShardMeta(m, 2, 5, EndsOf(files), 3).ok());
  EXPECT_TRUE(ContinuesFirst(m, EndsOf(files)));
  EXPECT_TRUE(ContinuedLast(m, EndsOf(files)));
  m.last_end = 50;
  EXPECT_FALSE(ContinuedLast(m, EndsOf(files)));
  for (const auto& [begin, end] : {std::pair<uint64_t, uint64_t>{100, 50}, {0, 51}}) {
    m.first_begin = begin;
    m.last_end = end;
    EXPECT_EQ(CheckShardMeta(m, 2, 5, EndsOf(files), 3).message(), "its byte range does not fit its files") << begin;
  }
  // One file: a range of no bytes is damage.
  m.roots.assign(1, 0);
  m.kept_paths.assign(1, "x");
  m.seen.assign(1, {});
  files.pop_back();
  m.first_begin = 30;
  m.last_end = 30;
  EXPECT_EQ(CheckShardMeta(m, 2, 5, EndsOf(files), 3).message(), "its byte range does not fit its files");
  m.last_end = 31;
  EXPECT_TRUE(CheckShardMeta(m, 2, 5, EndsOf(files), 3).ok());
}

TEST(BandsFileTest, SizeIsNothingPast64Bits) {
  // 12 bytes an entry, 16 a document: 16 + 12*bands bytes a document;
  // 16 bytes a band a run (its count and checksum).
  EXPECT_EQ(BandsFileSize(16, 10, 12, 3),
            std::optional<uint64_t>(kBandsHeaderSize + 16 * 10 * 12 + 12 * 16 + 3 * 16 * 16 + 16));
  EXPECT_EQ(BandsFileSize(0, 10, 10, 1), std::nullopt);
  EXPECT_EQ(BandsFileSize(16, 10, 10, 0), std::nullopt);
  EXPECT_EQ(BandsFileSize(16, uint64_t{1} << 60, 1, 1), std::nullopt);
  EXPECT_EQ(BandsFileSize(uint64_t{1} << 40, 1, 1, 1), std::nullopt);
  EXPECT_EQ(BandsFileSize(16, 1, uint64_t{1} << 60, 1), std::nullopt);
  EXPECT_EQ(BandsFileSize(16, 1, 1, uint64_t{1} << 40), std::nullopt);
}

using BandRunEntries = std::vector<std::pair<uint64_t, uint64_t>>;  // (hash, local id)

// A band file of one band in `runs` runs of entries over `contents` (per
// document, the low half of its content hash), checksums right; the runs'
// counts in the trailer are `counts` when given.
std::string BandFileOfRuns(const std::vector<BandRunEntries>& runs, const std::vector<uint64_t>& contents,
                           const std::vector<uint64_t>& counts_said = {}) {
  uint64_t entries = 0;
  for (const BandRunEntries& r : runs) entries += r.size();
  std::string header("NDUPBAND", 8);
  const uint32_t fields[] = {kBandsVersion, 1, 4, static_cast<uint32_t>(runs.size())};
  header.append(reinterpret_cast<const char*>(fields), sizeof fields);
  const uint64_t numbers[] = {7, entries, contents.size()};  // fingerprint, K, D
  header.append(reinterpret_cast<const char*>(numbers), sizeof numbers);
  std::string body;
  std::vector<uint64_t> counts, sums;
  for (const BandRunEntries& r : runs) {
    std::string run;
    for (const auto& [hash, id] : r) {
      run.append(reinterpret_cast<const char*>(&hash), 8).append(reinterpret_cast<const char*>(&id), kBandIdBytes);
    }
    counts.push_back(r.size());
    sums.push_back(HashBytes(run.data(), run.size(), 0));
    body += run;
  }
  std::string copies;
  for (const uint64_t low : contents) {
    const uint64_t content[] = {low, 0};
    copies.append(reinterpret_cast<const char*>(content), sizeof content);
  }
  std::vector<uint64_t> trailer = counts_said.empty() ? counts : counts_said;
  trailer.insert(trailer.end(), sums.begin(), sums.end());
  trailer.push_back(HashBytes(copies.data(), copies.size(), 0));
  const std::string fields_bytes(reinterpret_cast<const char*>(trailer.data()), trailer.size() * 8);
  const uint64_t index = BandsIndexChecksum(header, fields_bytes);
  return header + body + copies + fields_bytes + std::string(reinterpret_cast<const char*>(&index), 8);
}

// A band file of one band of one run of `entries`.
std::string BandFile(const BandRunEntries& entries, const std::vector<uint64_t>& contents) {
  return BandFileOfRuns({entries}, contents);
}

TEST(BucketBandsTest, PairsOfABucketAndEntriesPastTheShardsDocuments) {
  TempDir dir;
  const std::string path = dir / "0.bands";
  const Banding banding{.bands = 1, .rows = 4};
  testing::WriteFile(path, BandFile({{5, 0}, {5, 1}, {9, 2}}, {10, 11, 12}));
  Result<BucketOutput> out = BucketBands({{.path = path, .shard = 0, .docs = 3}}, banding, 7, {0, 1}, 0);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->pairs, (std::vector<BucketPair>{{.a = 0, .b = 1, .band = 0}}));
  EXPECT_EQ(BucketBands({{.path = path, .shard = 0, .docs = 3}}, banding, 8, {0, 1}, 0).status().code(),
            Status::Code::kInvalidArgument);  // another fingerprint
  // A file of another document count than its shard's table.
  EXPECT_EQ(BucketBands({{.path = path, .shard = 0, .docs = 4}}, banding, 7, {0, 1}, 0).status().message(),
            path + ": its document count is not its shard table's: run again in an empty work folder");
  // One id twice, under two hashes: more entries than documents.
  testing::WriteFile(path, BandFile({{5, 0}, {6, 0}}, {10}));
  out = BucketBands({{.path = path, .shard = 0, .docs = 1}}, banding, 7, {0, 1}, 0);
  EXPECT_EQ(out.status().message(),
            path + ": more entries a band than its shard has documents: run again in an empty work folder");
}

// A band in several runs (as a sign task spills them) is merged: a bucket
// whose members are in different runs of one shard is one bucket; runs whose
// counts do not add up to the band's are refused.
TEST(BucketBandsTest, RunsOfOneShardAreMergedIntoOneBand) {
  TempDir dir;
  const std::string path = dir / "0.bands";
  const Banding banding{.bands = 1, .rows = 4};
  testing::WriteFile(path, BandFileOfRuns({{{5, 0}, {9, 2}}, {{5, 1}, {7, 3}, {9, 4}}, {}}, {10, 11, 12, 13, 14}));
  Result<BucketOutput> out = BucketBands({{.path = path, .shard = 0, .docs = 5}}, banding, 7, {0, 1}, 0);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->pairs, (std::vector<BucketPair>{{.a = 0, .b = 1, .band = 0}, {.a = 2, .b = 4, .band = 0}}));
  // 5 entries, the runs' counts say 2 and 4, or 2 and 2.
  for (const std::vector<uint64_t>& said : {std::vector<uint64_t>{2, 4}, std::vector<uint64_t>{2, 2}}) {
    testing::WriteFile(path, BandFileOfRuns({{{5, 0}, {9, 2}}, {{5, 1}, {7, 3}, {9, 4}}}, {10, 11, 12, 13, 14}, said));
    out = BucketBands({{.path = path, .shard = 0, .docs = 5}}, banding, 7, {0, 1}, 0);
    EXPECT_EQ(out.status().message(),
              path + ": its runs do not add up to its bands: run again in an empty work folder");
  }
}

// The copies section decides a bucket's representatives, across shards:
// the smallest id of each content hash.
TEST(BucketBandsTest, CopiesAreTheSameContentHashInTheCopiesSection) {
  TempDir dir;
  const std::string first = dir / "0.bands", second = dir / "1.bands";
  const Banding banding{.bands = 1, .rows = 4};
  // Documents 0 and 2 of shard 0 and document 1 of shard 1 are copies (content 10).
  testing::WriteFile(first, BandFile({{5, 0}, {5, 1}, {5, 2}}, {10, 11, 10}));
  testing::WriteFile(second, BandFile({{5, 0}, {5, 1}}, {12, 10}));
  Result<BucketOutput> out = BucketBands(
      {{.path = first, .shard = 0, .docs = 3}, {.path = second, .shard = 1, .docs = 2}}, banding, 7, {0, 1}, 0);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const uint64_t b0 = uint64_t{1} << 40;  // shard 1's document 0
  EXPECT_EQ(out->pairs, (std::vector<BucketPair>{
                            {.a = 0, .b = 1, .band = 0}, {.a = 0, .b = b0, .band = 0}, {.a = 1, .b = b0, .band = 0}}));
}

TEST(MarkerTest, OnlyTheExactTextOfATaskIsAMarker) {
  const std::string text = WorkFolder::MarkerText(StageKind::kBucket, {.task = 3, .tasks = 7}, 0xabcdef);
  Result<Marker> m = ParseMarker(text, StageKind::kBucket);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->task.task, 3u);
  EXPECT_EQ(m->task.tasks, 7u);
  EXPECT_EQ(m->fingerprint, 0xabcdefu);
  EXPECT_FALSE(ParseMarker(text, StageKind::kSign).ok());
  for (size_t i = 0; i < text.size(); ++i) {
    std::string bad = text;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    EXPECT_FALSE(ParseMarker(bad, StageKind::kBucket).ok()) << i;
  }
  for (size_t n = 0; n < text.size(); ++n) EXPECT_FALSE(ParseMarker(text.substr(0, n), StageKind::kBucket).ok());
  EXPECT_FALSE(ParseMarker(text + "x", StageKind::kBucket).ok());
  // Well-formed texts of impossible tasks.
  EXPECT_TRUE(
      ParseMarker(WorkFolder::MarkerText(StageKind::kSign, {.task = 0, .tasks = 1u << 24}, 1), StageKind::kSign).ok());
  for (const StageTask t : {StageTask{.task = 0, .tasks = (1u << 24) + 1}, StageTask{.task = 2, .tasks = 2},
                            StageTask{.task = 0, .tasks = 0}}) {
    EXPECT_FALSE(ParseMarker(WorkFolder::MarkerText(StageKind::kSign, t, 1), StageKind::kSign).ok()) << t.tasks;
  }
}

TEST(WorkFolderTest, MissingTasksOfAHugeRunAreListedInShort) {
  TempDir dir;
  const WorkFolder folder(dir / "work");
  ASSERT_TRUE(folder.Create().ok());
  ASSERT_TRUE(WriteAtomically(folder.File(StageKind::kSign, 5, "done"),
                              WorkFolder::MarkerText(StageKind::kSign, {.task = 5, .tasks = 1u << 24}, 42))
                  .ok());
  Result<uint32_t> n = folder.FinishedTasks(StageKind::kSign, 42);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().message(), dir / "work/sign" +
                                      ": 16777215 of 16777216 sign tasks missing: 0, 1, 2, 3, 4, 6, 7, 8, 9, 10, "
                                      "... and 16777205 more");
  EXPECT_EQ(folder.Marked(StageKind::kSign), std::vector<uint32_t>{5});
}

TEST(GlobalIdTest, KeepsShardOrderAndSplitsBack) {
  EXPECT_LT(GlobalId(0, (uint64_t{1} << 40) - 1), GlobalId(1, 0));
  EXPECT_EQ(ShardOf(GlobalId(12345, 678)), 12345u);
  EXPECT_EQ(LocalOf(GlobalId(12345, 678)), 678u);
}

TEST(WorkFolderTest, FinishedTasksListsTheMissingByNumber) {
  TempDir dir;
  const WorkFolder folder(dir / "work");
  ASSERT_TRUE(folder.Create().ok());
  EXPECT_FALSE(folder.FinishedTasks(StageKind::kSign, 42).ok());
  for (uint32_t t : {0u, 3u}) {
    ASSERT_TRUE(WriteAtomically(folder.File(StageKind::kSign, t, "done"),
                                WorkFolder::MarkerText(StageKind::kSign, {.task = t, .tasks = 5}, 42))
                    .ok());
  }
  Result<uint32_t> n = folder.FinishedTasks(StageKind::kSign, 42);
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("3 of 5 sign tasks missing: 1, 2, 4"), std::string::npos) << n.status().message();
  for (uint32_t t : {1u, 2u, 4u}) {
    ASSERT_TRUE(WriteAtomically(folder.File(StageKind::kSign, t, "done"),
                                WorkFolder::MarkerText(StageKind::kSign, {.task = t, .tasks = 5}, 42))
                    .ok());
  }
  n = folder.FinishedTasks(StageKind::kSign, 42);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(*n, 5u);
  EXPECT_FALSE(folder.FinishedTasks(StageKind::kSign, 43).ok());  // other parameters
}

TEST(WorkFolderTest, DoneIsTrueOnlyForThisRunsMarker) {
  TempDir dir;
  const WorkFolder folder(dir / "work");
  ASSERT_TRUE(folder.Create().ok());
  const StageTask t{.task = 1, .tasks = 2};
  Result<bool> done = folder.Done(StageKind::kBucket, t, 7);
  ASSERT_TRUE(done.ok());
  EXPECT_FALSE(*done);
  ASSERT_TRUE(
      WriteAtomically(folder.File(StageKind::kBucket, 1, "done"), WorkFolder::MarkerText(StageKind::kBucket, t, 7))
          .ok());
  done = folder.Done(StageKind::kBucket, t, 7);
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(*done);
  EXPECT_FALSE(folder.Done(StageKind::kBucket, {.task = 1, .tasks = 3}, 7).ok());
  EXPECT_FALSE(folder.Done(StageKind::kBucket, t, 8).ok());
}

TEST(WorkFolderTest, RemoveTemporariesLeavesOtherTasksAlone) {
  TempDir dir;
  const WorkFolder folder(dir / "work");
  ASSERT_TRUE(folder.Create().ok());
  testing::WriteFile(folder.Dir(StageKind::kSign) + "/.1.table.tmp-99", "x");
  testing::WriteFile(folder.Dir(StageKind::kSign) + "/.10.table.tmp-99", "x");
  folder.RemoveTemporaries(StageKind::kSign, 1);
  EXPECT_FALSE(std::filesystem::exists(folder.Dir(StageKind::kSign) + "/.1.table.tmp-99"));
  EXPECT_TRUE(std::filesystem::exists(folder.Dir(StageKind::kSign) + "/.10.table.tmp-99"));
}

}  // namespace
}  // namespace neardup
