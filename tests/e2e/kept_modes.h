// A check for every test that writes --kept-dir DIR (scan or stage filter):
// nothing in DIR has a permission wider than what it mirrors, and nothing
// has a setuid, setgid or sticky bit.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

namespace neardup::testing {

// Walks `kept` (no link followed) and checks each entry against the entry at
// the same path below the first of `inputs` that has one:
//  - no setuid, setgid or sticky bit, anywhere, and no symbolic link;
//  - a file: no permission bit its input lacks;
//  - a folder: no group or other bit its input folder lacks (the writer
//    keeps write and search on the folders it makes, which are its own);
//  - DIR itself, when the run made it (`made`): no group or other bit.
// An entry without an input (none at that path) is checked for the special
// bits alone.
inline void ExpectNoWiderModes(const std::string& kept, const std::vector<std::string>& inputs, bool made) {
  namespace fs = std::filesystem;
  struct stat st {};
  ASSERT_EQ(::lstat(kept.c_str(), &st), 0) << kept;
  EXPECT_TRUE(S_ISDIR(st.st_mode)) << kept;
  EXPECT_EQ(st.st_mode & 07000, 0u) << kept;
  if (made) {
    EXPECT_EQ(st.st_mode & 077, 0u) << kept << " made with mode " << std::oct << (st.st_mode & 07777);
  }
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(kept, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string rel = fs::relative(it->path(), kept).string();
    ASSERT_EQ(::lstat(it->path().c_str(), &st), 0) << rel;
    EXPECT_FALSE(S_ISLNK(st.st_mode)) << rel << " is a symbolic link";
    EXPECT_EQ(st.st_mode & 07000, 0u) << rel << " has mode " << std::oct << (st.st_mode & 07777);
    for (const std::string& in : inputs) {
      struct stat from {};
      if (::stat((in + "/" + rel).c_str(), &from) != 0) continue;
      const mode_t mask = S_ISDIR(st.st_mode) ? 077 : 0777;
      EXPECT_EQ(st.st_mode & mask & ~from.st_mode, 0u)
          << rel << " has mode " << std::oct << (st.st_mode & 07777) << ", its input " << (from.st_mode & 07777);
      break;
    }
  }
}

}  // namespace neardup::testing
