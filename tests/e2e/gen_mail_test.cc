// End to end: build/gen_mail (tests/bench/gen_mail.cc), the mail-like corpus
// of scripts/bench.sh's "--exact against signature mode" section, keeps its
// promises: the same seed gives the same bytes, its truth file states the
// Jaccard that neardup --exact computes for every planted pair, and at -t 0.5
// LSH finds far more candidates than pairs (the shape of real mail).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/run_neardup.h"
#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::ReadFile;
using testing::RunNeardup;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;

const std::string kGen = ::neardup::testing::GenMailBinary();

// Every file under `dir`, path -> bytes.
std::map<std::string, std::string> Contents(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out[std::filesystem::relative(e.path(), dir).string()] = ReadFile(e.path().string());
  }
  return out;
}

// `text` with every `from` replaced by `to`.
std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

std::vector<std::vector<std::string>> Rows(const std::string& tsv) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(tsv);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, '\t');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST(GenMailTest, SameSeedSameBytesAndTheTruthIsWhatExactComputes) {
  TempDir dir;
  for (const auto& [out, seed] : {std::pair{"a", "7"}, {"twin", "7"}, {"other", "8"}}) {
    const RunResult g = RunProcess({kGen, "--mails", "600", "--seed", seed, "--out", dir / out}, dir.path());
    ASSERT_EQ(g.exit_code, 0) << g.err;
  }
  const auto a = Contents(dir / "a");
  EXPECT_EQ(a.size(), 600u);
  EXPECT_EQ(a, Contents(dir / "twin"));
  EXPECT_NE(a, Contents(dir / "other"));
  const std::string truth = ReadFile(dir / "a.truth.tsv");
  EXPECT_EQ(Replaced(truth, dir / "a/", "DIR/"), Replaced(ReadFile(dir / "twin.truth.tsv"), dir / "twin/", "DIR/"));
  // Planted pairs of every kind; each one's Jaccard as --exact computes it
  // (-t 0.01 with every candidate checked, so LSH misses none that matter).
  const auto planted = Rows(truth);
  ASSERT_GT(planted.size(), 40u);
  std::map<std::string, int> kinds;
  for (const auto& p : planted) ++kinds[p[2]];
  EXPECT_EQ(kinds.size(), 5u);
  const RunResult r = RunNeardup(
      {"scan", "--exact-all", "-t", "0.05", "--bands", "128", "--rows", "1", "-f", "tsv", "-q", dir / "a"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> found;  // "a\tb" -> jaccard
  for (const auto& row : Rows(r.out)) found[row[0] + "\t" + row[1]] = row[3];
  for (const auto& p : planted) {
    const auto it = found.find(p[0] + "\t" + p[1]);
    ASSERT_NE(it, found.end()) << p[0] << " " << p[1];
    EXPECT_NEAR(std::stod(it->second), std::stod(p[3]), 1e-4) << p[0] << " " << p[1] << " " << p[2];
  }
  // The shape: at -t 0.5, candidates outnumber the pairs reported twenty times and more (two hundred at 6000 mails).
  const RunResult v = RunNeardup({"scan", "-t", "0.5", "-v", "-f", "tsv", dir / "a"}, dir.path());
  ASSERT_EQ(v.exit_code, 0) << v.err;
  const size_t at = v.err.find(" candidate pairs");
  ASSERT_NE(at, std::string::npos) << v.err;
  const long candidates = std::stol(v.err.substr(v.err.rfind(' ', at - 1) + 1));
  const long pairs = static_cast<long>(Rows(v.out).size());
  EXPECT_GT(pairs, 40);
  EXPECT_GT(candidates, 20 * pairs) << candidates << " candidates, " << pairs << " pairs";
}

}  // namespace
}  // namespace neardup
