// OutputFile and LinkOrCopy: files are placed in their folder's descriptor,
// never through a symbolic link at their name, and never with a setuid,
// setgid or sticky bit.
#include "walk/output_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "test_util.h"

namespace neardup {
namespace {

using testing::TempDir;
using testing::WriteFile;
namespace fs = std::filesystem;

PlacedFrom FromStat(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return {.size = static_cast<uint64_t>(st.st_size),
          .mtime_ns = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec,
          .ctime_ns = int64_t{st.st_ctim.tv_sec} * 1000000000 + st.st_ctim.tv_nsec,
          .dev = static_cast<uint64_t>(st.st_dev),
          .ino = static_cast<uint64_t>(st.st_ino)};
}

struct stat StatOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st;
}

TEST(OutputFileTest, ModeLosesItsSpecialBits) {
  TempDir dir;
  Result<KeptFolder> kept = KeptFolder::Open(dir / "kept");
  ASSERT_TRUE(kept.ok());
  Result<KeptPlace> place = kept->Place("a/b.jsonl", "b.jsonl");
  ASSERT_TRUE(place.ok());
  Result<std::unique_ptr<OutputFile>> out = OutputFile::Create(std::move(*place), 1, 06755);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_TRUE((*out)->Write("{}\n").ok());
  ASSERT_TRUE((*out)->Commit().ok());
  EXPECT_EQ(StatOf(dir / "kept/a/b.jsonl").st_mode & 07777, 0755u);
  EXPECT_EQ(testing::ReadFile(dir / "kept/a/b.jsonl"), "{}\n");
}

TEST(OutputFileTest, LinkAtTheNameIsNeverWrittenThrough) {
  TempDir dir;
  WriteFile(dir / "outside.txt", "outside");
  WriteFile(dir / "in/x.txt", "input");
  Result<KeptFolder> kept = KeptFolder::Open(dir / "kept");
  ASSERT_TRUE(kept.ok());
  fs::create_symlink(dir / "outside.txt", dir / "kept/x.txt");
  Result<KeptPlace> place = kept->Place("x.txt", dir / "in/x.txt");
  ASSERT_TRUE(place.ok());
  Result<std::unique_ptr<OutputFile>> out = OutputFile::Create(std::move(*place), 1, 0644);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE((*out)->Write("written").ok());
  EXPECT_FALSE((*out)->Commit().ok());
  for (const bool may_link : {true, false}) {
    place = kept->Place("x.txt", dir / "in/x.txt");
    ASSERT_TRUE(place.ok());
    EXPECT_FALSE(LinkOrCopy(dir / "in/x.txt", FromStat(dir / "in/x.txt"), std::move(*place), may_link).ok());
  }
  EXPECT_EQ(testing::ReadFile(dir / "outside.txt"), "outside");
  EXPECT_TRUE(fs::is_symlink(dir / "kept/x.txt"));
  size_t entries = 0;  // the link alone: no temporary left either
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir / "kept")) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST(OutputFileTest, PrivilegedFilesAreCopiedWithoutTheirBits) {
  TempDir dir;
  WriteFile(dir / "in/plain.txt", "plain");
  WriteFile(dir / "in/setgid.txt", "setgid");
  ::chmod((dir / "in/plain.txt").c_str(), 0640);
  ASSERT_EQ(::chmod((dir / "in/setgid.txt").c_str(), 02750), 0);
  Result<KeptFolder> kept = KeptFolder::Open(dir / "kept");
  ASSERT_TRUE(kept.ok());
  for (const std::string name : {"plain.txt", "setgid.txt"}) {
    Result<KeptPlace> place = kept->Place(name, dir / ("in/" + name));
    ASSERT_TRUE(place.ok());
    const std::string source = dir / ("in/" + name);
    ASSERT_TRUE(LinkOrCopy(source, FromStat(source), std::move(*place), true).ok()) << name;
  }
  EXPECT_EQ(StatOf(dir / "kept/plain.txt").st_ino, StatOf(dir / "in/plain.txt").st_ino);  // linked
  const struct stat copied = StatOf(dir / "kept/setgid.txt");
  EXPECT_NE(copied.st_ino, StatOf(dir / "in/setgid.txt").st_ino);
  EXPECT_EQ(copied.st_mode & 07777, 0750u);
  EXPECT_EQ(copied.st_uid, ::geteuid());
  EXPECT_EQ(testing::ReadFile(dir / "kept/setgid.txt"), "setgid");
  // Not to be linked (--kept-copy): copied with the source's permission bits.
  Result<KeptPlace> place = kept->Place("sub/plain.txt", dir / "in/plain.txt");
  ASSERT_TRUE(place.ok());
  ASSERT_TRUE(LinkOrCopy(dir / "in/plain.txt", FromStat(dir / "in/plain.txt"), std::move(*place), false).ok());
  EXPECT_NE(StatOf(dir / "kept/sub/plain.txt").st_ino, StatOf(dir / "in/plain.txt").st_ino);
  EXPECT_EQ(StatOf(dir / "kept/sub/plain.txt").st_mode & 07777, 0640u);
}

}  // namespace
}  // namespace neardup
