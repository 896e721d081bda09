#include "sign/table_codec.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/hash.h"
#include "base/mapped_file.h"
#include "neardup/options.h"
#include "sign/document.h"
#include "sign/minhash.h"
#include "test_util.h"

namespace neardup {
namespace {

uint64_t LoadU64(const std::string& bytes, size_t at) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v |= uint64_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
  return v;
}

uint32_t LoadU32(const std::string& bytes, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v |= uint32_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
  return v;
}

void StoreU64(std::string* bytes, size_t at, uint64_t v) {
  for (size_t i = 0; i < 8; ++i) (*bytes)[at + i] = static_cast<char>(v >> (8 * i));
}

void StoreU32(std::string* bytes, size_t at, uint32_t v) {
  for (size_t i = 0; i < 4; ++i) (*bytes)[at + i] = static_cast<char>(v >> (8 * i));
}

// Rewrites the trailing checksum to match the rest, so that a test reaches
// the structural checks behind it.
// The checksum hashes the body (from byte 88 on) first, the header last.
void FixChecksum(std::string* bytes) {
  const std::string reordered = bytes->substr(88, bytes->size() - 96) + bytes->substr(0, 88);
  StoreU64(bytes, bytes->size() - 8, HashBytes(reordered.data(), reordered.size(), 0));
}

// A table of real signatures: three texts (two near-duplicates) signed by
// DocumentReader, plus documents that were not signed, files of every flag,
// and names that are not UTF-8.
struct Sample {
  SignatureParams params;
  SignatureTable table;
};

Sample MakeSample(int num_perm = 32) {
  Options o;
  o.num_perm = num_perm;
  o.seed = 7;
  const MinHasher mh(o.num_perm, o.seed);
  DocumentReader reader(o, mh);
  Sample s{SignatureParams::From(o), SignatureTable(o.num_perm)};

  InputFile f0;
  f0.path = "corpus/a.txt";
  f0.size = 120;
  f0.mtime_ns = 1700000000123456789;
  f0.ctime_ns = -5;
  f0.identity = {.dev = 2049, .ino = 1234567, .stream = false};
  InputFile f1;
  f1.path = std::string("corpus/\xff\xfe-latin\0name.jsonl", 26);
  f1.size = 9999;
  f1.reference = true;
  f1.identity = {.dev = UINT64_MAX, .ino = 1, .stream = false};
  InputFile f2;
  f2.path = "/dev/stdin";
  f2.identity.stream = true;
  s.table.files = {f0, f1, f2};

  const char* texts[] = {
      "the quick brown fox jumps over the lazy dog while the cat sleeps by the fire",
      "the quick brown fox jumps over the lazy dog while the cat sleeps near the fire",
      "an entirely different sentence about signature tables and their byte layout",
  };
  for (int i = 0; i < 3; ++i) {
    DocRecord d;
    d.name = i == 0 ? "corpus/a.txt" : std::string("corpus/b.jsonl:").append(std::to_string(i));
    d.file = i == 0 ? 0 : 1;
    d.line = i == 0 ? 0 : static_cast<uint64_t>(i);
    // A JSONL line's start, past 32 bits for the second; unknown for a text file.
    d.offset = i == 0 ? kNoOffset : (uint64_t{1} << 33) * static_cast<uint64_t>(i - 1) + 17;
    d.mtime_ns = -1 - i;
    d.reference = i == 2;
    const DocId id = s.table.Add(d);
    DocumentSketch sketch;
    reader.ReadText(texts[i], s.table.MutableSignature(id), nullptr, &sketch);
    s.table.docs[id].size = sketch.bytes;
    s.table.docs[id].content = sketch.content;
    s.table.docs[id].kind = DocKind::kOk;
    s.table.docs[id].shingles = 1000 + static_cast<uint64_t>(i) * (uint64_t{1} << 33);  // past 32 bits: a u64 each
  }
  const DocKind others[] = {DocKind::kEmpty, DocKind::kTooShort, DocKind::kBinary, DocKind::kFailed};
  for (DocKind kind : others) {
    DocRecord d;
    d.name = std::string("odd\xc3(", 5).append(std::to_string(static_cast<int>(kind)));
    d.file = 2;
    d.kind = kind;
    d.content = {.low = 0x1111, .high = 0xFFFFFFFFFFFFFFFF};
    s.table.Add(d);
  }
  return s;
}

std::string Encode(const Sample& s) {
  std::string bytes;
  const Status status = EncodeTo(s.table, s.params, &bytes);
  EXPECT_TRUE(status.ok()) << status.message();
  return bytes;
}

void ExpectSameTable(const SignatureTable& a, const SignatureTable& b) {
  ASSERT_EQ(a.num_perm(), b.num_perm());
  ASSERT_EQ(a.files.size(), b.files.size());
  for (size_t i = 0; i < a.files.size(); ++i) {
    const InputFile& x = a.files[i];
    const InputFile& y = b.files[i];
    EXPECT_EQ(x.path, y.path);
    EXPECT_EQ(x.size, y.size);
    EXPECT_EQ(x.mtime_ns, y.mtime_ns);
    EXPECT_EQ(x.ctime_ns, y.ctime_ns);
    EXPECT_EQ(x.reference, y.reference);
    EXPECT_EQ(x.identity.dev, y.identity.dev);
    EXPECT_EQ(x.identity.ino, y.identity.ino);
    EXPECT_EQ(x.identity.stream, y.identity.stream);
  }
  ASSERT_EQ(a.docs.size(), b.docs.size());
  for (size_t i = 0; i < a.docs.size(); ++i) {
    const DocRecord& x = a.docs[i];
    const DocRecord& y = b.docs[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.file, y.file);
    EXPECT_EQ(x.line, y.line);
    EXPECT_EQ(x.offset, y.offset);
    EXPECT_EQ(x.size, y.size);
    EXPECT_EQ(x.mtime_ns, y.mtime_ns);
    EXPECT_EQ(x.content, y.content);
    EXPECT_EQ(x.shingles, y.shingles);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.reference, y.reference);
  }
  EXPECT_TRUE(std::equal(a.values().begin(), a.values().end(), b.values().begin(), b.values().end()));
}

bool StartsWith(const std::string& s, std::string_view prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

TEST(TableCodecTest, RealTableRoundTrips) {
  const Sample s = MakeSample();
  const std::string bytes = Encode(s);
  Result<DecodedTable> back = DecodeFrom(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->params, s.params);
  ExpectSameTable(back->table, s.table);
  // The near-duplicates still look alike, the other text does not.
  const SignatureTable& t = back->table;
  EXPECT_GT(SignatureAgreement(t.signature(0).data(), t.signature(1).data(), t.num_perm()), 0.3);
  EXPECT_LT(SignatureAgreement(t.signature(0).data(), t.signature(2).data(), t.num_perm()), 0.2);
  EXPECT_EQ(t.signature(3)[0], UINT32_MAX);
  // Canonical: encoding the decoded table gives the same bytes.
  std::string again;
  ASSERT_TRUE(EncodeTo(back->table, back->params, &again).ok());
  EXPECT_EQ(again, bytes);
}

TEST(TableCodecTest, EmptyTableRoundTrips) {
  const SignatureParams params;
  const SignatureTable table(params.num_perm);
  std::string bytes;
  ASSERT_TRUE(EncodeTo(table, params, &bytes).ok());
  EXPECT_EQ(bytes.size(), kTableHeaderSize + 8);
  Result<DecodedTable> back = DecodeFrom(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->params, params);
  EXPECT_EQ(back->table.size(), 0u);
  EXPECT_TRUE(back->table.files.empty());
}

TEST(TableCodecTest, EncodeReplacesTheOutput) {
  const Sample s = MakeSample();
  std::string bytes = "leftover";
  ASSERT_TRUE(EncodeTo(s.table, s.params, &bytes).ok());
  EXPECT_EQ(bytes, Encode(s));
}

TEST(TableCodecTest, LayoutIsTheDocumentedOne) {
  const Sample s = MakeSample();
  const std::string bytes = Encode(s);
  EXPECT_EQ(bytes.substr(0, 8), std::string("NDUPSIG\0", 8));
  EXPECT_EQ(LoadU32(bytes, 8), kTableFormatVersion);
  std::string canonical;
  s.params.AppendCanonical(&canonical);
  EXPECT_EQ(bytes.substr(12, 28), canonical);
  EXPECT_EQ(LoadU64(bytes, 40), s.params.Fingerprint());
  EXPECT_EQ(LoadU64(bytes, 48), 3u);
  EXPECT_EQ(LoadU64(bytes, 56), 7u);
  uint64_t files_size = 0;
  for (const InputFile& f : s.table.files) files_size += 45 + f.path.size();
  uint64_t docs_size = 0;
  for (const DocRecord& d : s.table.docs) docs_size += kTableDocRecordSize + d.name.size();
  const uint64_t docs_offset = LoadU64(bytes, 64);
  const uint64_t sig_offset = LoadU64(bytes, 72);
  // The files, padding to a multiple of 8, the matrix, the docs, the checksum.
  EXPECT_EQ(sig_offset % 8, 0u);
  EXPECT_GE(sig_offset, 88 + files_size);
  EXPECT_LT(sig_offset, 88 + files_size + 8);
  EXPECT_EQ(docs_offset, sig_offset + 4 * 7 * 32);
  EXPECT_EQ(LoadU64(bytes, 80), bytes.size());
  EXPECT_EQ(bytes.size(), docs_offset + docs_size + 8);
  // First file record: length, path, then size.
  EXPECT_EQ(LoadU32(bytes, 88), s.table.files[0].path.size());
  EXPECT_EQ(bytes.substr(92, s.table.files[0].path.size()), s.table.files[0].path);
  EXPECT_EQ(LoadU64(bytes, 92 + s.table.files[0].path.size()), s.table.files[0].size);
  // The matrix, row after row, little-endian.
  for (size_t k = 0; k < s.table.values().size(); ++k) {
    ASSERT_EQ(LoadU32(bytes, sig_offset + 4 * k), s.table.values()[k]) << k;
  }
  // The checksum: the body (bytes 88..T-9), then the header.
  const std::string reordered = bytes.substr(88, bytes.size() - 96) + bytes.substr(0, 88);
  EXPECT_EQ(LoadU64(bytes, bytes.size() - 8), HashBytes(reordered.data(), reordered.size(), 0));
}

TEST(TableCodecTest, PeekHeaderNeedsOnlyTheHeader) {
  const Sample s = MakeSample();
  const std::string bytes = Encode(s);
  Result<TableHeader> h = PeekHeader(std::string_view(bytes).substr(0, kTableHeaderSize));
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->params, s.params);
  EXPECT_EQ(h->file_count, 3u);
  EXPECT_EQ(h->doc_count, 7u);
  EXPECT_EQ(h->total_size, bytes.size());
  EXPECT_EQ(h->signatures_size(), 4u * 7 * 32);
  Result<TableHeader> short_header = PeekHeader(std::string_view(bytes).substr(0, kTableHeaderSize - 1));
  ASSERT_FALSE(short_header.ok());
  EXPECT_EQ(short_header.status().message(), "signature table: truncated header (need 88 bytes, 87 present)");
}

TEST(TableCodecTest, SignaturesInPlaceAreTheMatrix) {
  const Sample s = MakeSample();
  const std::string bytes = Encode(s);
  Result<std::span<const uint32_t>> values = SignaturesInPlace(bytes);
  ASSERT_TRUE(values.ok()) << values.status().message();
  EXPECT_EQ(values->data(), reinterpret_cast<const uint32_t*>(bytes.data() + LoadU64(bytes, 72)));
  EXPECT_TRUE(std::equal(values->begin(), values->end(), s.table.values().begin(), s.table.values().end()));

  // One byte in front: the matrix is no longer aligned in this buffer.
  const std::string shifted = "x" + bytes;
  Result<std::span<const uint32_t>> misaligned = SignaturesInPlace(std::string_view(shifted).substr(1));
  ASSERT_FALSE(misaligned.ok());
  EXPECT_EQ(misaligned.status().code(), Status::Code::kInvalidArgument);
  // Still decodable by copying.
  EXPECT_TRUE(DecodeFrom(std::string_view(shifted).substr(1)).ok());
  EXPECT_FALSE(SignaturesInPlace(std::string_view(bytes).substr(0, bytes.size() - 1)).ok());
}

TEST(TableCodecTest, EveryTruncationIsAnError) {
  const std::string bytes = Encode(MakeSample(4));
  for (size_t n = 0; n < bytes.size(); ++n) {
    Result<DecodedTable> r = DecodeFrom(std::string_view(bytes).substr(0, n));
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.status().code(), Status::Code::kCorrupt) << n;
    EXPECT_TRUE(StartsWith(r.status().message(), "signature table: truncated")) << n << ": " << r.status().message();
  }
  Result<DecodedTable> r = DecodeFrom(std::string_view(bytes).substr(0, 100));
  EXPECT_EQ(r.status().message(),
            "signature table: truncated (the header says " + std::to_string(bytes.size()) + " bytes, 100 present)");
}

TEST(TableCodecTest, TrailingBytesAreAnError) {
  const std::string bytes = Encode(MakeSample(4)) + '\0';
  Result<DecodedTable> r = DecodeFrom(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kCorrupt);
  EXPECT_TRUE(StartsWith(r.status().message(), "signature table: extra bytes after the table")) << r.status().message();
}

TEST(TableCodecTest, EverySingleByteFlipIsAnError) {
  const std::string bytes = Encode(MakeSample(4));
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (const unsigned mask : {0x01u, 0x80u, 0xFFu}) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(damaged[i] ^ mask);
      Result<DecodedTable> r = DecodeFrom(damaged);
      ASSERT_FALSE(r.ok()) << "byte " << i << " mask " << mask;
      EXPECT_TRUE(StartsWith(r.status().message(), "signature table: ")) << r.status().message();
      const Status::Code expected = i < 12 ? Status::Code::kInvalidArgument : Status::Code::kCorrupt;
      EXPECT_EQ(r.status().code(), expected) << "byte " << i << ": " << r.status().message();
    }
  }
}

TEST(TableCodecTest, DataFlipIsReportedAsAChecksumMismatch) {
  std::string bytes = Encode(MakeSample(4));
  bytes[bytes.size() - 9] ^= 1;  // the last signature byte
  Result<DecodedTable> r = DecodeFrom(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(StartsWith(r.status().message(), "signature table: checksum mismatch (stored 0x"))
      << r.status().message();
  EXPECT_FALSE(VerifyChecksum(bytes).ok());
}

TEST(TableCodecTest, OtherMagicIsRefused) {
  std::string bytes = Encode(MakeSample(4));
  bytes[3] = 'X';
  Result<DecodedTable> r = DecodeFrom(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "signature table: bad magic: not a neardup signature table");
  EXPECT_FALSE(DecodeFrom(std::string(200, '\0')).ok());
}

TEST(TableCodecTest, OtherVersionIsRefused) {
  std::string bytes = Encode(MakeSample(4));
  StoreU32(&bytes, 8, 1);  // version 1: the docs before the matrix
  FixChecksum(&bytes);
  Result<DecodedTable> r = DecodeFrom(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "signature table: format version 1 is not supported (this build reads version 4)");
}

// Header fields rewritten (and the checksum made to match): each is refused
// for what it is, before anything is allocated by it.
TEST(TableCodecTest, ImpossibleHeaderFieldsAreRefused) {
  const std::string good = Encode(MakeSample(4));
  struct Case {
    size_t at;
    uint64_t value;
    const char* message_start;
  };
  const Case cases[] = {
      {48, UINT64_MAX, "signature table: 18446744073709551615 files cannot fit"},
      {48, 1000, "signature table: 1000 files cannot fit"},
      {56, UINT64_MAX, "signature table: 18446744073709551615 docs cannot fit"},
      {56, uint64_t{1} << 62, "signature table: 4611686018427387904 docs cannot fit"},
      {64, 0, "signature table: docs offset 0 outside"},
      {64, UINT64_MAX, "signature table: total size 922 leaves no room for the docs at offset 18446744073709551615"},
      {72, UINT64_MAX, "signature table: signatures offset 18446744073709551615 is not a multiple of 8"},
      {72, uint64_t{1} << 63, "signature table: docs offset"},
      {72, 80, "signature table: signatures offset 80 is not a multiple of 8 from 88"},
      {80, 3, "signature table: total size 3 leaves no room"},
  };
  for (const Case& c : cases) {
    std::string bytes = good;
    StoreU64(&bytes, c.at, c.value);
    FixChecksum(&bytes);
    Result<DecodedTable> r = DecodeFrom(bytes);
    ASSERT_FALSE(r.ok()) << c.at;
    EXPECT_EQ(r.status().code(), Status::Code::kCorrupt);
    EXPECT_TRUE(StartsWith(r.status().message(), c.message_start)) << r.status().message();
    EXPECT_FALSE(PeekHeader(bytes).ok());
  }
}

TEST(TableCodecTest, ParametersOutOfRangeAreRefused) {
  const std::string good = Encode(MakeSample(4));
  struct Case {
    size_t at;
    uint8_t value;
    const char* message;
  };
  const Case cases[] = {
      {12, 2, "signature table: unknown shingle unit 2"},
      {13, 9, "signature table: unknown encoding 9"},
      {14, 3, "signature table: unknown --strip 3"},
      {15, 1, "signature table: nonzero reserved bytes in the header"},
      {36, 2, "signature table: unknown MinHash definition 2 (made by a newer neardup?)"},
      {16, 0, "signature table: --ngram 0 out of range 1..64"},
      {16, 65, "signature table: --ngram 65 out of range 1..64"},
      {20, 0, "signature table: --num-perm 0 out of range 1..4096"},
      {21, 0x20, "signature table: --num-perm 8196 out of range 1..4096"},
  };
  for (const Case& c : cases) {
    std::string bytes = good;
    bytes[c.at] = static_cast<char>(c.value);
    FixChecksum(&bytes);
    Result<DecodedTable> r = DecodeFrom(bytes);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(), c.message);
  }
  // A valid parameter changed without its fingerprint.
  std::string bytes = good;
  bytes[24] ^= 1;  // the seed
  FixChecksum(&bytes);
  Result<DecodedTable> r = DecodeFrom(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(StartsWith(r.status().message(), "signature table: parameter fingerprint 0x")) << r.status().message();
}

// Offset of doc `k`'s record in an encoding.
size_t DocAt(const std::string& bytes, size_t k) {
  size_t at = LoadU64(bytes, 64);
  for (size_t i = 0; i < k; ++i) at += kTableDocRecordSize + LoadU32(bytes, at);
  return at;
}

TEST(TableCodecTest, ImpossibleRecordsAreRefusedByName) {
  const std::string good = Encode(MakeSample(4));
  auto decode = [](std::string bytes) {
    FixChecksum(&bytes);
    Result<DecodedTable> r = DecodeFrom(bytes);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Status::Code::kCorrupt);
    return r.ok() ? std::string() : r.status().message();
  };
  const size_t doc4 = DocAt(good, 4);
  const size_t doc4_fixed = doc4 + 4 + LoadU32(good, doc4);  // after the name

  std::string bytes = good;
  bytes[doc4_fixed + 60] = 5;  // kind
  EXPECT_EQ(decode(bytes), "signature table: doc 4: unknown kind 5");

  bytes = good;
  bytes[doc4_fixed + 61] = 2;  // flags
  EXPECT_EQ(decode(bytes), "signature table: doc 4: unknown flags 0x2");

  bytes = good;
  StoreU32(&bytes, doc4_fixed, 3);  // file
  EXPECT_EQ(decode(bytes), "signature table: doc 4: file 3 out of range (3 files)");

  bytes = good;
  StoreU32(&bytes, DocAt(good, 6), 0xFFFFFFF0u);  // name length of the last doc
  const std::string message = decode(bytes);
  EXPECT_TRUE(StartsWith(message, "signature table: truncated in doc 6 (need 4294967342 bytes, ")) << message;

  bytes = good;
  bytes[88 + 4 + LoadU32(good, 88) + 40] = 4;  // flags of file 0
  EXPECT_EQ(decode(bytes), "signature table: file 0: unknown flags 0x4");

  // A name one byte shorter: the docs end one byte early.
  bytes = good;
  StoreU32(&bytes, DocAt(good, 0), LoadU32(good, DocAt(good, 0)) - 1);
  EXPECT_FALSE(decode(bytes).empty());

  // Padding (between the files and the matrix) must be zero.
  size_t files_end = 88;
  for (int f = 0; f < 3; ++f) files_end += 45 + LoadU32(good, files_end);
  const size_t sig_offset = LoadU64(good, 72);
  ASSERT_LT(files_end, sig_offset) << "the sample has padding";
  bytes = good;
  bytes[files_end] = 1;
  EXPECT_EQ(decode(bytes), "signature table: nonzero padding byte at offset " + std::to_string(files_end));
}

TEST(TableCodecTest, EncodeRefusesWhatCannotBeDecoded) {
  Sample s = MakeSample(4);
  std::string bytes;
  SignatureParams other = s.params;
  other.num_perm = 8;
  Status st = EncodeTo(s.table, other, &bytes);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(st.message(), "signature table: cannot encode: the table has 4 values per signature, --num-perm is 8");

  other = s.params;
  other.ngram = 0;
  EXPECT_EQ(EncodeTo(s.table, other, &bytes).message(), "signature table: cannot encode: --ngram 0 out of range 1..64");

  s.table.docs[5].file = 3;
  st = EncodeTo(s.table, s.params, &bytes);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(st.message(), "signature table: cannot encode: doc 5: file 3 out of range (3 files)");
}

// DecodeRecords: DecodeFrom's checks and errors, the signatures left in place.

void ExpectSameRecords(const DecodedRecords& r, const DecodedTable& t) {
  EXPECT_EQ(r.params, t.params);
  SignatureTable as_table(t.params.num_perm);
  as_table.files = r.files;
  std::vector<DocRecord> docs = r.docs;
  as_table.Append(std::move(docs), r.signatures);
  ExpectSameTable(as_table, t.table);
}

TEST(TableCodecTest, DecodeRecordsLeavesTheSignaturesInPlace) {
  const Sample s = MakeSample();
  const std::string bytes = Encode(s);
  std::vector<size_t> hashed;
  Result<DecodedRecords> r = DecodeRecords(bytes, [&hashed](size_t n) { hashed.push_back(n); });
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->signatures.data(), reinterpret_cast<const uint32_t*>(bytes.data() + LoadU64(bytes, 72)));
  EXPECT_EQ(r->signatures.size(), 7u * 32);
  Result<DecodedTable> whole = DecodeFrom(bytes);
  ASSERT_TRUE(whole.ok());
  ExpectSameRecords(*r, *whole);
  // The checksum is over everything but itself, reported once hashed.
  EXPECT_EQ(hashed, std::vector<size_t>{bytes.size() - 8});
  EXPECT_TRUE(DecodeRecords(bytes).ok());
}

// DecodeRecordsWith: every record walked and checked, only those kept held.
TEST(TableCodecTest, DecodeRecordsWithKeepsOnlyTheRecordsAskedFor) {
  const Sample s = MakeSample();
  const std::string bytes = Encode(s);
  std::vector<uint64_t> seen;
  RecordWalk walk{.keep =
                      [&seen](uint64_t k, const DocRecord&) {
                        seen.push_back(k);
                        return k % 3 == 1;
                      },
                  .hashed = nullptr,
                  .read = nullptr,
                  .checksum = true};
  Result<DecodedRecords> r = DecodeRecordsWith(bytes, walk);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(seen, (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(r->kept, (std::vector<uint64_t>{1, 4}));
  ASSERT_EQ(r->docs.size(), 2u);
  EXPECT_EQ(r->docs[0].name, s.table.docs[1].name);
  EXPECT_EQ(r->docs[1].name, s.table.docs[4].name);
  EXPECT_EQ(r->docs[1].content.low, s.table.docs[4].content.low);
  EXPECT_EQ(r->signatures.size(), 7u * 32);  // the whole matrix, in place
  EXPECT_EQ(r->files.size(), s.table.files.size());
}

TEST(TableCodecTest, DecodeRecordsWithoutTheChecksumStillChecksEveryRecord) {
  const std::string good = Encode(MakeSample(4));
  std::string bytes = good;
  const size_t doc4 = DocAt(bytes, 4);
  bytes[doc4 + 4 + LoadU32(bytes, doc4) + 60] = 5;  // doc 4's kind; the checksum left wrong
  RecordWalk walk{
      .keep = [](uint64_t, const DocRecord&) { return false; }, .hashed = nullptr, .read = nullptr, .checksum = false};
  Result<DecodedRecords> r = DecodeRecordsWith(bytes, walk);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "signature table: doc 4: unknown kind 5");
  walk.checksum = true;
  EXPECT_TRUE(StartsWith(DecodeRecordsWith(bytes, walk).status().message(), "signature table: checksum mismatch"));
  EXPECT_TRUE(DecodeRecordsWith(good, walk).ok());
}

TEST(TableCodecTest, DecodeRecordsOfAnEmptyTable) {
  const SignatureParams params;
  std::string bytes;
  ASSERT_TRUE(EncodeTo(SignatureTable(params.num_perm), params, &bytes).ok());
  Result<DecodedRecords> r = DecodeRecords(bytes);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->docs.empty());
  EXPECT_TRUE(r->files.empty());
  EXPECT_TRUE(r->signatures.empty());
}

TEST(TableCodecTest, DecodeRecordsRefusesEveryTruncationAsCorrupt) {
  const std::string bytes = Encode(MakeSample(4));
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::string cut = bytes.substr(0, n);  // its own (aligned) buffer
    Result<DecodedRecords> r = DecodeRecords(cut);
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.status().code(), Status::Code::kCorrupt) << n;
    EXPECT_EQ(r.status().message(), DecodeFrom(cut).status().message()) << n;
  }
}

TEST(TableCodecTest, DecodeRecordsRefusesEveryBitFlipAsDecodeFromDoes) {
  const std::string bytes = Encode(MakeSample(4));
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x10);
    Result<DecodedRecords> r = DecodeRecords(damaged);
    ASSERT_FALSE(r.ok()) << "byte " << i;
    const Status expected = DecodeFrom(damaged).status();
    EXPECT_EQ(r.status().code(), expected.code()) << "byte " << i;
    EXPECT_EQ(r.status().message(), expected.message()) << "byte " << i;
    if (i >= 12) {
      EXPECT_EQ(r.status().code(), Status::Code::kCorrupt) << "byte " << i;
    }
  }
  // A flipped signature bit is caught by the checksum, though the
  // signatures themselves are not decoded.
  std::string damaged = bytes;
  damaged[LoadU64(bytes, 72) + 5] ^= 0x04;
  Result<DecodedRecords> r = DecodeRecords(damaged);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kCorrupt);
  EXPECT_TRUE(StartsWith(r.status().message(), "signature table: checksum mismatch (stored 0x"))
      << r.status().message();
}

TEST(TableCodecTest, DecodeRecordsRefusesAMisalignedMatrix) {
  const std::string bytes = Encode(MakeSample(4));
  const std::string shifted = "x" + bytes;
  Result<DecodedRecords> r = DecodeRecords(std::string_view(shifted).substr(1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
}

// The stage report's way: shards written to files, mapped, their records
// decoded and their signatures borrowed by one table.
TEST(TableCodecTest, TableOfMappedShardsReadsEverySignature) {
  const Sample s = MakeSample(16);
  testing::TempDir dir;
  // Three shards of the sample's documents (3, 0 and 4 of them), each with
  // all the files.
  const size_t cuts[] = {0, 3, 3, 7};
  SignatureTable merged(16);
  merged.files = s.table.files;
  for (int k = 0; k < 3; ++k) {
    SignatureTable shard(16);
    shard.files = s.table.files;
    for (size_t d = cuts[k]; d < cuts[k + 1]; ++d) {
      const DocId id = shard.Add(s.table.docs[d]);
      std::copy(s.table.signature(static_cast<DocId>(d)).begin(), s.table.signature(static_cast<DocId>(d)).end(),
                shard.MutableSignature(id));
    }
    std::string bytes;
    ASSERT_TRUE(EncodeTo(shard, s.params, &bytes).ok());
    const std::string path = dir / (std::to_string(k) + ".table");
    testing::WriteFile(path, bytes);
    Result<MappedFile> mapped = MappedFile::Open(path);
    ASSERT_TRUE(mapped.ok()) << mapped.status().message();
    auto file = std::make_shared<const MappedFile>(std::move(*mapped));
    Result<DecodedRecords> records = DecodeRecords(file->bytes(), [&file](size_t n) { file->Release(0, n); });
    ASSERT_TRUE(records.ok()) << records.status().message();
    EXPECT_EQ(records->params, s.params);
    merged.AppendBorrowed(std::move(records->docs), records->signatures, std::move(file));
  }
  ASSERT_FALSE(merged.contiguous());
  ASSERT_EQ(merged.size(), s.table.size());
  Result<DecodedTable> whole = DecodeFrom(Encode(s));
  ASSERT_TRUE(whole.ok());
  for (DocId id = 0; id < merged.size(); ++id) {
    const SignatureView got = merged.signature(id);
    const SignatureView want = whole->table.signature(id);
    ASSERT_EQ(got.size(), 16u);
    EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin(), want.end())) << "doc " << id;
    EXPECT_EQ(merged.docs[id].name, s.table.docs[id].name);
  }
  // A copy shares the mappings, which outlive the original.
  SignatureTable copy = merged;
  merged = SignatureTable(16);
  EXPECT_EQ(copy.signature(6)[0], UINT32_MAX);
  EXPECT_TRUE(std::equal(copy.signature(1).begin(), copy.signature(1).end(), s.table.signature(1).begin()));
  // Encoding a borrowed table gives the bytes of the same table held whole.
  std::string again;
  ASSERT_TRUE(EncodeTo(copy, s.params, &again).ok());
  EXPECT_EQ(again, Encode(s));
}

}  // namespace
}  // namespace neardup
