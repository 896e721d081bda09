// The schema's `meta` (index_schema.h), through SignatureIndex::Open: an
// index opened with other signature parameters is refused, naming each
// difference.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <memory>
#include <string>

#include "index/sign_indexed.h"
#include "index/signature_index.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::TempDir;

SignatureParams Params(int num_perm = 4) {
  Options o;
  o.num_perm = num_perm;
  return SignatureParamsOf(o);
}

TEST(IndexSchemaTest, OtherSignatureParametersAreRefusedNamingEachDifference) {
  TempDir dir;
  const std::string path = dir / "ix.db";
  ASSERT_TRUE(SignatureIndex::Open(path, Params(4), {}).ok());
  SignatureParams other = Params(8);
  other.seed = 9;
  Result<std::unique_ptr<SignatureIndex>> ix = SignatureIndex::Open(path, other, {});
  ASSERT_FALSE(ix.ok());
  const std::string& m = ix.status().message();
  EXPECT_NE(m.find("--num-perm: 8 here, 4 in the index"), std::string::npos) << m;
  EXPECT_NE(m.find("--seed: 9 here, 1 in the index"), std::string::npos) << m;
  EXPECT_EQ(m.find("--ngram"), std::string::npos) << m;
}

// An index made before --strip has no `--strip` row in `meta`: it was made
// without, so it opens as none and is refused with html, naming --strip.
TEST(IndexSchemaTest, IndexWithoutAStripRowReadsAsStripNone) {
  TempDir dir;
  const std::string path = dir / "ix.db";
  ASSERT_TRUE(SignatureIndex::Open(path, Params(4), {}).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, "DELETE FROM meta WHERE key = '--strip'", nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_EQ(sqlite3_changes(db), 1) << "a fresh index records --strip";
  sqlite3_close(db);
  EXPECT_TRUE(SignatureIndex::Open(path, Params(4), {}).ok());
  SignatureParams html = Params(4);
  html.strip = Strip::kHtml;
  Result<std::unique_ptr<SignatureIndex>> ix = SignatureIndex::Open(path, html, {});
  ASSERT_FALSE(ix.ok());
  EXPECT_NE(ix.status().message().find("--strip: html here, none in the index"), std::string::npos)
      << ix.status().message();
}

}  // namespace
}  // namespace neardup
