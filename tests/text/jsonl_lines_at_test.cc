// JsonlLinesAt: each line read where it starts, through windows that grow
// for a long line, as BlockLines gives it ("\r\n" and a last line without
// "\n" included); nothing where no line of at most max_line bytes starts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "text/document_source.h"

namespace neardup {
namespace {

// Bytes in memory read as a plain file is; counts the bytes read ahead.
class PlainReader : public ByteReader {
 public:
  PlainReader(std::string text, uint64_t* bytes) : text_(std::move(text)), bytes_(bytes) {}
  Result<size_t> Read(char*, size_t) override { return Status::Internal("read ahead only"); }
  bool CanReadAhead() const override { return true; }
  Result<size_t> ReadAhead(uint64_t ahead, char* buf, size_t n) override {
    const uint64_t from = std::min<uint64_t>(ahead, text_.size());
    const size_t k = std::min<size_t>(n, static_cast<size_t>(text_.size() - from));
    std::memcpy(buf, text_.data() + from, k);
    *bytes_ += k;
    return k;
  }

 private:
  std::string text_;
  uint64_t* bytes_;
};

TEST(JsonlLinesAtTest, GivesEachLineWhereItStarts) {
  const std::string longer(200 * 1024, 'x');  // past the widest first window
  const std::vector<std::string> lines = {"{\"a\":1}", "", "second", longer, "crlf\r", "last, no newline"};
  std::string text;
  std::vector<uint64_t> at;
  for (size_t k = 0; k < lines.size(); ++k) {
    at.push_back(text.size());
    text += lines[k];
    if (k + 1 < lines.size()) text += "\n";
  }
  uint64_t bytes = 0;
  JsonlLinesAt in(std::make_unique<PlainReader>(text, &bytes), 0);
  std::string_view got;
  // Out of order, and twice.
  for (const size_t k : {2, 0, 5, 3, 4, 1, 2}) {
    const Result<bool> r = in.At(at[k], &got);
    ASSERT_TRUE(r.ok() && *r) << k;
    EXPECT_EQ(got, k == 4 ? std::string("crlf") : lines[k]) << k;
  }
  EXPECT_FALSE(*in.At(text.size(), &got));       // the end: no line starts there
  EXPECT_FALSE(*in.At(text.size() + 10, &got));  // past it
}

TEST(JsonlLinesAtTest, ReadsAboutTheLinesNotTheBytesBetween) {
  std::string text;
  std::vector<uint64_t> at;
  for (int k = 0; k < 1000; ++k) {
    at.push_back(text.size());
    text += std::string(3000, static_cast<char>('a' + k % 26)) + "\n";
  }
  uint64_t bytes = 0;
  JsonlLinesAt in(std::make_unique<PlainReader>(text, &bytes), 0);
  std::string_view got;
  for (size_t k = 0; k < at.size(); k += 10) {
    ASSERT_TRUE(*in.At(at[k], &got));
    EXPECT_EQ(got.size(), 3000u);
  }
  // 100 lines of 3,001 bytes in a file of 3 MB: windows of a line and a half.
  EXPECT_LE(bytes, 100u * 4700u);
}

TEST(JsonlLinesAtTest, ALineOverMaxLineIsNone) {
  const std::string text = std::string(100, 'y') + "\n" + "short\n" + std::string(5000, 'z');
  uint64_t bytes = 0;
  JsonlLinesAt in(std::make_unique<PlainReader>(text, &bytes), 99);
  std::string_view got;
  EXPECT_FALSE(*in.At(0, &got));
  ASSERT_TRUE(*in.At(101, &got));
  EXPECT_EQ(got, "short");
  EXPECT_FALSE(*in.At(107, &got));  // the last line, without a newline, is too long too
}

}  // namespace
}  // namespace neardup
