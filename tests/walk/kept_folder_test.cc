// KeptFolder: paths below DIR are checked component by component, and no
// symbolic link in DIR is followed to make, write or remove anything.
#include "walk/kept_folder.h"

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

TEST(KeptFolderTest, CheckKeptPathAcceptsOnlyRelativePathsOfNamedComponents) {
  for (const char* ok : {"a", "a/b.txt", ".hidden/x", "a..b/c", "..x"}) EXPECT_TRUE(CheckKeptPath(ok).ok()) << ok;
  for (const std::string& bad : std::vector<std::string>{"", "/abs", "..", "../x", "a/../b", "a/..", ".", "./a",
                                                         "a/./b", "a//b", "a/", std::string("a\0b", 3)}) {
    const Status s = CheckKeptPath(bad);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("is not a path below DIR"), std::string::npos) << s.message();
  }
}

TEST(KeptFolderTest, IsTailOfComparesTheLastComponents) {
  EXPECT_TRUE(IsTailOf("b/c.txt", "in/b/c.txt"));
  EXPECT_TRUE(IsTailOf("c.txt", "c.txt"));
  EXPECT_TRUE(IsTailOf("b/c.txt", "./in//b/./c.txt"));
  EXPECT_FALSE(IsTailOf("x/c.txt", "in/b/c.txt"));
  EXPECT_FALSE(IsTailOf("in/b/c.txt", "b/c.txt"));
  EXPECT_FALSE(IsTailOf("c.txt", "in/bc.txt"));
}

TEST(KeptFolderTest, OpenMakesDirWithMode0700AndRefusesALink) {
  TempDir dir;
  Result<KeptFolder> made = KeptFolder::Open(dir / "a/kept/");
  ASSERT_TRUE(made.ok()) << made.status().message();
  struct stat st {};
  ASSERT_EQ(::stat((dir / "a/kept").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u);
  fs::create_directory_symlink(dir / "a/kept", dir / "link");
  for (const std::string& name : {dir / "link", dir / "link/"}) {
    Result<KeptFolder> linked = KeptFolder::Open(name);
    EXPECT_FALSE(linked.ok()) << name;
  }
}

TEST(KeptFolderTest, PlaceMakesFoldersWithTheInputFoldersModes) {
  TempDir dir;
  WriteFile(dir / "in/p/q/f.txt", "x");
  ::chmod((dir / "in/p").c_str(), 0700);
  ::chmod((dir / "in/p/q").c_str(), 0750);
  Result<KeptFolder> kept = KeptFolder::Open(dir / "kept");
  ASSERT_TRUE(kept.ok());
  Result<KeptPlace> place = kept->Place("p/q/f.txt", dir / "in/p/q/f.txt");
  ASSERT_TRUE(place.ok()) << place.status().message();
  EXPECT_EQ(place->name, "f.txt");
  EXPECT_EQ(place->path, dir / "kept/p/q/f.txt");
  const mode_t mask = ::umask(022);
  ::umask(mask);
  struct stat st {};
  ASSERT_EQ(::stat((dir / "kept/p").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u & ~mask);
  ASSERT_EQ(::stat((dir / "kept/p/q").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0750u & ~mask);
  EXPECT_FALSE(kept->Place("../f.txt", dir / "in/p/q/f.txt").ok());
}

// The checks of LinksInDirAreNeverFollowed, with or without openat2().
void CheckLinksAreNeverFollowed() {
  TempDir dir;
  WriteFile(dir / "outside/f.txt", "outside");
  WriteFile(dir / "outside/in/g.txt", "outside");
  Result<KeptFolder> kept = KeptFolder::Open(dir / "kept");
  ASSERT_TRUE(kept.ok());
  fs::create_directory_symlink(dir / "outside", dir / "kept/sub");
  fs::create_symlink(dir / "outside/f.txt", dir / "kept/f.txt");
  fs::create_directories(dir / "kept/real");
  fs::create_directory_symlink(dir / "outside/in", dir / "kept/real/in");
  for (const std::string rel : {"sub/f.txt", "sub/deeper/f.txt", "real/in/g.txt", "real/in/new/g.txt"}) {
    Result<KeptPlace> place = kept->Place(rel, rel);
    ASSERT_FALSE(place.ok()) << rel;
    EXPECT_NE(place.status().message().find("is a symbolic link or not a folder"), std::string::npos)
        << place.status().message();
    EXPECT_TRUE(kept->RemoveFile(rel).ok()) << rel;
  }
  EXPECT_FALSE(fs::exists(dir / "outside/deeper"));
  EXPECT_FALSE(fs::exists(dir / "outside/in/new"));
  EXPECT_TRUE(kept->RemoveFile("f.txt").ok());
  EXPECT_TRUE(fs::is_symlink(dir / "kept/f.txt"));
  EXPECT_EQ(testing::ReadFile(dir / "outside/f.txt"), "outside");
  EXPECT_EQ(testing::ReadFile(dir / "outside/in/g.txt"), "outside");
  WriteFile(dir / "kept/real/g.txt", "mine");
  EXPECT_TRUE(kept->RemoveFile("real/g.txt").ok());
  EXPECT_FALSE(fs::exists(dir / "kept/real/g.txt"));
  Result<KeptPlace> made = kept->Place("real/new/deeper/h.txt", "h.txt");
  ASSERT_TRUE(made.ok()) << made.status().message();
  EXPECT_TRUE(fs::is_directory(dir / "kept/real/new/deeper"));
}

TEST(KeptFolderTest, LinksInDirAreNeverFollowed) { CheckLinksAreNeverFollowed(); }

TEST(KeptFolderTest, LinksInDirAreNeverFollowedWithoutOpenat2) {
  SetTryOpenat2(false);
  CheckLinksAreNeverFollowed();
  SetTryOpenat2(true);
}

}  // namespace
}  // namespace neardup
