// Sign() (sign/sign.h): files and JSONL documents to a SignatureTable, the
// unique-id rule, JSONL blocks.
#include "sign/sign.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "lsh/candidates.h"
#include "lsh/copy_groups.h"
#include "neardup/scan.h"
#include "report/build_report.h"
#include "report/cluster.h"
#include "sign/document.h"
#include "sign/minhash.h"
#include "sign/sign_internal.h"
#include "sign_fixture.h"
#include "test_util.h"
#include "text/jsonl.h"
#include "verify/verify_candidates.h"
#include "walk/walk.h"

namespace neardup {
namespace {

using testing::Edited;
using testing::Found;
using testing::Join;
using testing::RandomWords;
using testing::TempDir;
using testing::WriteFile;
using Fixture = testing::Fixture;

TEST(SignTest, TableFollowsTheWalkAndIsTheSameForEveryThreadCount) {
  Fixture f;
  const SignedCorpus one = f.Signed(1);
  ASSERT_EQ(one.table.size(), 5u);
  EXPECT_EQ(one.table.docs[f.Id(one, "e.txt")].kind, DocKind::kEmpty);
  EXPECT_EQ(one.table.docs[f.Id(one, "a.txt")].kind, DocKind::kOk);
  EXPECT_EQ(one.table.docs[f.Id(one, "a.txt")].content, one.table.docs[f.Id(one, "b.txt")].content);
  EXPECT_FALSE(one.table.docs[f.Id(one, "a.txt")].content == one.table.docs[f.Id(one, "c.txt")].content);
  const SignatureView a = one.table.signature(f.Id(one, "a.txt"));
  EXPECT_EQ(a.size(), 128u);
  EXPECT_TRUE(std::equal(a.begin(), a.end(), one.table.signature(f.Id(one, "b.txt")).begin()));
  for (int threads : {2, 5}) {
    const SignedCorpus many = f.Signed(threads);
    ASSERT_EQ(many.table.size(), one.table.size());
    for (DocId i = 0; i < one.table.size(); ++i) {
      EXPECT_EQ(many.table.docs[i].name, one.table.docs[i].name);
      EXPECT_EQ(many.table.docs[i].content, one.table.docs[i].content);
    }
    EXPECT_TRUE(std::equal(many.table.values().begin(), many.table.values().end(), one.table.values().begin()));
  }
  uint64_t bytes = 0;
  for (const DocRecord& r : one.table.docs) bytes += r.size;
  EXPECT_EQ(one.counts.bytes, bytes);
  EXPECT_GT(bytes, 0u);
}

TEST(SignTest, JsonlIdsThatRepeatAreRenamedFileLine) {
  TempDir dir;
  WriteFile(dir / "x.jsonl",
            "{\"id\":\"same\",\"text\":\"one two three four five six\"}\n"
            "{\"id\":\"other\",\"text\":\"seven eight nine ten eleven\"}\n"
            "not json\n"
            "{\"id\":\"same\",\"text\":\"one two three four five six seven\"}\n");
  Options o;
  o.paths = {dir.path()};
  o.input = InputFormat::kJsonl;
  Result<WalkedCorpus> walked = WalkCorpus(o);
  ASSERT_TRUE(walked.ok());
  const MinHasher minhasher(o.num_perm, o.seed);
  const Workers w{.threads = 2, .tick = {}, .cancel = nullptr};
  SignProgress counts;
  const SignedCorpus s = Sign({o, minhasher, FileSystem::Default(), w, false, counts}, std::move(walked->files));
  ASSERT_EQ(s.table.size(), 3u);
  EXPECT_EQ(s.table.docs[0].name, dir / "x.jsonl:1");
  EXPECT_EQ(s.table.docs[1].name, "other");
  EXPECT_EQ(s.table.docs[2].name, dir / "x.jsonl:4");
  EXPECT_EQ(s.table.docs[2].line, 4u);
  EXPECT_EQ(s.counts.duplicate_ids, 2u);
  int malformed = 0, counted = 0;
  for (const InputProblem& p : s.problems) {
    malformed += p.kind == InputProblem::Kind::kMalformed;
    counted += p.kind == InputProblem::Kind::kCounted;
  }
  EXPECT_EQ(malformed, 1);
  EXPECT_EQ(counted, 1);
}

TEST(SignTest, AFileThatCannotBeOpenedIsAProblemAndTheRestIsSigned) {
  Fixture f;
  Result<WalkedCorpus> walked = WalkCorpus(f.options);
  ASSERT_TRUE(walked.ok());
  std::filesystem::remove(f.dir / "d.txt");  // gone between walk and read
  const MinHasher minhasher(f.options.num_perm, f.options.seed);
  const Workers w{.threads = 2, .tick = {}, .cancel = nullptr};
  SignProgress counts;
  const SignedCorpus s =
      Sign({f.options, minhasher, FileSystem::Default(), w, false, counts}, std::move(walked->files));
  ASSERT_EQ(s.problems.size(), 1u);
  EXPECT_NE(s.problems[0].status.message().find("d.txt"), std::string::npos);
  EXPECT_EQ(s.problems[0].kind, InputProblem::Kind::kUnreadable);
  EXPECT_EQ(s.table.docs[s.problems[0].file].kind, DocKind::kFailed);
  EXPECT_EQ(s.table.docs[f.Id(s, "c.txt")].kind, DocKind::kOk);
}

// Documents that are not signed stay out of the table (Sign keeps them in
// compact lists) and still take part in the unique-id rule: an empty
// document repeating a signed one's id, and an id reading FILE:LINE of an
// empty document without id, are renamed as when every document is in the
// table (SignShare, then RenameDuplicateIds over it).
TEST(SignTest, UnsignedJsonlDocumentsKeepTheirPartInUniqueIds) {
  TempDir dir;
  const std::string x = dir / "x.jsonl";
  WriteFile(x,
            "{\"id\":\"same\",\"text\":\"one two three four five six\"}\n"
            "{\"text\":\"\"}\n"
            "{\"id\":\"" +
                x +
                ":2\",\"text\":\"seven eight nine ten eleven\"}\n"
                "{\"id\":\"same\",\"text\":\"\"}\n"
                "{\"text\":\"short\"}\n"
                "{\"id\":\"lone\",\"text\":\"\"}\n");
  Options o;
  o.paths = {dir.path()};
  o.input = InputFormat::kJsonl;
  o.min_words = 2;
  Result<WalkedCorpus> walked = WalkCorpus(o);
  ASSERT_TRUE(walked.ok());
  const MinHasher minhasher(o.num_perm, o.seed);
  const Workers w{.threads = 2, .tick = {}, .cancel = nullptr};
  SignProgress counts;
  const SignContext ctx{o, minhasher, FileSystem::Default(), w, false, counts};
  const SignedCorpus compact = Sign(ctx, walked->files);
  SignedCorpus full = SignShare(ctx, walked->files);
  RenameDuplicateIds(&full);
  ASSERT_EQ(compact.table.size(), 2u);
  EXPECT_EQ(compact.table.docs[0].name, x + ":1");
  EXPECT_EQ(compact.table.docs[1].name, x + ":3");
  ASSERT_EQ(full.table.size(), 6u);
  EXPECT_EQ(full.table.docs[2].name, x + ":3");
  std::vector<std::string> compact_problems, full_problems;
  for (const InputProblem& p : compact.problems) compact_problems.push_back(p.status.message());
  for (const InputProblem& p : full.problems) full_problems.push_back(p.status.message());
  EXPECT_EQ(compact_problems, full_problems);
  EXPECT_EQ(compact_problems.size(), 2u);
  EXPECT_EQ(compact.counts.duplicate_ids, 4u);
  EXPECT_EQ(full.counts.duplicate_ids, 4u);
  const Stats stats = CountRead(compact, {});
  EXPECT_EQ(stats.empty, 3u);
  EXPECT_EQ(stats.too_short, 1u);
  EXPECT_EQ(stats.documents, 2u);
}

// RenameDuplicateIds against the rule written out plainly (a stable sort
// of the documents by name, then each run of equal names, repeated until no
// name is taken twice): the same names, the same problems in the same
// order, the same count, on ids drawn from a small pool, ids that read
// FILE:LINE of another document, and documents named FILE:LINE already.
TEST(SignTest, DuplicateIdsAreRenamedAsThePlainRuleSays) {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 20; ++round) {
    SignedCorpus corpus;
    for (const char* path : {"a.jsonl", "b.jsonl"}) {
      InputFile f;
      f.path = path;
      corpus.table.files.push_back(f);
    }
    const size_t n = 50 + rng() % 3000;
    for (size_t k = 0; k < n; ++k) {
      DocRecord d;
      d.file = k < n / 3 ? 0 : 1;
      d.line = d.file == 0 ? k + 1 : k - n / 3 + 1;
      const uint64_t pick = rng() % 10;
      const std::string file = d.file == 0 ? "a.jsonl" : "b.jsonl";
      if (pick < 4) {
        d.name = "dup-" + std::to_string(rng() % (n / 8 + 1));
      } else if (pick < 5) {
        d.name = (rng() % 2 == 0 ? "a.jsonl:" : "b.jsonl:") + std::to_string(1 + rng() % n);
      } else if (pick < 6) {
        d.name = file + ":" + std::to_string(d.line);  // no id
      } else {
        d.name = "u-" + std::to_string(k);
      }
      corpus.table.docs.push_back(d);
    }
    // The plain rule.
    std::vector<std::string> want_names;
    for (const DocRecord& d : corpus.table.docs) want_names.push_back(d.name);
    std::vector<std::string> want_problems;
    uint64_t want_count = 0;
    std::vector<char> renamed(n, 0);
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<size_t> order(n);
      std::iota(order.begin(), order.end(), size_t{0});
      std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return want_names[x] < want_names[y]; });
      for (size_t lo = 0; lo < n;) {
        size_t hi = lo + 1;
        while (hi < n && want_names[order[hi]] == want_names[order[lo]]) ++hi;
        if (hi - lo > 1) {
          const std::string id = want_names[order[lo]];
          std::string where;
          for (size_t k = lo; k < hi; ++k) {
            const DocRecord& d = corpus.table.docs[order[k]];
            const std::string at = corpus.table.files[d.file].path + ":" + std::to_string(d.line);
            if (renamed[order[k]] == 0) where += (where.empty() ? "" : ", ") + at;
            if (want_names[order[k]] != at) {
              want_names[order[k]] = at;
              renamed[order[k]] = 1;
              changed = true;
            }
          }
          want_problems.push_back("id \"" + id + "\" is not unique (" + where +
                                  "); each of these documents is named FILE:LINE");
          want_count += hi - lo;
        }
        lo = hi;
      }
    }
    RenameDuplicateIds(&corpus);
    std::vector<std::string> names, problems;
    for (const DocRecord& d : corpus.table.docs) names.push_back(d.name);
    for (const InputProblem& p : corpus.problems) problems.push_back(p.status.message());
    EXPECT_EQ(names, want_names) << round;
    EXPECT_EQ(problems, want_problems) << round;
    EXPECT_EQ(corpus.counts.duplicate_ids, want_count) << round;
    EXPECT_FALSE(want_problems.empty()) << round;  // the pool makes repeats
    const std::set<std::string> distinct(names.begin(), names.end());
    EXPECT_EQ(distinct.size(), n) << round;
  }
}

// JSONL is cut into 1 MiB blocks read in parallel: lines across block
// boundaries, CRLF, over-long lines (dropped without being held) and a last
// line without a newline must give what LineSplitter gives line by line.
TEST(SignTest, JsonlBlocksSplitLinesAsLineSplitterDoes) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    TempDir dir;
    std::mt19937_64 rng(seed);
    std::string bytes;
    while (bytes.size() < (5u << 20)) {
      const uint64_t kind = rng() % 10;
      const size_t words = kind == 0 ? 30000 + rng() % 30000 : kind == 1 ? 0 : 1 + rng() % 400;
      std::string text;
      for (size_t w = 0; w < words; ++w) text.append("w").append(std::to_string(rng() % 5000)).append(" ");
      if (kind == 2) {
        bytes.append("not json");
      } else {
        bytes.append("{\"text\":\"").append(text).append("\"}");
      }
      bytes += rng() % 3 == 0 ? "\r\n" : "\n";
    }
    bytes += "{\"text\":\"the last line has no newline\"}";
    WriteFile(dir / "x.jsonl", bytes);
    Options o;
    o.paths = {dir.path()};
    o.input = InputFormat::kJsonl;
    o.max_line = 200000;
    Result<WalkedCorpus> walked = WalkCorpus(o);
    ASSERT_TRUE(walked.ok());
    const MinHasher minhasher(o.num_perm, o.seed);
    const Workers w{.threads = 3, .tick = {}, .cancel = nullptr};
    SignProgress counts;
    const SignedCorpus s = Sign({o, minhasher, FileSystem::Default(), w, false, counts}, std::move(walked->files));
    // The same lines by LineSplitter, fed in odd chunks.
    LineSplitter splitter(o.max_line);
    std::set<uint64_t> too_long, docs;
    std::string_view line;
    uint64_t ln = 0;
    for (size_t at = 0; at < bytes.size(); at += 77777) {
      splitter.Feed(std::string_view(bytes).substr(at, 77777));
      while (splitter.Next(&line, &ln)) (splitter.too_long() ? too_long : docs).insert(ln);
    }
    splitter.Finish();
    while (splitter.Next(&line, &ln)) (splitter.too_long() ? too_long : docs).insert(ln);
    std::set<uint64_t> got_too_long, got_malformed, got_docs;
    for (const InputProblem& p : s.problems) {
      ASSERT_EQ(p.kind, InputProblem::Kind::kMalformed);
      (p.status.message().find("--max-line") != std::string::npos ? got_too_long : got_malformed).insert(p.line);
    }
    for (const DocRecord& r : s.table.docs) {
      got_docs.insert(r.line);
      EXPECT_EQ(r.name, (dir / "x.jsonl:").append(std::to_string(r.line)));
    }
    for (const UnsignedDoc& u : s.unnamed_unsigned) got_docs.insert(u.line);  // the empty ones
    EXPECT_TRUE(s.named_unsigned.empty());
    EXPECT_EQ(got_too_long, too_long) << seed;
    EXPECT_FALSE(too_long.empty());
    std::set<uint64_t> parsed = got_docs;
    parsed.insert(got_malformed.begin(), got_malformed.end());
    EXPECT_EQ(parsed, docs) << seed;  // every kept line is a document or malformed
    EXPECT_EQ(*got_docs.rbegin(), ln) << "the last line, without a newline";
  }
}

// Every signed document keeps its distinct-shingle count, a text file's as a
// JSONL line's: the size of the set its text makes (read here again).
TEST(SignTest, EachSignedDocumentKeepsItsDistinctShingleCount) {
  TempDir dir;
  const std::string long_text = Join(RandomWords(3000, 5));
  WriteFile(dir / "t/a.txt", long_text);
  WriteFile(dir / "j/b.jsonl", "{\"id\":\"x\",\"text\":\"one two three four five six one two three four five six\"}\n");
  const MinHasher minhasher(Options{}.num_perm, Options{}.seed);
  const Workers w{.threads = 2, .tick = {}, .cancel = nullptr};
  std::vector<uint64_t> counts;
  for (const char* sub : {"t", "j"}) {
    Options o;
    o.paths = {dir / sub};
    if (sub[0] == 'j') o.input = InputFormat::kJsonl;
    Result<WalkedCorpus> walked = WalkCorpus(o);
    ASSERT_TRUE(walked.ok());
    SignProgress progress;
    SignContext ctx{o, minhasher, FileSystem::Default(), w, false, progress};
    const SignedCorpus plain = Sign(ctx, walked->files);
    ASSERT_EQ(plain.table.size(), 1u);
    EXPECT_EQ(plain.table.docs[0].shingles, 0u);  // not asked
    ctx.count_shingles = true;
    const SignedCorpus s = Sign(ctx, std::move(walked->files));
    ASSERT_EQ(s.table.size(), 1u);
    counts.push_back(s.table.docs[0].shingles);
  }
  DocumentReader reader(Options{}, minhasher);
  std::vector<uint64_t> set;
  DocumentSketch sk;
  reader.ReadText(long_text, nullptr, &set, &sk);
  EXPECT_EQ(counts[0], set.size());
  EXPECT_GT(set.size(), 2900u);
  EXPECT_EQ(counts[1], 6u);  // 12 words, 5-word shingles: 8, of which 6 differ
}

// The real file system, counting the bytes its readers give.
class ByteCountingFs : public FileSystem {
 public:
  class Counted : public ByteReader {
   public:
    Counted(std::unique_ptr<ByteReader> in, std::atomic<uint64_t>* bytes) : in_(std::move(in)), bytes_(bytes) {}
    Result<size_t> Read(char* buf, size_t n) override {
      Result<size_t> got = in_->Read(buf, n);
      if (got.ok()) *bytes_ += *got;
      return got;
    }

   private:
    std::unique_ptr<ByteReader> in_;
    std::atomic<uint64_t>* bytes_;
  };
  Result<std::unique_ptr<ByteReader>> Open(const std::string& path) override {
    Result<std::unique_ptr<ByteReader>> in = FileSystem::Default().Open(path);
    if (!in.ok()) return in.status();
    return std::unique_ptr<ByteReader>(std::make_unique<Counted>(std::move(*in), &bytes));
  }
  Result<FileStat> Stat(const std::string& path) override { return FileSystem::Default().Stat(path); }
  std::atomic<uint64_t> bytes{0};
};

// A drain that returns false (a stage sign task whose shard cannot be
// written) ends the reading of a JSONL file within it: of a 24 MB file read
// in 1 MiB blocks, a few blocks are read, not the file; a drain that takes
// everything reads it all.
TEST(SignTest, ADrainThatFailsStopsTheReadingWithinAFile) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "j");
  {
    std::ofstream out(dir / "j/big.jsonl", std::ios::binary);
    for (int i = 0; i < 200000; ++i) {
      out << "{\"text\": \"document " << i << " says " << testing::Join(testing::RandomWords(12, i)) << "\"}\n";
    }
  }
  const uint64_t size = std::filesystem::file_size(dir / "j/big.jsonl");
  ASSERT_GT(size, uint64_t{16} << 20);
  Options o;
  o.input = InputFormat::kJsonl;
  o.paths = {dir / "j"};
  const MinHasher minhasher(o.num_perm, o.seed);
  Workers w{.threads = 2, .tick = {}, .cancel = nullptr};
  Result<WalkedCorpus> walked = WalkCorpus(o);
  ASSERT_TRUE(walked.ok());
  for (const bool fail : {false, true}) {
    ByteCountingFs fs;
    SignProgress counts;
    SignContext ctx{o, minhasher, fs, w, false, counts};
    int calls = 0;
    ctx.drain = [&](std::vector<DocRecord>&, std::span<const uint32_t>, std::span<const SetBitmap>) {
      ++calls;
      return !fail;
    };
    (void)SignShare(ctx, walked->files);
    if (fail) {
      EXPECT_EQ(calls, 1);
      EXPECT_LT(fs.bytes.load(), uint64_t{12} << 20) << "of " << size;
    } else {
      EXPECT_GT(calls, 16);
      EXPECT_EQ(fs.bytes.load(), size);
    }
  }
}

}  // namespace
}  // namespace neardup
