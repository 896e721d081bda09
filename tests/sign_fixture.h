// Fixture: a small corpus in a temporary folder, walked and signed as a scan
// signs it, for the tests of the units between signing and the report
// (tests/sign/, tests/lsh/, tests/verify/, tests/report/). Edited() and
// Found() build their inputs. Test code only.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "base/parallel.h"
#include "lsh/candidates.h"
#include "lsh/copy_groups.h"
#include "neardup/options.h"
#include "sign/minhash.h"
#include "sign/sign.h"
#include "test_util.h"
#include "walk/file_system.h"
#include "walk/walk.h"

namespace neardup {
namespace testing {

// The same words with every `every`-th one replaced.
inline std::string Edited(const std::vector<std::string>& words, size_t every) {
  std::vector<std::string> w = words;
  for (size_t i = 0; i < w.size(); i += every) w[i] = std::string("edit").append(std::to_string(i));
  return Join(w);
}

struct Fixture {
  TempDir dir;
  Options options;
  // a.txt and b.txt identical, c.txt a light edit of them, d.txt unrelated,
  // e.txt empty.
  Fixture() {
    const auto words = RandomWords(400, 11);
    WriteFile(dir / "a.txt", Join(words));
    WriteFile(dir / "b.txt", Join(words));
    WriteFile(dir / "c.txt", Edited(words, 40));
    WriteFile(dir / "d.txt", Join(RandomWords(400, 12)));
    WriteFile(dir / "e.txt", "");
    options.paths = {dir.path()};
  }
  SignedCorpus Signed(int threads, bool keep_streams = false) {
    Result<WalkedCorpus> walked = WalkCorpus(options);
    EXPECT_TRUE(walked.ok());
    const MinHasher minhasher(options.num_perm, options.seed);
    Workers w{.threads = threads, .tick = {}, .cancel = nullptr};
    SignProgress counts;
    return Sign({options, minhasher, FileSystem::Default(), w, keep_streams, counts}, std::move(walked->files));
  }
  DocId Id(const SignedCorpus& s, const std::string& name) {
    for (DocId i = 0; i < s.table.docs.size(); ++i) {
      if (s.table.docs[i].name == dir / name) return i;
    }
    ADD_FAILURE() << name;
    return 0;
  }
};

// FindCandidates, which must succeed here.
inline Candidates Found(const SignatureTable& table, const CopyGroups& groups, const Options& options, Banding banding,
                        const Workers& workers) {
  Result<Candidates> found = FindCandidates(table, groups, options, banding, workers);
  EXPECT_TRUE(found.ok()) << found.status().message();
  return found.ok() ? std::move(*found) : Candidates{};
}

}  // namespace testing
}  // namespace neardup
