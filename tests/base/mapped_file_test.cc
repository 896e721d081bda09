#include "base/mapped_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <utility>

#include "test_util.h"

namespace neardup {
namespace {

using testing::TempDir;
using testing::WriteFile;

// Pages of this process in memory (the second field of /proc/self/statm).
uint64_t ResidentPages() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident;
}

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + i / 4096) & 0xFF);
  return s;
}

TEST(MappedFileTest, GivesTheFilesBytes) {
  TempDir dir;
  const std::string content = Pattern(3 * 4096 + 17);
  WriteFile(dir / "f.bin", content);
  Result<MappedFile> file = MappedFile::Open(dir / "f.bin");
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(file->size(), content.size());
  EXPECT_EQ(file->bytes(), content);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(file->data()) % static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE)), 0u);
  // Hints and releases never change the bytes.
  file->Advise(MappedFile::Access::kSequential);
  file->Release(100, 5000);
  file->Advise(MappedFile::Access::kRandom);
  EXPECT_EQ(file->bytes(), content);
  file->Release(0, SIZE_MAX);
  file->Release(content.size() + 1, 10);
  EXPECT_EQ(file->bytes(), content);
}

TEST(MappedFileTest, EmptyFileMapsToNoBytes) {
  TempDir dir;
  WriteFile(dir / "empty", "");
  Result<MappedFile> file = MappedFile::Open(dir / "empty");
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(file->size(), 0u);
  EXPECT_EQ(file->data(), nullptr);
  EXPECT_TRUE(file->bytes().empty());
  file->Advise(MappedFile::Access::kRandom);
  file->Release(0, 1);
}

TEST(MappedFileTest, MissingFileIsAnIoErrorNamingIt) {
  TempDir dir;
  Result<MappedFile> file = MappedFile::Open(dir / "missing.table");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), Status::Code::kIoError);
  EXPECT_EQ(file.status().message(), (dir / "missing.table") + ": cannot open: No such file or directory");
}

TEST(MappedFileTest, DirectoryIsRefused) {
  TempDir dir;
  Result<MappedFile> file = MappedFile::Open(dir.path());
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), Status::Code::kIoError);
  EXPECT_EQ(file.status().message(), dir.path() + ": cannot map: not a regular file");
}

TEST(MappedFileTest, MovingHandsTheMappingOver) {
  TempDir dir;
  WriteFile(dir / "a", "first file");
  WriteFile(dir / "b", "second");
  Result<MappedFile> a = MappedFile::Open(dir / "a");
  Result<MappedFile> b = MappedFile::Open(dir / "b");
  ASSERT_TRUE(a.ok() && b.ok());
  MappedFile moved(std::move(*a));
  EXPECT_EQ(moved.bytes(), "first file");
  EXPECT_EQ(a->size(), 0u);  // NOLINT(bugprone-use-after-move): moved from is empty
  EXPECT_EQ(a->data(), nullptr);
  moved = std::move(*b);  // unmaps "a"
  EXPECT_EQ(moved.bytes(), "second");
  moved = MappedFile();
  EXPECT_TRUE(moved.bytes().empty());
}

// What the stage report relies on: pages read count in the process's
// memory until released, and read back the same afterwards.
TEST(MappedFileTest, ReleaseLetsGoOfResidentPages) {
  TempDir dir;
  const size_t size = size_t{32} << 20;
  const std::string content = Pattern(size);
  WriteFile(dir / "big", content);
  Result<MappedFile> file = MappedFile::Open(dir / "big");
  ASSERT_TRUE(file.ok()) << file.status().message();
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t file_pages = size / page;

  const uint64_t before = ResidentPages();
  uint64_t sum = 0;
  for (size_t i = 0; i < size; i += page) sum += static_cast<unsigned char>(file->data()[i]);
  const uint64_t touched = ResidentPages();
  EXPECT_GE(touched, before + file_pages * 9 / 10) << sum;
  file->Release(0, size);
  const uint64_t released = ResidentPages();
  EXPECT_LE(released + file_pages * 9 / 10, touched);
  EXPECT_TRUE(file->bytes() == content);
}

}  // namespace
}  // namespace neardup
