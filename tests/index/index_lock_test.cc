// The writer's lock (index_lock.h), through SignatureIndex::Open: one
// writer at a time, and the second is told who holds it.
#include <gtest/gtest.h>
#include <unistd.h>

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

TEST(IndexLockTest, OneWriterAtATime) {
  TempDir dir;
  const std::string path = dir / "ix.db";
  Result<std::unique_ptr<SignatureIndex>> first = SignatureIndex::Open(path, Params(), {});
  ASSERT_TRUE(first.ok());
  Result<std::unique_ptr<SignatureIndex>> second = SignatureIndex::Open(path, Params(), {});
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find(std::string("in use by pid ").append(std::to_string(::getpid()))),
            std::string::npos)
      << second.status().message();
  first->reset();
  EXPECT_TRUE(SignatureIndex::Open(path, Params(), {}).ok());
}

}  // namespace
}  // namespace neardup
