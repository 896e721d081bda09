#include "sign/document.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace neardup {
namespace {

// Serves a string in slices of `step` bytes; fails after `fail_after` bytes.
class SliceReader : public ByteReader {
 public:
  SliceReader(std::string data, size_t step, size_t fail_after = SIZE_MAX)
      : data_(std::move(data)), step_(step), fail_after_(fail_after) {}
  Result<size_t> Read(char* buf, size_t n) override {
    if (pos_ >= fail_after_) return Status::IoError("slice: Input/output error");
    const size_t take = std::min({n, step_, data_.size() - pos_});
    std::copy_n(data_.data() + pos_, take, buf);
    pos_ += take;
    return take;
  }

 private:
  std::string data_;
  size_t step_;
  size_t fail_after_;
  size_t pos_ = 0;
};

Options Defaults() { return Options(); }

std::string Utf16Le(const std::u16string& s) {
  std::string out = "\xff\xfe";
  for (char16_t c : s) {
    out.push_back(static_cast<char>(c & 0xff));
    out.push_back(static_cast<char>(c >> 8));
  }
  return out;
}

TEST(DocumentReaderTest, StreamInOddSlicesEqualsTextInMemory) {
  const Options o = Defaults();
  const MinHasher mh(o.num_perm, o.seed);
  DocumentReader reader(o, mh);
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "Wört" + std::to_string(i % 97) + " naïve, ";
  std::vector<uint32_t> a(128), b(128);
  DocumentSketch sa, sb;
  reader.ReadText(text, a.data(), nullptr, &sa);
  SliceReader in(text, 7);
  ASSERT_TRUE(reader.ReadStream(in, b.data(), nullptr, &sb).ok());
  EXPECT_EQ(a, b);
  EXPECT_EQ(sa.content, sb.content);
  EXPECT_EQ(sa.words, 6000u);
  EXPECT_EQ(sb.bytes, text.size());
  EXPECT_EQ(sb.kind, DocumentSketch::Kind::kOk);
}

TEST(DocumentReaderTest, Utf16WithBomReadsLikeUtf8) {
  const Options o = Defaults();
  const MinHasher mh(o.num_perm, o.seed);
  DocumentReader reader(o, mh);
  std::vector<uint32_t> a(128), b(128);
  DocumentSketch sa, sb;
  reader.ReadText("Grüße aus Köln, sagt der Bäcker am Morgen.", a.data(), nullptr, &sa);
  SliceReader in(Utf16Le(u"Grüße aus Köln, sagt der Bäcker am Morgen."), 3);
  ASSERT_TRUE(reader.ReadStream(in, b.data(), nullptr, &sb).ok());
  EXPECT_EQ(a, b);
  EXPECT_TRUE(sb.transcoded);
}

TEST(DocumentReaderTest, NulInFirstBlockIsBinaryButLaterNulIsText) {
  const Options o = Defaults();
  const MinHasher mh(o.num_perm, o.seed);
  DocumentReader reader(o, mh);
  std::vector<uint32_t> sig(128);
  DocumentSketch sk;
  SliceReader bin(std::string("PK\x03\x04\0\0 data", 12), 5);
  ASSERT_TRUE(reader.ReadStream(bin, sig.data(), nullptr, &sk).ok());
  EXPECT_EQ(sk.kind, DocumentSketch::Kind::kBinary);
  std::string late(DocumentReader::kBinaryProbe + 10, 'a');
  late[DocumentReader::kBinaryProbe + 5] = '\0';
  SliceReader text(late, 4096);
  ASSERT_TRUE(reader.ReadStream(text, sig.data(), nullptr, &sk).ok());
  EXPECT_EQ(sk.kind, DocumentSketch::Kind::kOk);
  EXPECT_EQ(sk.words, 2u);
}

TEST(DocumentReaderTest, ReadErrorIsReturned) {
  const Options o = Defaults();
  const MinHasher mh(o.num_perm, o.seed);
  DocumentReader reader(o, mh);
  std::vector<uint32_t> sig(128);
  DocumentSketch sk;
  SliceReader in(std::string(200000, 'x'), 1000, 70000);
  const Status s = reader.ReadStream(in, sig.data(), nullptr, &sk);
  EXPECT_EQ(s.code(), Status::Code::kIoError);
}

TEST(DocumentReaderTest, EmptyAndShortDocumentsAreClassified) {
  Options o = Defaults();
  o.min_words = 3;
  const MinHasher mh(o.num_perm, o.seed);
  DocumentReader reader(o, mh);
  std::vector<uint32_t> sig(128);
  DocumentSketch sk;
  reader.ReadText(" -- ... ", sig.data(), nullptr, &sk);
  EXPECT_EQ(sk.kind, DocumentSketch::Kind::kEmpty);
  reader.ReadText("two words", sig.data(), nullptr, &sk);
  EXPECT_EQ(sk.kind, DocumentSketch::Kind::kTooShort);
  reader.ReadText("three whole words", sig.data(), nullptr, &sk);
  EXPECT_EQ(sk.kind, DocumentSketch::Kind::kOk);
}

TEST(DocumentReaderTest, ShingleSetMatchesShingleSetHelper) {
  const Options o = Defaults();
  const MinHasher mh(o.num_perm, o.seed);
  DocumentReader reader(o, mh);
  const std::string text = "one two three four five six seven eight nine ten one two three four five";
  std::vector<uint64_t> set;
  DocumentSketch sk;
  reader.ReadText(text, nullptr, &set, &sk);
  EXPECT_EQ(set, ShingleSet(text, ShingleUnit::kWord, 5, 1));
  EXPECT_EQ(set.size(), 10u);  // 11 windows, "one two three four five" twice
}

// The --exact re-read removes repeats as it goes: a long text of few
// distinct shingles never holds one entry per occurrence.
TEST(DocumentReaderTest, ShingleSetStaysBoundedByDistinctShingles) {
  const Options o = Defaults();
  const MinHasher mh(o.num_perm, o.seed);
  DocumentReader reader(o, mh);
  std::string text;
  for (int i = 0; i < 200000; ++i) text.append("w").append(std::to_string(i % 1000)).append(" ");
  std::vector<uint64_t> set;
  DocumentSketch sk;
  SliceReader in(text, 4096);
  ASSERT_TRUE(reader.ReadStream(in, nullptr, &set, &sk).ok());
  EXPECT_EQ(set, ShingleSet(text, ShingleUnit::kWord, 5, 1));
  EXPECT_EQ(set.size(), 1000u);
  // 200k occurrences; a buffer kept until the end would have 200k capacity.
  EXPECT_LE(set.capacity(), 2 * set.size());
}

TEST(DocumentReaderTest, ReadingStopsPastMaxFilesize) {
  Options o = Defaults();
  o.max_filesize = 100000;
  const MinHasher mh(o.num_perm, o.seed);
  DocumentReader reader(o, mh);
  std::vector<uint32_t> sig(static_cast<size_t>(o.num_perm));
  DocumentSketch sk;
  SliceReader big(std::string(1 << 20, 'a'), 4096);
  ASSERT_TRUE(reader.ReadStream(big, sig.data(), nullptr, &sk).ok());
  EXPECT_EQ(sk.kind, DocumentSketch::Kind::kTooLarge);
  EXPECT_LE(sk.bytes, 100000u + 4096u);  // stopped within one read of the limit
  SliceReader exact(std::string(100000, 'a'), 4096);
  ASSERT_TRUE(reader.ReadStream(exact, sig.data(), nullptr, &sk).ok());
  EXPECT_EQ(sk.kind, DocumentSketch::Kind::kOk);
  EXPECT_EQ(sk.bytes, 100000u);
}

// The distinct-shingle count kept while signing is the size of the shingle
// set that --exact builds from the same text, streamed in any slices.
TEST(DocumentReaderTest, ShinglesCountIsTheSizeOfTheShingleSet) {
  for (const ShingleUnit unit : {ShingleUnit::kWord, ShingleUnit::kChar}) {
    Options o = Defaults();
    o.shingle = unit;
    const MinHasher mh(o.num_perm, o.seed);
    DocumentReader reader(o, mh);
    reader.set_count_shingles(true);
    std::string text;
    for (int i = 0; i < 40000; ++i) {
      text.append("w").append(std::to_string(i * 7919 % 5003)).append(i % 13 == 0 ? ". " : " ");
    }
    std::vector<uint64_t> set;
    DocumentSketch whole, sliced, small;
    reader.ReadText(text, nullptr, &set, &whole);
    EXPECT_EQ(whole.shingles, set.size());
    EXPECT_GT(whole.shingles, 4000u);
    SliceReader in(text, 4099);
    ASSERT_TRUE(reader.ReadStream(in, nullptr, nullptr, &sliced).ok());
    EXPECT_EQ(sliced.shingles, set.size());
    reader.ReadText("a b c d e f a b c d e f", nullptr, &set, &small);
    const uint64_t small_set = set.size();
    reader.ReadText("a b c d e f a b c d e f", nullptr, nullptr, &small);  // counted, after a long one
    EXPECT_EQ(small.shingles, small_set);
    reader.set_count_shingles(false);
    reader.ReadText(text, nullptr, nullptr, &small);
    EXPECT_EQ(small.shingles, 0u);  // not asked
  }
}

}  // namespace
}  // namespace neardup
