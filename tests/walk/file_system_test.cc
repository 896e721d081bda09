#include "walk/file_system.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "compress_util.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Gzip;
using testing::Zstd;

// A temporary directory, removed at the end.
class TempDir {
 public:
  std::string Path(const std::string& name) const { return dir_ / name; }

 private:
  testing::TempDir dir_;
};

void WriteFile(const std::string& path, const std::string& bytes) {
  testing::WriteFile(path, bytes);
  ASSERT_EQ(testing::ReadFile(path), bytes) << path;
}

// Text that compresses well, mixed with pseudo-random bytes that do not, so
// the compressed stream spans many input buffers and blocks.
std::string TestData(size_t size) {
  std::string out;
  out.reserve(size);
  uint64_t state = 0x9E3779B97F4A7C15u;
  while (out.size() < size) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    if ((state >> 60) == 0) {
      out += "the quick brown fox jumps over the lazy dog ";
    } else {
      for (int i = 0; i < 8 && out.size() < size; ++i) {
        out += static_cast<char>(state >> (8 * i));
      }
    }
  }
  out.resize(size);
  return out;
}

// zlib format (not gzip), from compress2().
std::string Zlib(const std::string& data) {
  uLongf size = compressBound(static_cast<uLong>(data.size()));
  std::string out(size, '\0');
  EXPECT_EQ(compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(data.data()),
                      static_cast<uLong>(data.size()), 6),
            Z_OK);
  out.resize(size);
  return out;
}

// Reads `reader` to its end in chunks of `chunk` bytes, or returns its error.
Result<std::string> ReadAll(ByteReader& reader, size_t chunk) {
  std::string out;
  std::vector<char> buf(chunk);
  while (true) {
    Result<size_t> got = reader.Read(buf.data(), chunk);
    if (!got.ok()) return got.status();
    EXPECT_LE(*got, chunk);
    if (*got == 0) return out;
    out.append(buf.data(), *got);
  }
}

Result<std::string> ReadPath(const std::string& path, size_t chunk) {
  Result<std::unique_ptr<ByteReader>> reader = OpenInput(FileSystem::Default(), path);
  if (!reader.ok()) return reader.status();
  return ReadAll(**reader, chunk);
}

// Serves fixed bytes, then fails with IoError (when `fail` is set).
class FakeReader : public ByteReader {
 public:
  FakeReader(std::string bytes, bool fail) : bytes_(std::move(bytes)), fail_(fail) {}
  Result<size_t> Read(char* buf, size_t n) override {
    if (pos_ == bytes_.size()) {
      if (fail_) return Status::IoError("fake: Input/output error");
      return size_t{0};
    }
    const size_t count = std::min(n, bytes_.size() - pos_);
    bytes_.copy(buf, count, pos_);
    pos_ += count;
    return count;
  }

 private:
  std::string bytes_;
  size_t pos_ = 0;
  bool fail_;
};

TEST(FileSystemTest, ReadsPlainFileInOddChunkSizes) {
  TempDir dir;
  const std::string data = TestData(700'001);
  WriteFile(dir.Path("a.txt"), data);
  for (size_t chunk : {size_t{1} << 20, size_t{262'145}, size_t{4093}, size_t{7}}) {
    Result<std::string> got = ReadPath(dir.Path("a.txt"), chunk);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(*got, data) << "chunk " << chunk;
  }
}

// The reader stops without a last read() once a short read reaches the size
// fstat() gave at open; a file that grew since is still read to its end.
TEST(FileSystemTest, FileThatGrewAfterOpenIsReadToItsEnd) {
  TempDir dir;
  WriteFile(dir.Path("grows.txt"), "first part ");
  Result<std::unique_ptr<ByteReader>> reader = OpenInput(FileSystem::Default(), dir.Path("grows.txt"));
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  {
    std::ofstream out(dir.Path("grows.txt"), std::ios::app | std::ios::binary);
    out << "and the part appended after open";
  }
  for (size_t chunk : {size_t{5}, size_t{4096}}) {
    Result<std::unique_ptr<ByteReader>> again = OpenInput(FileSystem::Default(), dir.Path("grows.txt"));
    ASSERT_TRUE(again.ok());
    Result<std::string> whole = ReadAll(**again, chunk);
    ASSERT_TRUE(whole.ok());
    EXPECT_EQ(*whole, "first part and the part appended after open") << "chunk " << chunk;
  }
  Result<std::string> got = ReadAll(**reader, 4096);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, "first part and the part appended after open");
}

// Files of /proc say their size is 0 and read in short pieces: all is read.
TEST(FileSystemTest, FileOfSizeZeroWithContentIsReadWhole) {
  struct stat st {};
  if (::stat("/proc/self/maps", &st) != 0 || st.st_size != 0) GTEST_SKIP() << "no /proc";
  Result<std::string> got = ReadPath("/proc/self/maps", 1 << 20);
  ASSERT_TRUE(got.ok()) << got.status().message();
  // Every mapping of this process is a line; a test binary has dozens.
  EXPECT_GT(std::count(got->begin(), got->end(), '\n'), 10);
}

// ReadAhead counts from what Read() has consumed.
TEST(FileSystemTest, ReadAheadStartsWhereReadStopped) {
  TempDir dir;
  WriteFile(dir.Path("a.txt"), "0123456789abcdef");
  Result<std::unique_ptr<ByteReader>> reader = OpenInput(FileSystem::Default(), dir.Path("a.txt"));
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE((*reader)->CanReadAhead());
  char buf[8];
  ASSERT_EQ((*reader)->Read(buf, 4).value(), 4u);
  Result<size_t> ahead = (*reader)->ReadAhead(2, buf, 3);
  ASSERT_TRUE(ahead.ok());
  EXPECT_EQ(std::string(buf, *ahead), "678");
  Result<std::string> rest = ReadAll(**reader, 64);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(*rest, "456789abcdef");
}

TEST(FileSystemTest, ReadsEmptyFile) {
  TempDir dir;
  WriteFile(dir.Path("empty.txt"), "");
  Result<std::string> got = ReadPath(dir.Path("empty.txt"), 16);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, "");
}

TEST(FileSystemTest, MissingFileIsNotFoundWithPath) {
  TempDir dir;
  const std::string path = dir.Path("missing.txt");
  Result<std::unique_ptr<ByteReader>> reader = FileSystem::Default().Open(path);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(reader.status().message(), path + ": No such file or directory");

  Result<FileStat> stat = FileSystem::Default().Stat(path);
  ASSERT_FALSE(stat.ok());
  EXPECT_EQ(stat.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(stat.status().message(), path + ": No such file or directory");
}

TEST(FileSystemTest, MissingCompressedFileIsNotFound) {
  TempDir dir;
  Result<std::unique_ptr<ByteReader>> reader = OpenInput(FileSystem::Default(), dir.Path("missing.gz"));
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), Status::Code::kNotFound);
}

// As root the open is made by a child running as nobody: root reads any file.
TEST(FileSystemTest, UnreadableFileIsIoError) {
  TempDir dir;
  const std::string path = dir.Path("locked.txt");
  WriteFile(path, "secret");
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  testing::OpenToEveryone(std::filesystem::path(path).parent_path().string());
  const std::string got = testing::RunUnprivileged([&] {
    Result<std::unique_ptr<ByteReader>> reader = FileSystem::Default().Open(path);
    if (reader.ok()) return std::string("opened");
    return std::string(reader.status().code() == Status::Code::kIoError ? "IoError: " : "other: ") +
           reader.status().message();
  });
  EXPECT_EQ(got, "IoError: " + path + ": Permission denied");
}

TEST(FileSystemTest, DirectoryIsIoError) {
  TempDir dir;
  const std::string path = dir.Path("sub");
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  // Open checks what it opened with fstat().
  Result<std::unique_ptr<ByteReader>> reader = FileSystem::Default().Open(path);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), Status::Code::kIoError);
  EXPECT_EQ(reader.status().message(), path + ": Is a directory");
}

FileIdentity IdentityOf(const std::string& path, bool stream = false) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  FileIdentity id;
  id.dev = static_cast<uint64_t>(st.st_dev);
  id.ino = static_cast<uint64_t>(st.st_ino);
  id.stream = stream;
  return id;
}

// A file replaced by a FIFO after the walk: opening must neither block (no
// writer will ever come) nor read it; it is reported as changed.
TEST(FileSystemTest, FileReplacedByFifoIsChangedAndNeverWaitedOn) {
  TempDir dir;
  const std::string path = dir.Path("a.txt");
  WriteFile(path, "some text");
  const FileIdentity seen = IdentityOf(path);
  ASSERT_EQ(::unlink(path.c_str()), 0);
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
  Result<std::unique_ptr<ByteReader>> reader = FileSystem::Default().OpenExpected(path, seen);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), Status::Code::kChanged);
  // The FIFO may even reuse the file's inode number: the type check catches it then.
  EXPECT_TRUE(reader.status().message() == path + ": replaced since it was listed (another file is there now)" ||
              reader.status().message() == path + ": no longer a regular file since it was listed")
      << reader.status().message();
  // Without an identity to compare, a FIFO is still refused at once.
  Result<std::unique_ptr<ByteReader>> plain = FileSystem::Default().Open(path);
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.status().message(), path + ": not a regular file");
}

TEST(FileSystemTest, FileReplacedByAnotherFileIsChanged) {
  TempDir dir;
  const std::string path = dir.Path("a.txt");
  WriteFile(path, "old text");
  const FileIdentity seen = IdentityOf(path);
  WriteFile(dir.Path("b.txt"), "new text");
  ASSERT_EQ(::rename(dir.Path("b.txt").c_str(), path.c_str()), 0);
  Result<std::unique_ptr<ByteReader>> reader = FileSystem::Default().OpenExpected(path, seen);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), Status::Code::kChanged);
}

// Files listed by the walk are opened relative to the last directory opened
// (held from the second file in a row there); a directory moved away and
// replaced since must not give the old files.
TEST(FileSystemTest, DirectoryReplacedBetweenOpensGivesTheNewFiles) {
  TempDir dir;
  const std::string sub = dir.Path("sub");
  ASSERT_TRUE(std::filesystem::create_directory(sub));
  WriteFile(sub + "/a.txt", "old a");
  WriteFile(sub + "/b.txt", "old b");
  for (const char* name : {"/a.txt", "/b.txt"}) {
    Result<std::unique_ptr<ByteReader>> first = OpenInput(FileSystem::Default(), sub + name, IdentityOf(sub + name));
    ASSERT_TRUE(first.ok()) << first.status().message();
  }
  ASSERT_EQ(::rename(sub.c_str(), dir.Path("moved").c_str()), 0);
  ASSERT_TRUE(std::filesystem::create_directory(sub));
  WriteFile(sub + "/b.txt", "new b");
  WriteFile(sub + "/c.txt", "new c");
  for (const char* name : {"/b.txt", "/c.txt"}) {
    Result<std::unique_ptr<ByteReader>> again = OpenInput(FileSystem::Default(), sub + name, IdentityOf(sub + name));
    ASSERT_TRUE(again.ok()) << again.status().message();
    Result<std::string> got = ReadAll(**again, 64);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, std::string("new ") + name[1]);
  }
  // And the moved directory's file, by its new path.
  const std::string moved_b = dir.Path("moved") + "/b.txt";
  Result<std::unique_ptr<ByteReader>> moved = OpenInput(FileSystem::Default(), moved_b, IdentityOf(moved_b));
  ASSERT_TRUE(moved.ok()) << moved.status().message();
  Result<std::string> got = ReadAll(**moved, 64);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, "old b");
}

// Exact verification reads the documents of a group of pairs together, from
// any folder: files opened in turn from two folders, some twice in a row
// from one, are each the file named, whatever folder the one before lay in.
TEST(FileSystemTest, FilesOpenedInTurnFromTwoFoldersAreEachTheOneNamed) {
  TempDir dir;
  for (const char* sub : {"x", "y"}) {
    ASSERT_TRUE(std::filesystem::create_directory(dir.Path(sub)));
    for (const char* name : {"a", "b", "c"}) WriteFile(dir.Path(sub) + "/" + name, std::string(sub) + name);
  }
  const std::vector<std::string> order = {"x/a", "y/a", "x/b", "x/c", "y/b", "y/c", "x/a", "y/a", "y/b"};
  for (const std::string& rel : order) {
    const std::string path = dir.Path(rel);
    Result<std::unique_ptr<ByteReader>> in = OpenInput(FileSystem::Default(), path, IdentityOf(path));
    ASSERT_TRUE(in.ok()) << in.status().message();
    Result<std::string> got = ReadAll(**in, 64);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, std::string(1, rel[0]) + rel[2]) << rel;
  }
}

TEST(FileSystemTest, UnchangedFileOpensAndReadsBlocking) {
  TempDir dir;
  const std::string path = dir.Path("a.txt");
  WriteFile(path, "some text");
  Result<std::unique_ptr<ByteReader>> reader = OpenInput(FileSystem::Default(), path, IdentityOf(path));
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  char buf[64];
  Result<size_t> got = (*reader)->Read(buf, sizeof buf);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(std::string(buf, *got), "some text");
}

// A FIFO named explicitly (a stream) is opened blocking and read to its end.
TEST(FileSystemTest, ExpectedStreamFifoIsRead) {
  TempDir dir;
  const std::string path = dir.Path("fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
  const FileIdentity seen = IdentityOf(path, /*stream=*/true);
  std::thread writer([&] {
    std::ofstream out(path, std::ios::binary);
    out << "streamed text";
  });
  Result<std::unique_ptr<ByteReader>> reader = FileSystem::Default().OpenExpected(path, seen);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  std::string all;
  char buf[4];
  for (;;) {
    Result<size_t> got = (*reader)->Read(buf, sizeof buf);
    ASSERT_TRUE(got.ok());
    if (*got == 0) break;
    all.append(buf, *got);
  }
  writer.join();
  EXPECT_EQ(all, "streamed text");
}

TEST(FileSystemTest, DecompressedLargerThanCountsDecompressedBytes) {
  TempDir dir;
  const std::string path = dir.Path("big.gz");
  WriteFile(path, Gzip(std::string(100000, 'a')));
  const FileIdentity id = IdentityOf(path);
  Result<bool> over = DecompressedLargerThan(FileSystem::Default(), path, id, 99999);
  ASSERT_TRUE(over.ok());
  EXPECT_TRUE(*over);
  over = DecompressedLargerThan(FileSystem::Default(), path, id, 100000);
  ASSERT_TRUE(over.ok());
  EXPECT_FALSE(*over);
  // An uncompressed name is never read: the walk compared its size.
  WriteFile(dir.Path("plain.txt"), std::string(100, 'a'));
  over = DecompressedLargerThan(FileSystem::Default(), dir.Path("plain.txt"), IdentityOf(dir.Path("plain.txt")), 10);
  ASSERT_TRUE(over.ok());
  EXPECT_FALSE(*over);
}

TEST(FileSystemTest, StatGivesSizeAndMtimeThroughSymlinks) {
  TempDir dir;
  const std::string path = dir.Path("a.txt");
  WriteFile(path, "12345");
  const struct timespec times[2] = {{1'600'000'000, 123'456'789}, {1'700'000'000, 987'654'321}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  ASSERT_EQ(::symlink(path.c_str(), dir.Path("link").c_str()), 0);
  for (const std::string& p : {path, dir.Path("link")}) {
    Result<FileStat> stat = FileSystem::Default().Stat(p);
    ASSERT_TRUE(stat.ok()) << stat.status().message();
    EXPECT_EQ(stat->size, 5u);
    EXPECT_EQ(stat->mtime_ns, int64_t{1'700'000'000'987'654'321});
  }
}

TEST(FileSystemTest, StatGivesTheTypeAndALinkLoopIsNotFound) {
  TempDir dir;
  WriteFile(dir.Path("a.txt"), "x");
  ASSERT_EQ(::mkdir(dir.Path("d").c_str(), 0755), 0);
  ASSERT_EQ(::mkfifo(dir.Path("fifo").c_str(), 0600), 0);
  ASSERT_EQ(::symlink("loop", dir.Path("loop").c_str()), 0);
  FileSystem& fs = FileSystem::Default();
  EXPECT_EQ(fs.Stat(dir.Path("a.txt"))->type, FileType::kRegular);
  EXPECT_EQ(fs.Stat(dir.Path("d"))->type, FileType::kDirectory);
  EXPECT_EQ(fs.Stat(dir.Path("fifo"))->type, FileType::kOther);
  Result<FileStat> loop = fs.Stat(dir.Path("loop"));
  ASSERT_FALSE(loop.ok());
  EXPECT_EQ(loop.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(loop.status().message(), dir.Path("loop") + ": Too many levels of symbolic links");
}

TEST(FileSystemTest, OpenDirListsNamesWithTypesAndStatsEntries) {
  TempDir dir;
  const std::string root = dir.Path("r");
  ASSERT_EQ(::mkdir(root.c_str(), 0755), 0);
  WriteFile(root + "/a.txt", "12345");
  ASSERT_EQ(::mkdir((root + "/sub").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("a.txt", (root + "/link").c_str()), 0);
  ASSERT_EQ(::symlink("nothing", (root + "/dangling").c_str()), 0);
  Result<std::unique_ptr<Directory>> d = FileSystem::Default().OpenDir(root, /*follow_symlink=*/false);
  ASSERT_TRUE(d.ok()) << d.status().message();
  std::vector<DirEntry> entries;
  ASSERT_TRUE((*d)->List(&entries).ok());
  std::sort(entries.begin(), entries.end(), [](const DirEntry& x, const DirEntry& y) { return x.name < y.name; });
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].name, "a.txt");
  EXPECT_EQ(entries[1].name, "dangling");
  EXPECT_EQ(entries[2].name, "link");
  EXPECT_EQ(entries[3].name, "sub");
  // A listing may leave the type unknown; when it gives one, it is right.
  const FileType want[] = {FileType::kRegular, FileType::kSymlink, FileType::kSymlink, FileType::kDirectory};
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].type != FileType::kUnknown) {
      EXPECT_EQ(entries[i].type, want[i]) << entries[i].name;
    }
  }
  // The link itself, then its target.
  Result<FileStat> own = (*d)->StatEntry("link", /*follow_symlink=*/false);
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(own->type, FileType::kSymlink);
  Result<FileStat> target = (*d)->StatEntry("link", /*follow_symlink=*/true);
  ASSERT_TRUE(target.ok());
  EXPECT_EQ(target->type, FileType::kRegular);
  EXPECT_EQ(target->size, 5u);
  const Result<FileStat> direct = FileSystem::Default().Stat(root + "/a.txt");
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(*target, direct.value());
  // Errors name the entry by its full path.
  Result<FileStat> dangling = (*d)->StatEntry("dangling", /*follow_symlink=*/true);
  ASSERT_FALSE(dangling.ok());
  EXPECT_EQ(dangling.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(dangling.status().message(), root + "/dangling: No such file or directory");
}

TEST(FileSystemTest, OpenDirFailsOnMissingPathsFilesAndUnfollowedLinks) {
  TempDir dir;
  WriteFile(dir.Path("f.txt"), "x");
  ASSERT_EQ(::mkdir(dir.Path("d").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("d", dir.Path("dlink").c_str()), 0);
  FileSystem& fs = FileSystem::Default();
  Result<std::unique_ptr<Directory>> missing = fs.OpenDir(dir.Path("missing"), true);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(missing.status().message(), dir.Path("missing") + ": No such file or directory");
  Result<std::unique_ptr<Directory>> file = fs.OpenDir(dir.Path("f.txt"), true);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().message(), dir.Path("f.txt") + ": Not a directory");
  EXPECT_TRUE(fs.OpenDir(dir.Path("dlink"), /*follow_symlink=*/true).ok());
  EXPECT_FALSE(fs.OpenDir(dir.Path("dlink"), /*follow_symlink=*/false).ok());
}

TEST(GzipReaderTest, RoundTripsInOddChunkSizes) {
  TempDir dir;
  const std::string data = TestData(1'500'000);
  const std::string compressed = Gzip(data);
  ASSERT_GT(compressed.size(), 300'000u);  // spans several 256 KiB input buffers
  WriteFile(dir.Path("a.txt.gz"), compressed);
  for (size_t chunk : {size_t{1} << 20, size_t{65'537}, size_t{4093}, size_t{13}}) {
    Result<std::string> got = ReadPath(dir.Path("a.txt.gz"), chunk);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(*got, data) << "chunk " << chunk;
  }
}

TEST(GzipReaderTest, OneByteReadsOfHighlyCompressedData) {
  TempDir dir;
  const std::string data(200'000, 'x');
  WriteFile(dir.Path("x.gz"), Gzip(data));
  Result<std::string> got = ReadPath(dir.Path("x.gz"), 1);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, data);
}

TEST(GzipReaderTest, ReadsConcatenatedMembers) {
  TempDir dir;
  const std::string big = TestData(300'000);
  WriteFile(dir.Path("cat.gz"), Gzip("hello ") + Gzip("") + Gzip("world\n") + Gzip(big));
  for (size_t chunk : {size_t{1} << 16, size_t{3}}) {
    Result<std::string> got = ReadPath(dir.Path("cat.gz"), chunk);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(*got, "hello world\n" + big);
  }
}

TEST(GzipReaderTest, AcceptsZlibFormat) {
  TempDir dir;
  const std::string data = TestData(50'000);
  WriteFile(dir.Path("z.gz"), Zlib(data));
  Result<std::string> got = ReadPath(dir.Path("z.gz"), 4096);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, data);
}

TEST(GzipReaderTest, TruncatedStreamIsCorrupt) {
  TempDir dir;
  const std::string compressed = Gzip(TestData(400'000));
  const std::string path = dir.Path("t.gz");
  // Cut inside the header, inside the data, and just before the last trailer byte.
  for (size_t keep : {size_t{5}, compressed.size() / 2, compressed.size() - 1}) {
    WriteFile(path, compressed.substr(0, keep));
    Result<std::string> got = ReadPath(path, 4096);
    ASSERT_FALSE(got.ok()) << "keep " << keep;
    EXPECT_EQ(got.status().code(), Status::Code::kCorrupt);
    EXPECT_EQ(got.status().message(), path + ": truncated gzip stream") << "keep " << keep;
  }
}

TEST(GzipReaderTest, EmptyFileIsCorrupt) {
  TempDir dir;
  WriteFile(dir.Path("e.gz"), "");
  Result<std::string> got = ReadPath(dir.Path("e.gz"), 4096);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Status::Code::kCorrupt);
}

TEST(GzipReaderTest, GarbageIsCorruptAndErrorIsSticky) {
  auto reader = GzipReader(std::make_unique<FakeReader>("this is not gzip data at all", false), "g.gz");
  char buf[64];
  Result<size_t> first = reader->Read(buf, sizeof buf);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().code(), Status::Code::kCorrupt);
  EXPECT_EQ(first.status().message().rfind("g.gz: invalid gzip data", 0), 0u) << first.status().message();
  Result<size_t> second = reader->Read(buf, sizeof buf);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(), first.status().message());
}

TEST(GzipReaderTest, TrailingGarbageAfterMemberIsCorrupt) {
  auto reader = GzipReader(std::make_unique<FakeReader>(Gzip("hello") + "junk!junk!", false), "g.gz");
  Result<std::string> got = ReadAll(*reader, 4096);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Status::Code::kCorrupt);
}

TEST(GzipReaderTest, InnerReadErrorPropagates) {
  const std::string compressed = Gzip(TestData(100'000));
  auto reader = GzipReader(std::make_unique<FakeReader>(compressed.substr(0, compressed.size() / 2), true), "g.gz");
  Result<std::string> got = ReadAll(*reader, 4096);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Status::Code::kIoError);
  EXPECT_EQ(got.status().message(), "fake: Input/output error");
}

TEST(ZstdReaderTest, RoundTripsInOddChunkSizes) {
  TempDir dir;
  const std::string data = TestData(1'500'000);
  const std::string compressed = Zstd(data);
  ASSERT_GT(compressed.size(), 300'000u);
  WriteFile(dir.Path("a.txt.zst"), compressed);
  for (size_t chunk : {size_t{1} << 20, size_t{65'537}, size_t{4093}, size_t{13}}) {
    Result<std::string> got = ReadPath(dir.Path("a.txt.zst"), chunk);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(*got, data) << "chunk " << chunk;
  }
}

TEST(ZstdReaderTest, OneByteReadsOfHighlyCompressedData) {
  TempDir dir;
  const std::string data(200'000, 'x');
  WriteFile(dir.Path("x.zst"), Zstd(data));
  Result<std::string> got = ReadPath(dir.Path("x.zst"), 1);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, data);
}

TEST(ZstdReaderTest, ReadsConcatenatedFrames) {
  TempDir dir;
  const std::string big = TestData(300'000);
  WriteFile(dir.Path("cat.zst"), Zstd("hello ") + Zstd("") + Zstd("world\n") + Zstd(big));
  for (size_t chunk : {size_t{1} << 16, size_t{3}}) {
    Result<std::string> got = ReadPath(dir.Path("cat.zst"), chunk);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(*got, "hello world\n" + big);
  }
}

TEST(ZstdReaderTest, TruncatedStreamIsCorrupt) {
  TempDir dir;
  const std::string compressed = Zstd(TestData(400'000));
  const std::string path = dir.Path("t.zst");
  for (size_t keep : {size_t{0}, size_t{3}, compressed.size() / 2, compressed.size() - 1}) {
    WriteFile(path, compressed.substr(0, keep));
    Result<std::string> got = ReadPath(path, 4096);
    ASSERT_FALSE(got.ok()) << "keep " << keep;
    EXPECT_EQ(got.status().code(), Status::Code::kCorrupt);
    EXPECT_EQ(got.status().message(), path + ": truncated zstd stream") << "keep " << keep;
  }
}

TEST(ZstdReaderTest, GarbageIsCorrupt) {
  auto reader = ZstdReader(std::make_unique<FakeReader>("this is not zstd data at all", false), "g.zst");
  char buf[64];
  Result<size_t> got = reader->Read(buf, sizeof buf);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Status::Code::kCorrupt);
  EXPECT_EQ(got.status().message().rfind("g.zst: invalid zstd data", 0), 0u) << got.status().message();
}

TEST(OpenInputTest, DecompressesOnlyByExtension) {
  TempDir dir;
  const std::string gz = Gzip("hello");
  const std::string zst = Zstd("hello");
  WriteFile(dir.Path("a.gz"), gz);
  WriteFile(dir.Path("a.gz.txt"), gz);
  WriteFile(dir.Path("a.zst"), zst);
  WriteFile(dir.Path("a.zstd"), zst);

  Result<std::string> got = ReadPath(dir.Path("a.gz"), 64);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, "hello");
  got = ReadPath(dir.Path("a.gz.txt"), 64);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, gz);
  got = ReadPath(dir.Path("a.zst"), 64);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, "hello");
  got = ReadPath(dir.Path("a.zstd"), 64);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, zst);
}

}  // namespace
}  // namespace neardup
