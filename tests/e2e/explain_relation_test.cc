// explain --relation contains|both says what scan --relation says of every
// pair of a small corpus (issue #44): an excerpt, the document that quotes it,
// its source, a near copy, a half, an excerpt too small for the ratio cap, a
// partial overlap and a stranger; by exact and by signature verification,
// through the real binary.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "run_neardup.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::Lines;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunOptions;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;
using Words = std::vector<std::string>;

Words Slice(const Words& w, size_t from, size_t to) { return Words(w.begin() + from, w.begin() + to); }
Words Cat(Words a, const Words& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The corpus, by name (c/NAME.txt).
std::map<std::string, Words> Corpus() {
  const Words src = RandomWords(800, 1);
  Words near = src;
  for (size_t i = 5; i < near.size(); i += 90) near[i] = "edit" + std::to_string(i);
  return {
      {"source", src},
      {"quote", Slice(src, 200, 500)},
      {"host", Cat(Cat(RandomWords(300, 2), Slice(src, 200, 500)), RandomWords(300, 3))},
      {"near", near},
      {"half", Slice(src, 0, 400)},
      {"small", Slice(src, 100, 160)},
      {"partial", Cat(Slice(src, 0, 250), RandomWords(250, 4))},
      {"stranger", RandomWords(500, 9)},
  };
}

// What scan reported of each pair: "similar", "a_in_b" or "b_in_a", for
// (a, b) in name order.
std::map<std::pair<std::string, std::string>, std::string> ScanKinds(const RunResult& run) {
  std::map<std::pair<std::string, std::string>, std::string> out;
  for (const std::string& line : Lines(run.out)) {
    std::vector<std::string> f;
    size_t start = 0;
    for (size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) {
      f.push_back(line.substr(start, tab - start));
    }
    f.push_back(line.substr(start));
    EXPECT_GE(f.size(), 5u) << line;
    if (f.size() < 5) continue;
    const std::pair<std::string, std::string> pair = std::minmax(f[0], f[1]);
    out[pair] = f[2] == "similar" ? "similar" : f[4] == pair.first ? "a_in_b" : "b_in_a";
  }
  return out;
}

TEST(ExplainRelationTest, ExplainSaysWhatScanReportsOfEveryPair) {
  TempDir dir;
  const std::map<std::string, Words> corpus = Corpus();
  for (const auto& [name, words] : corpus) WriteFile(dir / ("c/" + name + ".txt"), Join(words));
  size_t contained = 0;
  for (const char* relation : {"contains", "both"}) {
    for (const char* verify : {"exact", "signature"}) {
      const RunResult scan = RunNeardup({"scan", "-q", "-f", "tsv", "--relation", relation, "--verify", verify, "c"},
                                        dir.path(), RunOptions().In(dir.path()));
      ASSERT_EQ(scan.exit_code, 0) << scan.err;
      const auto kinds = ScanKinds(scan);
      for (auto a = corpus.begin(); a != corpus.end(); ++a) {
        for (auto b = std::next(a); b != corpus.end(); ++b) {
          const std::string pa = "c/" + a->first + ".txt", pb = "c/" + b->first + ".txt";
          const RunResult e = RunNeardup({"explain", "-f", "json", "--relation", relation, pa, pb}, dir.path(),
                                         RunOptions().In(dir.path()));
          const nlohmann::json j = nlohmann::json::parse(e.out, nullptr, false);
          ASSERT_TRUE(j.is_object() && j.contains("relation")) << pa << " " << pb << ": " << e.out << e.err;
          const auto it = kinds.find({pa, pb});
          const std::string want = it == kinds.end() ? "none" : it->second;
          const std::string got = j["relation"][verify].is_null() ? "none" : j["relation"][verify].get<std::string>();
          EXPECT_EQ(got, want) << relation << " " << verify << ": " << pa << " " << pb;
          EXPECT_EQ(e.exit_code, want == "none" ? 1 : 0) << relation << " " << verify << ": " << pa << " " << pb;
          if (want == "a_in_b" || want == "b_in_a") ++contained;
        }
      }
    }
  }
  EXPECT_GE(contained, 12u);  // quote in source and in host, half in source and in near, each way and mode
  // A pair beyond the ratio cap is out of reach, and explain says so.
  const RunResult small = RunNeardup({"explain", "--relation", "contains", "c/small.txt", "c/source.txt"}, dir.path(),
                                     RunOptions().In(dir.path()));
  EXPECT_EQ(small.exit_code, 1) << small.out;
  EXPECT_NE(small.out.find("containment banding: none"), std::string::npos) << small.out;
  EXPECT_NE(small.out.find("--verify none:      refused with --relation contains"), std::string::npos) << small.out;
}

}  // namespace
}  // namespace neardup
