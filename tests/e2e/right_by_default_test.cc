// End to end: "Right by default" (#41). Without a flag, what `--mode
// duplicates` lists is proven: every listed document has an exact Jaccard of
// at least -t with the document kept for it, on a mail corpus shaped like
// SpamAssassin's (build/gen_mail: headers that differ, bodies that repeat),
// where the signature estimate alone lists documents below the threshold.
// The exact Jaccard is taken from `neardup explain`, which reads both texts
// again on its own, not from the scan's output.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/run_neardup.h"
#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::RunNeardup;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;

const std::string kGen = ::neardup::testing::GenMailBinary();

struct Listed {
  std::string path;
  std::string kept;
};

std::vector<Listed> ListedOf(const std::string& tsv) {
  std::vector<Listed> out;
  std::istringstream in(tsv);
  for (std::string line; std::getline(in, line);) {
    const size_t tab = line.find('\t');
    const size_t next = line.find('\t', tab + 1);
    out.push_back({.path = line.substr(0, tab), .kept = line.substr(tab + 1, next - tab - 1)});
  }
  return out;
}

// The exact Jaccard of two files, as `neardup explain` computes it.
double ExplainedJaccard(const std::string& a, const std::string& b, const std::string& dir) {
  const RunResult r = RunNeardup({"explain", "-f", "json", a, b}, dir);
  EXPECT_LE(r.exit_code, 1) << r.err;
  return nlohmann::json::parse(r.out)["jaccard"].get<double>();
}

// How many of the listed documents are below `t` with their kept one.
size_t BelowThreshold(const std::vector<Listed>& listed, double t, const std::string& dir) {
  size_t below = 0;
  for (const Listed& l : listed) {
    if (ExplainedJaccard(l.kept, l.path, dir) < t - 1e-12) ++below;
  }
  return below;
}

class RightByDefaultTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const RunResult g = RunProcess({kGen, "--mails", "1500", "--seed", "42", "--out", *dir_ / "mail"}, dir_->path());
    ASSERT_EQ(g.exit_code, 0) << g.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static RunResult Scan(std::vector<std::string> extra, const std::string& t) {
    std::vector<std::string> argv = {"scan", "-q", "--mode", "duplicates", "-f", "tsv", "-t", t};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back(*dir_ / "mail");
    return RunNeardup(argv, dir_->path());
  }
  static TempDir* dir_;
};
TempDir* RightByDefaultTest::dir_ = nullptr;

TEST_F(RightByDefaultTest, NoDocumentListedWithoutFlagsIsBelowTheThreshold) {
  size_t signature_below = 0;
  for (const std::string t : {"0.5", "0.8", "0.9"}) {
    SCOPED_TRACE("-t " + t);
    const RunResult plain = Scan({}, t);
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    const std::vector<Listed> listed = ListedOf(plain.out);
    ASSERT_GT(listed.size(), 20u);
    EXPECT_EQ(BelowThreshold(listed, std::stod(t), dir_->path()), 0u);
    // The default is --verify exact, spelt out or not.
    const RunResult exact = Scan({"--exact"}, t);
    EXPECT_EQ(exact.out, plain.out);
    // The estimate alone lists some below it: what the default guards against.
    const RunResult signature = Scan({"--verify", "signature"}, t);
    ASSERT_EQ(signature.exit_code, 0) << signature.err;
    signature_below += BelowThreshold(ListedOf(signature.out), std::stod(t), dir_->path());
  }
  EXPECT_GT(signature_below, 0u);
}

// Every default record carries the exact Jaccard, not only the estimate.
TEST_F(RightByDefaultTest, DefaultRecordsCarryTheExactJaccard) {
  const RunResult r =
      RunNeardup({"scan", "-q", "--mode", "duplicates", "-f", "jsonl", "-t", "0.8", *dir_ / "mail"}, dir_->path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  size_t records = 0;
  for (std::string line; std::getline(in, line); ++records) {
    const nlohmann::json j = nlohmann::json::parse(line);
    ASSERT_TRUE(j.contains("jaccard")) << line;
    EXPECT_GE(j["jaccard"].get<double>(), 0.8 - 1e-12) << line;
  }
  EXPECT_GT(records, 20u);
}

// The review page marks every member below the threshold with its kept
// document, in the default cluster mode too: by default there is none; with
// --verify signature, each member the estimate let in below it is marked.
TEST_F(RightByDefaultTest, TheReviewPageMarksEveryMemberBelowTheThreshold) {
  auto marked = [&](std::vector<std::string> extra) {
    std::vector<std::string> argv = {"scan", "-q", "--mode", "clusters", "-t",
                                     "0.8",  "-f", "html",   "-o",       *dir_ / "page.html"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back(*dir_ / "mail");
    const RunResult r = RunNeardup(argv, dir_->path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::string page = testing::ReadFile(*dir_ / "page.html");
    size_t n = 0;
    for (size_t at = page.find("\"unlike\":true"); at != std::string::npos; at = page.find("\"unlike\":true", at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(marked({}), 0u);
  const RunResult signature = Scan({"--verify", "signature"}, "0.8");
  ASSERT_EQ(signature.exit_code, 0) << signature.err;
  const size_t below = BelowThreshold(ListedOf(signature.out), 0.8, dir_->path());
  EXPECT_GT(below, 0u);
  EXPECT_EQ(marked({"--verify", "signature"}), below);
}

}  // namespace
}  // namespace neardup
