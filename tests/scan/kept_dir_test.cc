// --kept-dir writes what was signed, or nothing: a file changed between
// signing and writing (its stat key, or the content of a dropped line under
// an unchanged stat) is not written, with a problem, and leaves no file in
// the folder.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "neardup/scan.h"
#include "test_util.h"
#include "walk/file_system.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::TempDir;
using testing::WriteFile;
namespace fs = std::filesystem;

std::string Doc(const std::string& id, const std::string& text) {
  nlohmann::json j;
  j["id"] = id;
  j["text"] = text;
  return j.dump() + "\n";
}

// The real file system, with a hook run once, at the first Stat() of a
// .jsonl file: without --exact, the check before --kept-dir reads it again.
class BeforeWritingFs : public FileSystem {
 public:
  explicit BeforeWritingFs(std::function<void()> between) : between_(std::move(between)) {}
  Result<std::unique_ptr<ByteReader>> Open(const std::string& path) override {
    return FileSystem::Default().Open(path);
  }
  Result<FileStat> Stat(const std::string& path) override {
    if (path.ends_with(".jsonl")) {
      const std::lock_guard<std::mutex> lock(mu_);
      if (between_) {
        between_();
        between_ = nullptr;
      }
    }
    return FileSystem::Default().Stat(path);
  }

 private:
  std::mutex mu_;
  std::function<void()> between_;
};

// Bytes from memory.
class StringReader : public ByteReader {
 public:
  explicit StringReader(std::string bytes) : bytes_(std::move(bytes)) {}
  Result<size_t> Read(char* buf, size_t n) override {
    const size_t k = std::min(n, bytes_.size() - at_);
    std::memcpy(buf, bytes_.data() + at_, k);
    at_ += k;
    return k;
  }

 private:
  std::string bytes_;
  size_t at_ = 0;
};

// The real file system, but the opens of `path` after the first `real` ones
// give `later` (of the same size): a change that no stat shows.
class SecondReadDiffersFs : public FileSystem {
 public:
  SecondReadDiffersFs(std::string path, std::string later, int real = 1)
      : path_(std::move(path)), later_(std::move(later)), real_(real) {}
  Result<std::unique_ptr<ByteReader>> Open(const std::string& path) override {
    const std::lock_guard<std::mutex> lock(mu_);
    if (path == path_ && opens_++ >= real_) return std::unique_ptr<ByteReader>(new StringReader(later_));
    return FileSystem::Default().Open(path);
  }
  Result<FileStat> Stat(const std::string& path) override { return FileSystem::Default().Stat(path); }

 private:
  std::string path_;
  std::string later_;
  int real_;
  std::mutex mu_;
  int opens_ = 0;
};

struct Corpus {
  std::string a, b;
};

// a.jsonl: x, a copy of x (left out), y; b.jsonl: z, a copy of y (left out).
Corpus MakeCorpus(const TempDir& dir) {
  const std::string x = Join(RandomWords(300, 1)), y = Join(RandomWords(300, 2)), z = Join(RandomWords(300, 3));
  Corpus c{Doc("x", x) + Doc("x2", x) + Doc("y", y), Doc("z", z) + Doc("y2", y)};
  WriteFile(dir / "in/a.jsonl", c.a);
  WriteFile(dir / "in/b.jsonl", c.b);
  return c;
}

Options KeptOptions(const TempDir& dir) {
  Options o;
  o.paths = {dir / "in"};
  o.input = InputFormat::kJsonl;
  o.mode = Mode::kDuplicates;
  o.kept_dir = dir / "kept";
  o.threads = 2;
  return o;
}

std::vector<std::string> Names(const std::string& folder) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(folder)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string Problems(const Report& r) {
  std::string all;
  for (const Status& s : r.problems) all += s.message() + "\n";
  return all;
}

TEST(KeptDirWriteTest, BothFilesAreWrittenWhenNothingChanged) {
  TempDir dir;
  const Corpus c = MakeCorpus(dir);
  BeforeWritingFs fs_double([] {});
  RunContext ctx;
  ctx.fs = &fs_double;
  Result<Report> r = FindDuplicates(KeptOptions(dir), ctx);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->kept.files, 2u);
  EXPECT_EQ(r->kept.dropped, 2u);
  EXPECT_EQ(r->kept.documents, 3u);
  EXPECT_EQ(r->kept.failed, 0u) << Problems(*r);
  EXPECT_EQ(testing::ReadFile(dir / "kept/a.jsonl"),
            c.a.substr(0, c.a.find("{\"id\":\"x2\"")) + c.a.substr(c.a.find("{\"id\":\"y\"")));
  EXPECT_EQ(testing::ReadFile(dir / "kept/b.jsonl"), c.b.substr(0, c.b.find("{\"id\":\"y2\"")));
}

TEST(KeptDirWriteTest, FileChangedAfterSigningIsNotWrittenAndLeavesNothing) {
  TempDir dir;
  const Corpus c = MakeCorpus(dir);
  BeforeWritingFs fs_double([&] { WriteFile(dir / "in/a.jsonl", c.a + Doc("late", "a line added later")); });
  RunContext ctx;
  ctx.fs = &fs_double;
  Result<Report> r = FindDuplicates(KeptOptions(dir), ctx);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->kept.failed, 1u);
  EXPECT_EQ(r->kept.files, 1u);
  const std::string problems = Problems(*r);
  EXPECT_NE(problems.find(dir / "in/a.jsonl: changed during the run; not written to " + dir / "kept"),
            std::string::npos)
      << problems;
  EXPECT_EQ(Names(dir / "kept"), std::vector<std::string>{"b.jsonl"});  // no temporary file left
}

// The copy x2 (dropped) holding other words, the file the same size.
std::string WithDroppedLineChanged(const std::string& a) {
  std::string later = a;
  const size_t at = later.find("{\"id\":\"x2\"");
  const size_t word = later.find(' ', at + 20);
  for (size_t k = word - 3; k < word; ++k) later[k] = 'q';
  return later;
}

void ExpectOnlyBWritten(const TempDir& dir, const Report& r) {
  EXPECT_EQ(r.kept.failed, 1u);
  const std::string problems = Problems(r);
  EXPECT_NE(problems.find(dir / "in/a.jsonl:2: changed since it was signed; not written to"), std::string::npos)
      << problems;
  EXPECT_EQ(Names(dir / "kept"), std::vector<std::string>{"b.jsonl"});
}

// Checked by the hash of the line's bytes, kept from signing.
// With --verify signature, which reads nothing again: --kept-dir's own check
// (exact verification, the default, finds the change first and keeps the line).
TEST(KeptDirWriteTest, DroppedLineWhoseContentChangedUnderTheSameStatIsCaught) {
  TempDir dir;
  const Corpus c = MakeCorpus(dir);
  SecondReadDiffersFs fs_double(dir / "in/a.jsonl", WithDroppedLineChanged(c.a));
  RunContext ctx;
  ctx.fs = &fs_double;
  Options o = KeptOptions(dir);
  o.verify = VerifyMode::kSignature;
  Result<Report> r = FindDuplicates(o, ctx);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectOnlyBWritten(dir, *r);
}

// The copy x2 (dropped) with its first word in capitals: the same words once
// case is folded (the same content hash), other bytes, the file the same size.
std::string WithDroppedLineInCapitals(const std::string& a) {
  std::string later = a;
  const size_t text = later.find("\"text\":\"", later.find("{\"id\":\"x2\"")) + 8;
  for (size_t k = text; later[k] != ' '; ++k) later[k] = static_cast<char>(std::toupper(later[k]));
  return later;
}

// Only the hash of the line's bytes sees this change: a run with --kept-dir
// hashes its lines even though a run without it does not.
TEST(KeptDirWriteTest, DroppedLineChangedInCaseOnlyIsCaughtByTheLineHash) {
  TempDir dir;
  const Corpus c = MakeCorpus(dir);
  const std::string later = WithDroppedLineInCapitals(c.a);
  ASSERT_NE(later, c.a);
  SecondReadDiffersFs fs_double(dir / "in/a.jsonl", later);
  RunContext ctx;
  ctx.fs = &fs_double;
  Result<Report> r = FindDuplicates(KeptOptions(dir), ctx);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectOnlyBWritten(dir, *r);
}

// With documents from the index (no line hash kept): by their content hash.
TEST(KeptDirWriteTest, DroppedLineFromTheIndexIsCheckedByItsContentHash) {
  TempDir dir;
  const Corpus c = MakeCorpus(dir);
  // Past the index's timestamp resolution (2 s), so that it trusts the stat.
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  Options first = KeptOptions(dir);
  first.kept_dir.clear();
  first.index = dir / "i.db";
  ASSERT_TRUE(FindDuplicates(first).ok());
  Options second = KeptOptions(dir);
  second.index = dir / "i.db";
  second.verify = VerifyMode::kSignature;  // --kept-dir's own check, as above
  SecondReadDiffersFs fs_double(dir / "in/a.jsonl", WithDroppedLineChanged(c.a), /*real=*/0);
  RunContext ctx;
  ctx.fs = &fs_double;
  Result<Report> r = FindDuplicates(second, ctx);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->index.signed_now, 0u);  // nothing read but to be copied
  ExpectOnlyBWritten(dir, *r);
}

}  // namespace
}  // namespace neardup
