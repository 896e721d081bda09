// End to end, --strip html and --strip mail (#45): pages that share their
// navigation markup pair only through the text a reader sees; mails with the
// same body pair whatever their headers and transfer encodings; what cannot
// be stripped is one message naming it; the index and the stage work folder
// keep signatures of one strip setting apart.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e/run_neardup.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::ReadFile;
using testing::RunNeardup;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;
using Args = std::vector<std::string>;

std::string Fixture(const std::string& name) {
  return ReadFile(std::string(testing::SourceDir()) + "/tests/text/strip/" + name);
}

// The fixtures named, copied into dir/in/.
void CopyFixtures(const TempDir& dir, const Args& names) {
  for (const std::string& name : names) WriteFile(dir / ("in/" + name), Fixture(name));
}

// Runs neardup in `dir`, so that paths are spelled from there.
RunResult RunIn(const Args& args, const TempDir& dir) {
  return RunNeardup(args, dir.path(), testing::RunOptions().In(dir.path()));
}

const Args kPages = {"nav_a.html", "nav_b.html", "nav_c.html"};
const Args kMails = {"plain_8bit.eml", "plain_qp.eml", "plain_base64_latin1.eml", "alternative.eml", "not_mail.eml"};

// The pairs of a jsonl output, as "a b".
Args PairsOf(const std::string& out) {
  Args pairs;
  for (const std::string& line : testing::Lines(out)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    pairs.push_back(j["a"].get<std::string>() + " " + j["b"].get<std::string>());
  }
  return pairs;
}

TEST(StripTest, PagesSharingNavigationMarkupPairOnlyThroughTheirText) {
  TempDir dir;
  CopyFixtures(dir, kPages);
  const RunResult plain = RunIn({"scan", "-t", "0.8", "in"}, dir);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(PairsOf(plain.out), Args{"in/nav_a.html in/nav_b.html"}) << "the markup pairs different articles";
  for (const std::string verify : {"exact", "signature"}) {
    const RunResult html = RunIn({"scan", "-t", "0.8", "--strip", "html", "--verify", verify, "in"}, dir);
    ASSERT_EQ(html.exit_code, 0) << html.err;
    EXPECT_EQ(PairsOf(html.out), Args{"in/nav_a.html in/nav_c.html"}) << "the same article in other markup";
  }
}

TEST(StripTest, JsonlTextFieldsAreStrippedAsFilesAre) {
  TempDir dir;
  std::string lines;
  for (const std::string& name : kPages) lines += nlohmann::json{{"id", name}, {"text", Fixture(name)}}.dump() + "\n";
  lines += nlohmann::json{{"id", "mail"}, {"text", "not a message"}}.dump() + "\n";
  WriteFile(dir / "pages.jsonl", lines);
  const RunResult html = RunIn({"scan", "--input", "jsonl", "--strip", "html", "pages.jsonl"}, dir);
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_EQ(PairsOf(html.out), Args{"nav_a.html nav_c.html"});
  const RunResult mail = RunIn({"scan", "--input", "jsonl", "--strip", "mail", "pages.jsonl"}, dir);
  EXPECT_EQ(mail.exit_code, 2) << mail.err;
  EXPECT_NE(mail.err.find("pages.jsonl:4"), std::string::npos) << mail.err;
  EXPECT_NE(mail.err.find("--strip mail: not a mail message"), std::string::npos) << mail.err;
}

TEST(StripTest, MailsWithTheSameBodyClusterAndAnUnparsableOneIsNamed) {
  TempDir dir;
  CopyFixtures(dir, kMails);
  const RunResult r = RunIn({"scan", "--strip", "mail", "--mode", "clusters", "in"}, dir);
  EXPECT_EQ(r.exit_code, 2) << "an unreadable message is an error, after the results";
  EXPECT_EQ(r.out,
            "{\"cluster\":0,\"keep\":\"in/alternative.eml\",\"members\":[\"in/alternative.eml\",\"in/plain_8bit.eml\","
            "\"in/plain_base64_latin1.eml\",\"in/plain_qp.eml\"],\"size\":4}\n");
  EXPECT_NE(r.err.find("in/not_mail.eml: --strip mail: not a mail message: its first line is no header field"),
            std::string::npos)
      << r.err;
  const RunResult raw = RunIn({"scan", "--mode", "clusters", "in"}, dir);
  EXPECT_EQ(raw.exit_code, 1) << "without --strip the headers and encodings keep them apart: " << raw.out;
}

TEST(StripTest, ExplainComparesTheStrippedText) {
  TempDir dir;
  CopyFixtures(dir, kPages);
  const RunResult r = RunIn({"explain", "--strip", "html", "in/nav_a.html", "in/nav_c.html"}, dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("exact Jaccard: 1.0000"), std::string::npos) << r.out;
  const RunResult raw = RunIn({"explain", "in/nav_a.html", "in/nav_c.html"}, dir);
  EXPECT_EQ(raw.out.find("exact Jaccard: 1.0000"), std::string::npos) << raw.out;
  // The word diff of two different articles shows their words, and no markup.
  const RunResult diff = RunIn({"explain", "--strip", "html", "in/nav_a.html", "in/nav_b.html"}, dir);
  EXPECT_NE(diff.out.find("word diff of the normalized words (a -> b):\nhome docs about [-"), std::string::npos)
      << diff.out;
  EXPECT_EQ(diff.out.find("class"), std::string::npos) << diff.out;
  const RunResult markup = RunIn({"explain", "in/nav_a.html", "in/nav_b.html"}, dir);
  EXPECT_NE(markup.out.find("class"), std::string::npos) << markup.out;
}

TEST(StripTest, AFileLargerThanWhatStripHoldsIsSkippedNamingTheBound) {
  TempDir dir;
  CopyFixtures(dir, kPages);
  std::string big = "<p>";
  for (int i = 0; i < 300000; ++i) big += "word ";
  WriteFile(dir / "in/big.html", big + "</p>");
  const RunResult r = RunIn({"scan", "--strip", "html", "--max-line", "1M", "in"}, dir);
  EXPECT_EQ(r.exit_code, 0) << "counted as a file over the size limit is: " << r.err;
  EXPECT_EQ(PairsOf(r.out), Args{"in/nav_a.html in/nav_c.html"});
  EXPECT_NE(r.err.find("in/big.html: skipped, more than --max-line 1048576 bytes, the most --strip holds whole"),
            std::string::npos)
      << r.err;
  const RunResult larger = RunIn({"scan", "--strip", "html", "--max-line", "1M", "--max-filesize", "2M", "in"}, dir);
  EXPECT_EQ(larger.err.find("big.html"), std::string::npos) << "--max-filesize is the bound when given: " << larger.err;
}

TEST(StripTest, AnIndexOfAnotherStripSettingIsRefusedWithTheWayOut) {
  TempDir dir;
  CopyFixtures(dir, kPages);
  const RunResult first = RunIn({"scan", "--index", "idx.db", "in"}, dir);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const RunResult other = RunIn({"scan", "--index", "idx.db", "--strip", "html", "in"}, dir);
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("--strip: html here, none in the index"), std::string::npos) << other.err;
  EXPECT_NE(other.err.find("give another --index FILE"), std::string::npos) << other.err;
  const RunResult html1 = RunIn({"scan", "--index", "html.db", "--strip", "html", "in"}, dir);
  const RunResult html2 = RunIn({"scan", "--index", "html.db", "--strip", "html", "in"}, dir);
  EXPECT_EQ(html1.exit_code, 0) << html1.err;
  EXPECT_EQ(html2.exit_code, 0) << html2.err;
  EXPECT_EQ(PairsOf(html2.out), Args{"in/nav_a.html in/nav_c.html"});
}

TEST(StripTest, StageTasksRefuseAWorkFolderSignedWithAnotherStripSetting) {
  TempDir dir;
  CopyFixtures(dir, kPages);
  const RunResult sign = RunIn({"stage", "sign", "--task", "0", "--tasks", "1", "--strip", "html", "work", "in"}, dir);
  ASSERT_EQ(sign.exit_code, 0) << sign.err;
  const RunResult other = RunIn({"stage", "bucket", "--task", "0", "--tasks", "1", "work"}, dir);
  EXPECT_EQ(other.exit_code, 2) << other.err;
  const RunResult same = RunIn({"stage", "bucket", "--task", "0", "--tasks", "1", "--strip", "html", "work"}, dir);
  EXPECT_EQ(same.exit_code, 0) << same.err;
  const RunResult verify = RunIn({"stage", "verify", "--task", "0", "--tasks", "1", "--strip", "html", "work"}, dir);
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
  const RunResult report = RunIn({"stage", "report", "--strip", "html", "work"}, dir);
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(PairsOf(report.out), Args{"in/nav_a.html in/nav_c.html"});
}

}  // namespace
}  // namespace neardup
