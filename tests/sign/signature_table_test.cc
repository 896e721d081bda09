#include "sign/signature_table.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "neardup/options.h"

namespace neardup {
namespace {

TEST(SignatureParamsTest, FromTakesTheShingleSizeInEffect) {
  Options o;
  EXPECT_EQ(SignatureParams::From(o).ngram, 5);
  o.shingle = ShingleUnit::kChar;
  EXPECT_EQ(SignatureParams::From(o).ngram, 9);
  o.ngram = 7;
  o.num_perm = 64;
  o.seed = 42;
  o.encoding = Encoding::kLatin1;
  const SignatureParams p = SignatureParams::From(o);
  EXPECT_EQ(p.shingle, ShingleUnit::kChar);
  EXPECT_EQ(p.ngram, 7);
  EXPECT_EQ(p.num_perm, 64);
  EXPECT_EQ(p.seed, 42u);
  EXPECT_EQ(p.encoding, Encoding::kLatin1);
  EXPECT_EQ(p.tokenizer_version, kTokenizerVersion);
}

TEST(SignatureParamsTest, DefaultOptionsGiveDefaultParams) {
  EXPECT_EQ(SignatureParams::From(Options{}), SignatureParams{});
}

TEST(SignatureParamsTest, CanonicalEncodingIsLittleEndianFieldByField) {
  SignatureParams p;
  p.shingle = ShingleUnit::kChar;
  p.encoding = Encoding::kLatin1;
  p.ngram = 0x0102;
  p.num_perm = 0x0304;
  p.seed = 0x0102030405060708ULL;
  p.tokenizer_version = 0x0A0B0C0D;
  p.minhash_version = 0x11121314;
  std::string bytes = "x";  // appends
  p.AppendCanonical(&bytes);
  const std::string expected(
      "x"
      "\x01\x01\x00\x00"
      "\x02\x01\x00\x00"
      "\x04\x03\x00\x00"
      "\x08\x07\x06\x05\x04\x03\x02\x01"
      "\x0D\x0C\x0B\x0A"
      "\x14\x13\x12\x11",
      1 + SignatureParams::kCanonicalSize);
  EXPECT_EQ(bytes, expected);
}

// The fingerprint of the default parameters, computed once and written here.
// It is stored in every index and shard: if this test fails, the canonical
// encoding (or the hash) changed, and every stored table would be refused as
// having other parameters. It changed with MinHash definition 1, whose
// number took the 4 bytes that were reserved (0, definition 0's tables).
// (Checked independently: `xxhsum -H3` of the 28 canonical bytes
// 00 00 00 00 05 00 00 00 80 00 00 00 01 00 00 00 00 00 00 00 01 00 00 00
// 01 00 00 00 gives the same value; with 00 00 00 00 last, 36e54fedf2ff52ee,
// definition 0's.)
TEST(SignatureParamsTest, FingerprintOfDefaultsIsFixed) {
  ASSERT_EQ(kTokenizerVersion, 1u) << "a new tokenizer version changes the default fingerprint";
  ASSERT_EQ(kMinHashVersion, 1u) << "a new MinHash definition changes the default fingerprint";
  EXPECT_EQ(SignatureParams{}.Fingerprint(), 0x8241042e0a3b09fbULL);
  SignatureParams before;
  before.minhash_version = 0;
  EXPECT_EQ(before.Fingerprint(), 0x36e54fedf2ff52eeULL);
}

TEST(SignatureParamsTest, FingerprintIsStableAndDiffersWhenAnyFieldDiffers) {
  const SignatureParams base;
  EXPECT_EQ(base.Fingerprint(), SignatureParams{}.Fingerprint());
  std::vector<SignatureParams> variants(10, base);
  variants[0].shingle = ShingleUnit::kChar;
  variants[1].ngram = 6;
  variants[2].num_perm = 129;
  variants[3].seed = 2;
  variants[4].seed = uint64_t{1} << 63;
  variants[5].encoding = Encoding::kLatin1;
  variants[6].tokenizer_version = kTokenizerVersion + 1;
  variants[7].minhash_version = 0;
  variants[8].strip = Strip::kHtml;
  variants[9].strip = Strip::kMail;
  for (size_t i = 0; i < variants.size(); ++i) {
    EXPECT_NE(variants[i].Fingerprint(), base.Fingerprint()) << "variant " << i;
    for (size_t j = 0; j < i; ++j) {
      EXPECT_NE(variants[i].Fingerprint(), variants[j].Fingerprint()) << i << " vs " << j;
    }
  }
}

TEST(SignatureParamsTest, DescribeUsesTheCommandLineSpellings) {
  EXPECT_EQ(SignatureParams{}.Describe(),
            "--shingle word, --ngram 5, --num-perm 128, --seed 1, --encoding utf8, tokenizer " +
                std::to_string(kTokenizerVersion) + ", minhash " + std::to_string(kMinHashVersion));
  SignatureParams p;
  p.shingle = ShingleUnit::kChar;
  p.ngram = 9;
  p.num_perm = 256;
  p.seed = 18446744073709551615ULL;
  p.encoding = Encoding::kLatin1;
  p.tokenizer_version = 3;
  p.minhash_version = 0;
  EXPECT_EQ(p.Describe(),
            "--shingle char, --ngram 9, --num-perm 256, --seed 18446744073709551615, --encoding latin1, "
            "tokenizer 3, minhash 0");
}

TEST(SignatureParamsTest, StripIsDescribedAndComparedWhenSet) {
  SignatureParams p;
  p.strip = Strip::kMail;
  EXPECT_EQ(p.Describe(),
            "--shingle word, --ngram 5, --num-perm 128, --seed 1, --encoding utf8, --strip mail, tokenizer " +
                std::to_string(kTokenizerVersion) + ", minhash " + std::to_string(kMinHashVersion));
  EXPECT_EQ(p.Differences(SignatureParams{}, "shard 3"),
            (std::vector<std::string>{"--strip: mail here, none in shard 3"}));
}

TEST(SignatureParamsTest, EqualParamsHaveNoDifferences) {
  EXPECT_TRUE(SignatureParams{}.Differences(SignatureParams{}, "the index").empty());
}

TEST(SignatureParamsTest, DifferencesListExactlyTheDifferingFields) {
  SignatureParams here;
  SignatureParams index;
  index.ngram = 7;
  index.seed = 9;
  EXPECT_EQ(here.Differences(index, "the index"),
            (std::vector<std::string>{"--ngram: 5 here, 7 in the index", "--seed: 1 here, 9 in the index"}));
  EXPECT_EQ(index.Differences(here, "shard 3"),
            (std::vector<std::string>{"--ngram: 7 here, 5 in shard 3", "--seed: 9 here, 1 in shard 3"}));
}

TEST(SignatureParamsTest, EachFieldAloneGivesOneLineNamingIt) {
  const SignatureParams base;
  struct Case {
    SignatureParams other;
    std::string line;
  };
  std::vector<Case> cases(7, Case{base, ""});
  cases[0].other.shingle = ShingleUnit::kChar;
  cases[0].line = "--shingle: word here, char in X";
  cases[1].other.ngram = 3;
  cases[1].line = "--ngram: 5 here, 3 in X";
  cases[2].other.num_perm = 64;
  cases[2].line = "--num-perm: 128 here, 64 in X";
  cases[3].other.seed = 0;
  cases[3].line = "--seed: 1 here, 0 in X";
  cases[4].other.encoding = Encoding::kLatin1;
  cases[4].line = "--encoding: utf8 here, latin1 in X";
  cases[5].other.tokenizer_version = 99;
  cases[5].line = "tokenizer version: " + std::to_string(kTokenizerVersion) + " here, 99 in X";
  cases[6].other.minhash_version = 0;
  cases[6].line = "MinHash definition: " + std::to_string(kMinHashVersion) + " here, 0 in X";
  for (const Case& c : cases) {
    EXPECT_NE(c.other, base);
    EXPECT_EQ(base.Differences(c.other, "X"), std::vector<std::string>{c.line});
  }
}

TEST(SignatureTableTest, RowsStayWithTheirDocuments) {
  SignatureTable table(3);
  DocRecord a;
  a.name = "a";
  DocRecord b;
  b.name = "b";
  EXPECT_EQ(table.Add(a), 0u);
  EXPECT_EQ(table.Add(b), 1u);
  table.MutableSignature(1)[2] = 7;
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(table.values().size(), 6u);
  EXPECT_EQ(table.signature(0)[0], UINT32_MAX);
  EXPECT_EQ(table.signature(1)[2], 7u);
  EXPECT_EQ(table.signature(1).size(), 3u);
}

std::vector<DocRecord> Records(const std::string& prefix, size_t n) {
  std::vector<DocRecord> out(n);
  for (size_t i = 0; i < n; ++i) out[i].name = prefix + std::to_string(i);
  return out;
}

TEST(SignatureTableTest, AppendingWithinTheReservedRoomMovesNoRow) {
  SignatureTable table(4);
  table.Append(Records("a", 1), std::vector<uint32_t>{1, 2, 3, 4});
  table.Reserve(1000);
  EXPECT_GE(table.capacity(), 1000u);
  const uint32_t* first_row = table.signature(0).data();
  for (uint32_t k = 1; k < 1000; ++k) table.Append(Records("b", 1), std::vector<uint32_t>{k, k, k, k});
  EXPECT_EQ(table.signature(0).data(), first_row);  // no copy of the matrix was made
  ASSERT_EQ(table.size(), 1000u);
  EXPECT_EQ(table.signature(0)[3], 4u);
  EXPECT_EQ(table.signature(999)[0], 999u);
  // Past the room, the table grows as before.
  table.Append(Records("c", 1), std::vector<uint32_t>{7, 7, 7, 7});
  EXPECT_EQ(table.size(), 1001u);
  EXPECT_EQ(table.signature(1000)[2], 7u);
  EXPECT_EQ(table.signature(0)[1], 2u);
}

// Rows appended block by block into reserved room keep their values across
// the chunks backed ahead of them, and through a growth past the room.
TEST(SignatureTableTest, AppendedRowsKeepTheirValuesAcrossBackedChunks) {
  constexpr int kPerm = 128;
  constexpr size_t kBlock = 1000;
  SignatureTable table(kPerm);
  table.Reserve(20 * kBlock);  // 10 MB: several chunks of 4 MiB
  const uint32_t* first_row = nullptr;
  for (size_t b = 0; b < 30; ++b) {  // the last ten blocks grow the matrix
    std::vector<uint32_t> values(kBlock * kPerm);
    for (size_t k = 0; k < values.size(); ++k) values[k] = static_cast<uint32_t>(b * kBlock * kPerm + k);
    table.Append(Records("d", kBlock), values);
    if (b == 0) first_row = table.signature(0).data();
    if (b == 19) {
      EXPECT_EQ(table.signature(0).data(), first_row);
    }
  }
  ASSERT_EQ(table.size(), 30 * kBlock);
  for (DocId id = 0; id < table.size(); id += 997) {
    for (int k = 0; k < kPerm; k += 31) ASSERT_EQ(table.signature(id)[k], id * kPerm + k) << id << " " << k;
  }
  EXPECT_EQ(table.signature(30 * kBlock - 1)[kPerm - 1], 30 * kBlock * kPerm - 1);
}

// Resize makes every new row unset, over room backed in one call.
TEST(SignatureTableTest, ResizedRowsAreUnset) {
  SignatureTable table(128);
  table.Append(Records("a", 1), std::vector<uint32_t>(128, 3));
  table.Resize(50000);  // 25 MB
  ASSERT_EQ(table.size(), 50000u);
  EXPECT_EQ(table.signature(0)[127], 3u);
  for (DocId id = 1; id < table.size(); id += 4999) EXPECT_EQ(table.signature(id)[id % 128], UINT32_MAX) << id;
  EXPECT_EQ(table.signature(49999)[127], UINT32_MAX);
}

// ResizeUnwritten leaves the new rows to their writers; BackRows backs the
// pages of rows, some written and some not, without changing a value.
TEST(SignatureTableTest, UnwrittenRowsHoldWhatTheirWritersPutThere) {
  SignatureTable table(128);
  table.Append(Records("a", 1), std::vector<uint32_t>(128, 3));
  table.ResizeUnwritten(50000);  // 25 MB
  ASSERT_EQ(table.size(), 50000u);
  EXPECT_EQ(table.signature(0)[127], 3u);
  for (DocId id = 1; id < 50000; id += 2) {
    if (id % 2048 == 1) table.BackRows(id, id + 2048);
    std::fill_n(table.MutableSignature(id), 128, id);
  }
  table.BackRows(0, 60000);  // past the end: up to the last row
  for (DocId id = 2; id < 50000; id += 2) std::fill_n(table.MutableSignature(id), 128, UINT32_MAX - id);
  EXPECT_EQ(table.signature(0)[127], 3u);
  for (DocId id = 1; id < 50000; id += 997) {
    EXPECT_EQ(table.signature(id)[id % 128], id % 2 == 1 ? id : UINT32_MAX - id) << id;
  }
  EXPECT_EQ(table.signature(49999)[127], 49999u);
}

TEST(SignatureTableTest, BorrowedSegmentsGiveEachDocumentItsRow) {
  // Three buffers of rows (2, 1 and 3 documents of 2 values), held by a
  // shared owner as a mapped file would be; row values name the document.
  auto a = std::make_shared<std::vector<uint32_t>>(std::vector<uint32_t>{0, 100, 1, 101});
  auto b = std::make_shared<std::vector<uint32_t>>(std::vector<uint32_t>{2, 102});
  auto c = std::make_shared<std::vector<uint32_t>>(std::vector<uint32_t>{3, 103, 4, 104, 5, 105});
  SignatureTable table(2);
  EXPECT_TRUE(table.contiguous());
  table.AppendBorrowed(Records("a", 2), *a, a);
  table.AppendBorrowed({}, {}, nullptr);  // an empty shard adds nothing
  table.AppendBorrowed(Records("b", 1), *b, b);
  table.AppendBorrowed(Records("c", 3), *c, c);
  EXPECT_FALSE(table.contiguous());
  ASSERT_EQ(table.size(), 6u);
  EXPECT_EQ(table.docs[2].name, "b0");
  EXPECT_EQ(table.docs[5].name, "c2");
  const std::weak_ptr<std::vector<uint32_t>> watch = c;
  a.reset();
  b.reset();
  c.reset();
  EXPECT_FALSE(watch.expired());  // the table keeps its rows alive
  for (DocId id = 0; id < 6; ++id) {
    const SignatureView v = table.signature(id);
    ASSERT_EQ(v.size(), 2u);
    EXPECT_EQ(v[0], id);
    EXPECT_EQ(v[1], 100 + id);
  }
  // Reading is unchanged after the records are moved out (as the report does).
  std::vector<DocRecord> docs = std::move(table.docs);
  EXPECT_EQ(table.signature(4)[1], 104u);
  table = SignatureTable(2);
  EXPECT_TRUE(watch.expired());
}

}  // namespace
}  // namespace neardup
