// The schema's `meta` (index_schema.h), through SignatureIndex::Open: an
// index opened with other signature parameters is refused, naming each
// difference.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace neardup
