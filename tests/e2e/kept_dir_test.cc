// End to end: --kept-dir writes the deduplicated corpus. Each check compares
// what the binary wrote with an independent reference made here: the input
// lines filtered by the names --mode duplicates lists (its ids, or FILE:LINE
// for a line without a unique id), byte for byte.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "compress_util.h"
#include "e2e/kept_modes.h"
#include "e2e/run_neardup.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunOptions;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

namespace fs = std::filesystem;

std::string Gunzip(const std::string& data) {
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 15 + 16), Z_OK);
  std::string out;
  char buf[65536];
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
  }
  EXPECT_EQ(rc, Z_STREAM_END);
  inflateEnd(&zs);
  return out;
}

std::string Unzstd(const std::string& data) {
  ZSTD_DCtx* d = ZSTD_createDCtx();
  std::string out;
  std::vector<char> buf(ZSTD_DStreamOutSize());
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  size_t rc = 1;
  while (in.pos < in.size) {
    ZSTD_outBuffer o{buf.data(), buf.size(), 0};
    rc = ZSTD_decompressStream(d, &o, &in);
    EXPECT_FALSE(ZSTD_isError(rc));
    if (ZSTD_isError(rc)) break;
    out.append(buf.data(), o.pos);
  }
  EXPECT_EQ(rc, 0u);
  ZSTD_freeDCtx(d);
  return out;
}

// A file's plain bytes, by its name, and how it is compressed.
std::string Plain(const std::string& path) {
  const std::string raw = testing::ReadFile(path);
  if (path.ends_with(".gz")) return Gunzip(raw);
  if (path.ends_with(".zst")) return Unzstd(raw);
  return raw;
}

// The lines of `text` with their line ends ("\n", "\r\n", or none at the end).
std::vector<std::string> RawLines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    const size_t end = nl == std::string::npos ? text.size() : nl + 1;
    out.push_back(text.substr(start, end - start));
    start = end;
  }
  return out;
}

// The id of a line that is a document (valid JSON with a string "text"),
// as neardup writes it ("" when none); nothing when it is not a document.
std::optional<std::string> DocId(std::string line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("text") || !j["text"].is_string()) return std::nullopt;
  if (!j.contains("id") || j["id"].is_null()) return std::string();
  return j["id"].is_string() ? j["id"].get<std::string>() : j["id"].dump();
}

// The reference: per input file (path as neardup names it), its lines but
// those whose name is listed; and every listed name must be a document.
std::map<std::string, std::string> Reference(const std::vector<std::string>& files,
                                             const std::set<std::string>& listed) {
  std::map<std::string, int> ids;
  for (const auto& f : files) {
    for (const auto& l : RawLines(Plain(f))) {
      if (auto id = DocId(l); id && !id->empty()) ++ids[*id];
    }
  }
  std::map<std::string, std::string> out;
  std::set<std::string> found;
  for (const auto& f : files) {
    const std::vector<std::string> lines = RawLines(Plain(f));
    std::string kept;
    for (size_t n = 0; n < lines.size(); ++n) {
      const auto id = DocId(lines[n]);
      const std::string name = id && !id->empty() && ids[*id] == 1 ? *id : f + ":" + std::to_string(n + 1);
      if (id && listed.count(name) != 0) {
        found.insert(name);
      } else {
        kept += lines[n];
      }
    }
    out[f] = kept;
  }
  EXPECT_EQ(found, listed) << "a listed name is no document of the input";
  return out;
}

std::set<std::string> Listed(const std::string& out) {
  std::set<std::string> names;
  for (const auto& l : testing::Lines(out)) names.insert(l);
  return names;
}

std::string Doc(const std::string& id, const std::string& text) {
  nlohmann::json j;
  if (!id.empty()) j["id"] = id;
  j["text"] = text;
  return j.dump();
}

// Near copies across and within files; numeric, repeated and missing ids;
// lines that are not documents; empty and short documents; CRLF line ends
// and a last line without one.
void MakeJsonl(const TempDir& dir, const std::string& ext) {
  std::vector<std::string> base;
  for (int k = 0; k < 6; ++k) base.push_back(Join(RandomWords(300, 100 + static_cast<uint64_t>(k))));
  auto near = [&](int k, int v) {
    auto w = RandomWords(300, 100 + static_cast<uint64_t>(k));
    w[150] = "variant" + std::to_string(v);
    return Join(w);
  };
  std::string a = "{\"id\": 7, \"text\": \"" + base[0] + "\"}\n";   // a numeric id
  a += Doc("dup", base[1]) + "\n" + Doc("dup", near(1, 1)) + "\n";  // an id twice: FILE:LINE
  a += "not json at all\n\n" + Doc("", near(0, 2)) + "\r\n";        // malformed, blank, no id, CRLF
  a += "{\"id\": \"nt\", \"body\": \"no text key\"}\n" + Doc("e", "") + "\n" + Doc("short", "two words") + "\n";
  a += Doc("long", std::string(5000, 'x')) + "\n";  // over --max-line 4K: not a document
  a += Doc("u1", base[2]) + "\n" + Doc("u2", base[2]) + "\n" + Doc("u3", near(2, 3));  // no final newline
  std::string b = Doc("b1", near(0, 4)) + "\n" + Doc("b2", base[3]) + "\n" + Doc("", base[1]) + "\n";
  b += Doc("b3", base[4]) + "\n" + Doc("b4", near(3, 5)) + "\n" + Doc("b5", base[5]) + "\n";
  auto put = [&](const std::string& rel, const std::string& text) {
    WriteFile(dir / rel, ext == ".gz" ? testing::Gzip(text) : ext == ".zst" ? testing::Zstd(text) : text);
  };
  put("in/a.jsonl" + ext, a);
  put("in/sub/b.jsonl" + ext, b);
}

// Every file below `root`, by its path below it.
std::map<std::string, std::string> Tree(const std::string& root) { return testing::FileTree(root); }

TEST(KeptDirTest, JsonlFilesAreTheInputLinesButTheListedOnesByteForByte) {
  for (const std::string ext : {"", ".gz", ".zst"}) {
    SCOPED_TRACE("extension '" + ext + "'");
    TempDir dir;
    MakeJsonl(dir, ext);
    const std::string in = dir / "in";
    ::chmod((dir / ("in/a.jsonl" + ext)).c_str(), 0640);
    RunResult r = RunNeardup(
        {"scan", "--input", "jsonl", "--max-line", "4K", "--mode", "duplicates", "--kept-dir", dir / "kept", in},
        dir.path());
    ASSERT_EQ(r.exit_code, 2) << r.err;  // malformed lines and a repeated id
    const std::set<std::string> listed = Listed(r.out);
    EXPECT_GE(listed.size(), 6u) << r.out;
    EXPECT_NE(listed.count(in + "/a.jsonl" + ext + ":3"), 0u) << r.out;  // an id not unique: FILE:LINE
    const std::vector<std::string> files = {in + "/a.jsonl" + ext, in + "/sub/b.jsonl" + ext};
    const std::map<std::string, std::string> want = Reference(files, listed);
    const std::map<std::string, std::string> got = Tree(dir / "kept");
    ASSERT_EQ(got.size(), 2u);
    for (const auto& f : files) {
      const std::string rel = fs::relative(f, in).string();
      ASSERT_EQ(got.count(rel), 1u) << rel;
      EXPECT_EQ(Plain(dir / ("kept/" + rel)), want.at(f)) << rel;
      if (!ext.empty()) {
        EXPECT_NE(got.at(rel), want.at(f)) << "not compressed: " << rel;
      }
    }
    struct stat st {};
    ASSERT_EQ(::stat((dir / ("kept/a.jsonl" + ext)).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640u);  // the input's mode
    testing::ExpectNoWiderModes(dir / "kept", {in}, true);
    EXPECT_NE(want.at(files[0]).find("not json at all\n\n"), std::string::npos);
    EXPECT_NE(want.at(files[0]).find("no text key"), std::string::npos);
    EXPECT_NE(want.at(files[0]).find(std::string(5000, 'x')), std::string::npos);
    // Every mode writes the same folder; the records are those of a run without it.
    for (const std::string mode : {"pairs", "clusters"}) {
      const std::string other = dir / ("kept-" + mode);
      RunResult m = RunNeardup(
          {"scan", "--input", "jsonl", "--max-line", "4K", "--mode", mode, "--kept-dir", other, in}, dir.path());
      RunResult plain = RunNeardup({"scan", "--input", "jsonl", "--max-line", "4K", "--mode", mode, in}, dir.path());
      EXPECT_EQ(m.out, plain.out) << mode;
      EXPECT_EQ(Tree(other), got) << mode;
    }
  }
}

TEST(KeptDirTest, TextFilesKeptAreHardLinkedOrCopiedWithModeAndTime) {
  TempDir dir;
  const std::string text = Join(RandomWords(300, 5));
  WriteFile(dir / "in/a.txt", text);
  WriteFile(dir / "in/deep/b.txt", text);
  WriteFile(dir / "in/c.txt", Join(RandomWords(300, 6)));
  auto w = RandomWords(300, 6);
  w[100] = "changed";
  WriteFile(dir / "in/deep/d.txt", Join(w));
  WriteFile(dir / "in/e.txt", "");
  ::chmod((dir / "in/c.txt").c_str(), 0600);
  RunResult r = RunNeardup({"scan", "--mode", "duplicates", "--kept-dir", dir / "kept", dir / "in"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::set<std::string> listed = Listed(r.out);
  EXPECT_EQ(listed, (std::set<std::string>{dir / "in/deep/b.txt", dir / "in/deep/d.txt"}));
  std::map<std::string, std::string> want;
  for (const auto& [rel, bytes] : Tree(dir / "in")) {
    if (listed.count(dir / ("in/" + rel)) == 0) want[rel] = bytes;
  }
  EXPECT_EQ(Tree(dir / "kept"), want);
  struct stat in_st {
  }, out_st{};
  ASSERT_EQ(::stat((dir / "in/c.txt").c_str(), &in_st), 0);
  ASSERT_EQ(::stat((dir / "kept/c.txt").c_str(), &out_st), 0);
  EXPECT_EQ(in_st.st_ino, out_st.st_ino);  // a hard link
  // Through a symbolic link (-L) to a file inside the PATH: a link to the
  // file it names; to a file outside it: a copy.
  fs::create_directories(dir / "linked");
  fs::create_symlink(dir / "in/c.txt", dir / "linked/l.txt");
  RunResult l = RunNeardup({"scan", "-L", "--kept-dir", dir / "kl", dir / "linked"}, dir.path());
  EXPECT_EQ(l.exit_code, 1) << l.err;
  ASSERT_EQ(::lstat((dir / "kl/l.txt").c_str(), &out_st), 0);
  EXPECT_NE(in_st.st_ino, out_st.st_ino);
  EXPECT_EQ(testing::ReadFile(dir / "kl/l.txt"), testing::ReadFile(dir / "in/c.txt"));
  WriteFile(dir / "lin/.hidden.txt", text);  // not walked itself: hidden
  fs::create_symlink(dir / "lin/.hidden.txt", dir / "lin/l.txt");
  RunResult inside = RunNeardup({"scan", "-L", "--kept-dir", dir / "kin", dir / "lin"}, dir.path());
  EXPECT_EQ(inside.exit_code, 1) << inside.err;
  struct stat hidden_st {};
  ASSERT_EQ(::stat((dir / "lin/.hidden.txt").c_str(), &hidden_st), 0);
  ASSERT_EQ(::lstat((dir / "kin/l.txt").c_str(), &out_st), 0);
  EXPECT_EQ(hidden_st.st_ino, out_st.st_ino);
  RunResult c = RunNeardup({"scan", "--kept-copy", "--kept-dir", dir / "copied", dir / "in"}, dir.path());
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(Tree(dir / "copied"), want);
  ASSERT_EQ(::stat((dir / "copied/c.txt").c_str(), &out_st), 0);
  EXPECT_NE(in_st.st_ino, out_st.st_ino);
  EXPECT_EQ(out_st.st_mode & 07777, 0600u);
  EXPECT_EQ(out_st.st_mtim.tv_sec, in_st.st_mtim.tv_sec);
  EXPECT_EQ(out_st.st_mtim.tv_nsec, in_st.st_mtim.tv_nsec);
  for (const char* kept : {"kept", "kl", "copied"}) testing::ExpectNoWiderModes(dir / kept, {dir / "in"}, true);
  testing::ExpectNoWiderModes(dir / "kin", {dir / "lin"}, true);
}

TEST(KeptDirTest, ReferenceFilesAreNeverWrittenAndTheirCopiesAreLeftOut) {
  TempDir dir;
  const std::string text = Join(RandomWords(300, 9));
  WriteFile(dir / "archive/old.jsonl", Doc("old", text) + "\n");
  WriteFile(dir / "in/new.jsonl", Doc("n1", text) + "\n" + Doc("n2", Join(RandomWords(300, 10))) + "\n");
  RunResult r = RunNeardup({"scan", "--input", "jsonl", "--mode", "duplicates", "--against", dir / "archive",
                            "--kept-dir", dir / "kept", dir / "in"},
                           dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "n1\n");
  EXPECT_EQ(Tree(dir / "kept"),
            (std::map<std::string, std::string>{{"new.jsonl", Doc("n2", Join(RandomWords(300, 10))) + "\n"}}));
  testing::ExpectNoWiderModes(dir / "kept", {dir / "in"}, true);
}

TEST(KeptDirTest, SecondRunWithIndexWritesTheSameFolder) {
  TempDir dir;
  MakeJsonl(dir, ".zst");
  auto run = [&](const std::string& kept) {
    return RunNeardup({"scan", "--input", "jsonl", "--mode", "duplicates", "--index", dir / "i.db", "--kept-dir",
                       dir / kept, dir / "in"},
                      dir.path());
  };
  RunResult first = run("kept1");
  RunResult second = run("kept2");
  EXPECT_EQ(first.out, second.out);
  EXPECT_NE(second.err.find(" 0 signed"), std::string::npos) << second.err;  // all from the index
  ASSERT_EQ(Tree(dir / "kept1").size(), 2u);
  EXPECT_EQ(Tree(dir / "kept2"), Tree(dir / "kept1"));
  for (const char* kept : {"kept1", "kept2"}) testing::ExpectNoWiderModes(dir / kept, {dir / "in"}, true);
}

TEST(KeptDirTest, FolderIsTheSameForEveryThreadCount) {
  TempDir dir;
  MakeJsonl(dir, ".zst");
  for (const char* threads : {"1", "3"}) {
    RunResult r = RunNeardup(
        {"scan", "--input", "jsonl", "-j", threads, "--kept-dir", dir / ("kept-" + std::string(threads)), dir / "in"},
        dir.path());
    EXPECT_EQ(r.exit_code, 2) << r.err;  // malformed lines
  }
  ASSERT_EQ(Tree(dir / "kept-1").size(), 2u);
  EXPECT_EQ(Tree(dir / "kept-3"), Tree(dir / "kept-1"));
  for (const char* kept : {"kept-1", "kept-3"}) testing::ExpectNoWiderModes(dir / kept, {dir / "in"}, true);
}

TEST(KeptDirTest, EachRefusalComesBeforeAnythingIsReadOrWritten) {
  TempDir dir;
  WriteFile(dir / "in/a.txt", "some words here");
  WriteFile(dir / "full/x", "x");
  WriteFile(dir / "ref/r.txt", "other words");
  fs::create_directory_symlink(dir / "k", dir / "link-to-k");  // to a folder not made yet
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--kept-dir", dir / "full", dir / "in"}, "is not empty"},
      {{"--kept-dir", dir / "in/kept", dir / "in"}, "is inside the input"},
      {{"--kept-dir", dir / "in", dir / "in"}, "is inside the input"},
      {{"--kept-dir", dir / "ref/k", "--against", dir / "ref", dir / "in"}, "is inside the input"},
      {{"--kept-dir", dir.path(), dir / "in"}, "holds the input"},
      {{"--kept-dir", dir / "k", "-"}, "stream -"},
      {{"--kept-dir", dir / "full/x", dir / "in"}, "is not a folder"},
      {{"--kept-dir", dir / "link-to-k/", dir / "in"}, "is a symbolic link"},
      {{"--kept-copy", dir / "in"}, "--kept-copy needs --kept-dir"},
      {{"--kept-dir", dir / "k", "--index", dir / "k/i.db", dir / "in"}, "would hold the --index file"},
      {{"--kept-dir", dir / "k", "-o", dir / "k/out.jsonl", dir / "in"}, "is inside --kept-dir"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {"scan"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    RunResult r = RunNeardup(argv, dir.path());
    EXPECT_EQ(r.exit_code, 2) << c.says;
    EXPECT_EQ(r.out, "") << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(dir / "k")) << c.says;
    EXPECT_FALSE(fs::exists(dir / "in/kept")) << c.says;
  }
  // Of the stage tasks, filter alone writes it: refused, not ignored, by the others.
  RunResult stage = RunNeardup({"stage", "report", dir / "work", "--kept-dir", dir / "k"}, dir.path());
  EXPECT_EQ(stage.exit_code, 2);
  EXPECT_NE(stage.err.find("--kept-dir is read by `neardup stage filter` only"), std::string::npos) << stage.err;
  // A FIFO among the inputs is refused without waiting for a writer.
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  RunResult r = RunNeardup({"scan", "--kept-dir", dir / "k", dir / "in", dir / "fifo"}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("stream " + dir / "fifo"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "k"));
}

// The pass holds, per file, the sorted list of the lines it leaves out (32
// bytes each), never the file: 100,000 lines of 1 kB (10 texts, so 99,990
// exact copies left out) cost under 16 MB + 40 bytes a line left out over
// the same scan without --kept-dir, against the file's 100 MB. (Release
// build only: under AddressSanitizer every allocation carries redzones.)
TEST(KeptDirTest, ThePassHoldsTheListLeftOutNotTheFile) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "peak RSS is measured in the Release build";
#endif
  TempDir dir;
  constexpr long kLines = 100'000;
  std::vector<std::string> texts;
  for (int t = 0; t < 10; ++t) texts.push_back(Join(RandomWords(150, 500 + static_cast<uint64_t>(t))));
  std::filesystem::create_directories(dir / "d");
  {
    std::ofstream out(dir / "d/big.jsonl", std::ios::binary);
    for (long i = 0; i < kLines; ++i) out << "{\"text\":\"" << texts[static_cast<size_t>(i % 10)] << "\"}\n";
  }
  ASSERT_GT(std::filesystem::file_size(dir / "d/big.jsonl"), 80'000'000u);
  long plain_kb = 0;
  const RunResult plain =
      RunNeardup({"scan", "-q", "--input", "jsonl", "--mode", "duplicates", "-o", dir / "list.txt", dir / "d"},
                 dir.path(), RunOptions().MaxRss(&plain_kb));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  long kept_kb = 0;
  const RunResult kept = RunNeardup({"scan", "-q", "--input", "jsonl", "--mode", "duplicates", "-o", dir / "list2.txt",
                                     "--kept-dir", dir / "kept", dir / "d"},
                                    dir.path(), RunOptions().MaxRss(&kept_kb));
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  const long left_out = kLines - 10;
  uint64_t first_ten = 0;  // the kept lines: the first of each text
  for (const std::string& t : texts) first_ten += t.size() + 12;
  EXPECT_EQ(std::filesystem::file_size(dir / "kept/big.jsonl"), first_ten);
  EXPECT_LT((kept_kb - plain_kb) * 1024, (16L << 20) + 40 * left_out)
      << "peak RSS " << kept_kb / 1024 << " MB with --kept-dir, " << plain_kb / 1024 << " MB without";
  std::fprintf(stderr, "peak RSS %ld KiB with --kept-dir, %ld KiB without\n", kept_kb, plain_kb);
}

}  // namespace
}  // namespace neardup
