// The Confirmer through a scan with --exact: a document alone in its group
// keeps no token text when read again, and is read once more, for its text,
// only when its hashed shingle set equals another's; a document found
// changed by that read is left out of every pair.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "neardup/scan.h"
#include "test_util.h"
#include "walk/file_system.h"

namespace neardup {
namespace {

// Bytes in memory, read as a stream or, with `seekable`, as a plain file is
// (ReadAhead: a re-read of JSONL lines where they start).
class StringReader : public ByteReader {
 public:
  StringReader(std::string text, bool seekable) : text_(std::move(text)), seekable_(seekable) {}
  Result<size_t> Read(char* buf, size_t n) override {
    const size_t k = std::min(n, text_.size() - at_);
    std::memcpy(buf, text_.data() + at_, k);
    at_ += k;
    return k;
  }
  bool CanReadAhead() const override { return seekable_; }
  Result<size_t> ReadAhead(uint64_t ahead, char* buf, size_t n) override {
    const uint64_t from = std::min<uint64_t>(at_ + ahead, text_.size());
    const size_t k = std::min<size_t>(n, static_cast<size_t>(text_.size() - from));
    std::memcpy(buf, text_.data() + from, k);
    return k;
  }

 private:
  std::string text_;
  bool seekable_;
  size_t at_ = 0;
};

// The real file system, counting the opens of each file; the open number
// `change_at` of a file named `changed` gives `new_text` instead of its bytes
// (its size and times stay as they were: only the content tells), read as
// a plain file is (`seekable`) or as a stream.
class ScriptedFs : public FileSystem {
 public:
  Result<std::unique_ptr<ByteReader>> Open(const std::string& path) override {
    int n = 0;
    {
      std::lock_guard<std::mutex> lock(mu);
      n = ++opens[std::filesystem::path(path).filename().string()];
    }
    if (!changed.empty() && std::filesystem::path(path).filename() == changed && n == change_at) {
      return std::unique_ptr<ByteReader>(std::make_unique<StringReader>(new_text, seekable));
    }
    return FileSystem::Default().Open(path);
  }
  Result<FileStat> Stat(const std::string& path) override { return FileSystem::Default().Stat(path); }
  std::mutex mu;
  std::map<std::string, int> opens;
  std::string changed, new_text;
  int change_at = 0;
  bool seekable = true;
};

Options ExactOptions(const std::string& dir) {
  Options o;
  o.paths = {dir};
  o.verify = VerifyMode::kExact;
  o.threshold = 0.5;
  return o;
}

// "w w w w w w" and "w w w w w w w": one shingle each, the same one, so the
// Jaccard by hashes is 1 and the texts decide: both are read a third time.
// A near copy pair (Jaccard below 1) is read twice.
TEST(ConfirmTest, ADocumentAloneIsReadForItsTextOnlyWhenItsSetEqualsAnother) {
  testing::TempDir dir;
  testing::WriteFile(dir / "six.txt", "w w w w w w");
  testing::WriteFile(dir / "seven.txt", "w w w w w w w");
  auto words = testing::RandomWords(200, 5);
  testing::WriteFile(dir / "a.txt", testing::Join(words));
  words[100] = "changed";
  testing::WriteFile(dir / "b.txt", testing::Join(words));
  ScriptedFs fs;
  RunContext ctx;
  ctx.fs = &fs;
  Result<Report> r = FindDuplicates(ExactOptions(dir.path()), ctx);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->pairs.size(), 2u);
  EXPECT_TRUE(r->problems.empty());
  EXPECT_EQ(fs.opens["six.txt"], 3);
  EXPECT_EQ(fs.opens["seven.txt"], 3);
  EXPECT_EQ(fs.opens["a.txt"], 2);
  EXPECT_EQ(fs.opens["b.txt"], 2);
}

// seven.txt holds other words by its third read: it is left out of every
// pair, with a problem naming it, and the pair it was in is not reported.
TEST(ConfirmTest, ADocumentChangedBeforeItsTextIsReadIsLeftOut) {
  testing::TempDir dir;
  testing::WriteFile(dir / "six.txt", "w w w w w w");
  testing::WriteFile(dir / "seven.txt", "w w w w w w w");
  ScriptedFs fs;
  fs.changed = "seven.txt";
  fs.change_at = 3;
  fs.new_text = "w w w w w w w w";
  RunContext ctx;
  ctx.fs = &fs;
  Result<Report> r = FindDuplicates(ExactOptions(dir.path()), ctx);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->pairs.empty());
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_NE(r->problems[0].message().find("seven.txt: changed during the run"), std::string::npos)
      << r->problems[0].message();
}

// The 1,600 lines of one JSONL file are all read again (each is in a pair or
// a group of copies): 400 texts, each with an exact copy and two near copies
// (every 15th and every 25th word edited), a family's lines 400 apart, so
// that its groups and pairs span the runs of lines the workers share. With
// 2 and 3 workers the file is opened once more per run of lines (at least
// 64 each, each line read where it starts, at most 8 runs a worker), and the
// pairs, clusters and removals are those of one worker.
TEST(ConfirmTest, TheLinesOfALargeJsonlFileAreSharedByTheWorkers) {
  testing::TempDir dir;
  constexpr int kFamilies = 400;
  std::vector<std::string> lines(4 * kFamilies);
  for (int f = 0; f < kFamilies; ++f) {
    std::vector<std::string> words = testing::RandomWords(60, 1000 + static_cast<uint32_t>(f));
    const std::string text = testing::Join(words);
    auto edited = [&](size_t every) {
      std::vector<std::string> w = words;
      for (size_t i = 0; i < w.size(); i += every) w[i] = testing::Numbered("edit", static_cast<long long>(i));
      return testing::Join(w);
    };
    const std::string texts[4] = {text, text, edited(15), edited(25)};
    for (int k = 0; k < 4; ++k) lines[static_cast<size_t>(k * kFamilies + f)] = "{\"text\":\"" + texts[k] + "\"}";
  }
  std::string jsonl;
  for (const std::string& l : lines) jsonl += l + "\n";
  testing::WriteFile(dir / "a.jsonl", jsonl);
  struct Outcome {
    std::vector<std::tuple<DocId, DocId, double>> pairs;
    std::vector<Removal> removable;
    int opens = 0;
  };
  auto run = [&](int threads, Mode mode) {
    Options o = ExactOptions(dir.path());
    o.input = InputFormat::kJsonl;
    o.threads = threads;
    o.mode = mode;
    ScriptedFs fs;
    RunContext ctx;
    ctx.fs = &fs;
    Outcome out;
    Result<Report> r = FindDuplicates(o, ctx);
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (!r.ok()) return out;
    EXPECT_TRUE(r->problems.empty());
    for (const ReportedPair& p : r->pairs) out.pairs.emplace_back(p.a, p.b, p.jaccard);
    out.removable = r->removable;
    out.opens = fs.opens["a.jsonl"];
    return out;
  };
  const Outcome one = run(1, Mode::kPairs);
  EXPECT_GE(one.pairs.size(), static_cast<size_t>(3 * kFamilies));
  EXPECT_EQ(one.opens, 2);  // signed, then read again by one job
  for (const int threads : {2, 3}) {
    const Outcome many = run(threads, Mode::kPairs);
    EXPECT_EQ(many.pairs, one.pairs) << threads;
    EXPECT_EQ(many.opens, 1 + 8 * threads) << threads;  // 1,600 lines: 16 and 24 runs
  }
  const Outcome removals = run(1, Mode::kDuplicates);
  EXPECT_GE(removals.removable.size(), static_cast<size_t>(kFamilies));
  for (const int threads : {2, 3}) EXPECT_EQ(run(threads, Mode::kDuplicates).removable, removals.removable) << threads;
}

// A JSONL file whose lines moved since it was signed (the line before them
// grew; size and times kept, so only the content tells). Read where its lines
// started (a plain file), what is there now is not what was signed: both
// documents of the pair are left out, naming the file, and no pair is
// reported. Read from its start (a stream), its lines by number are what was
// signed, and the pair stands.
TEST(ConfirmTest, JsonlLinesThatMovedAreLeftOutWhenReadWhereTheyStarted) {
  testing::TempDir dir;
  const std::string text = testing::Join(testing::RandomWords(80, 9));
  std::vector<std::string> words = testing::RandomWords(80, 9);
  words[40] = "edited";
  const std::string lines[3] = {"{\"text\":\"short\"}", "{\"text\":\"" + text + "\"}",
                                "{\"text\":\"" + testing::Join(words) + "\"}"};
  testing::WriteFile(dir / "a.jsonl", lines[0] + "\n" + lines[1] + "\n" + lines[2] + "\n");
  for (const bool seekable : {true, false}) {
    SCOPED_TRACE(seekable);
    ScriptedFs fs;
    fs.changed = "a.jsonl";
    fs.change_at = 2;
    fs.seekable = seekable;
    fs.new_text = "{\"text\":\"longer now\"}\n" + lines[1] + "\n" + lines[2] + "\n";
    Options o = ExactOptions(dir.path());
    o.input = InputFormat::kJsonl;
    o.min_words = 1;
    RunContext ctx;
    ctx.fs = &fs;
    Result<Report> r = FindDuplicates(o, ctx);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->pairs.size(), seekable ? 0u : 1u);
    EXPECT_EQ(r->problems.size(), seekable ? 2u : 0u);
    for (const Status& p : r->problems) EXPECT_NE(p.message().find("a.jsonl:"), std::string::npos) << p.message();
  }
}

// Unchanged, the same file gives its pair either way, read where its lines
// start or from its start.
TEST(ConfirmTest, JsonlLinesReadWhereTheyStartGiveThePairsOfAReadFromTheStart) {
  testing::TempDir dir;
  std::string jsonl;
  for (int f = 0; f < 50; ++f) {
    std::vector<std::string> words = testing::RandomWords(60 + 20 * (f % 7), 300 + static_cast<uint32_t>(f));
    jsonl += "{\"id\":\"" + std::to_string(f) + "a\",\"text\":\"" + testing::Join(words) + "\"}\r\n";
    words[7] = "edited";
    jsonl += "{\"text\":\"" + testing::Join(words) + "\"}\n";
  }
  testing::WriteFile(dir / "a.jsonl", jsonl);
  std::vector<std::vector<std::tuple<DocId, DocId, double>>> got;
  for (const bool seekable : {true, false}) {
    ScriptedFs fs;
    fs.changed = "a.jsonl";
    fs.change_at = 2;  // the same bytes, read from memory
    fs.seekable = seekable;
    fs.new_text = jsonl;
    Options o = ExactOptions(dir.path());
    o.input = InputFormat::kJsonl;
    RunContext ctx;
    ctx.fs = &fs;
    Result<Report> r = FindDuplicates(o, ctx);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_TRUE(r->problems.empty()) << r->problems[0].message();
    got.emplace_back();
    for (const ReportedPair& p : r->pairs) got.back().emplace_back(p.a, p.b, p.jaccard);
  }
  EXPECT_EQ(got[0].size(), 50u);
  EXPECT_EQ(got[0], got[1]);
}

}  // namespace
}  // namespace neardup
