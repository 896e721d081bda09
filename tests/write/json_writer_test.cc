// The json and jsonl writers (json_writer.cc, through neardup/writers.h):
// FormatScore(), WriteJsonl(), WriteJson(), and WriteReport() dispatching on
// the format.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "neardup/report.h"
#include "neardup/version.h"
#include "neardup/writers.h"
#include "write/report_fixture.h"

namespace neardup {
namespace {

using testing::Csv;
using testing::Json;
using testing::Jsonl;
using testing::kA;
using testing::kBad;
using testing::kComma;
using testing::kNewline;
using testing::kQuote;
using testing::kRef;
using testing::kRef2;
using testing::kTab;
using testing::MakeReport;
using testing::ReportWithNames;
using testing::SplitLines;
using testing::Tsv;

using nlohmann::json;

// U+FFFD, as written for invalid UTF-8 in jsonl and json.
const std::string kFffd = "\xEF\xBF\xBD";

// ----------------------------------------------------------------- FormatScore

TEST(FormatScoreTest, RoundsToFourDecimalsWithoutTrailingZeros) {
  EXPECT_EQ(FormatScore(0.875), "0.875");
  EXPECT_EQ(FormatScore(1.0), "1");
  EXPECT_EQ(FormatScore(0.86123), "0.8612");
  EXPECT_EQ(FormatScore(0.86127), "0.8613");
  EXPECT_EQ(FormatScore(0.0), "0");
  EXPECT_EQ(FormatScore(-0.0), "0");
  EXPECT_EQ(FormatScore(0.5), "0.5");
  EXPECT_EQ(FormatScore(0.1 + 0.2), "0.3");
  EXPECT_EQ(FormatScore(0.0001), "0.0001");  // fixed notation, not 1e-04
  EXPECT_EQ(FormatScore(0.00004), "0");
  EXPECT_EQ(FormatScore(0.80004), "0.8");
}

// A score of 1 means the same tokens: a score below 1, however close, is
// never rounded up to 1 (in every format: they all print through it).
TEST(FormatScoreTest, OnlyOnePrintsAsOne) {
  EXPECT_EQ(FormatScore(1.0), "1");
  EXPECT_EQ(FormatScore(0.99996), "0.9999");
  EXPECT_EQ(FormatScore(0.99995), "0.9999");
  EXPECT_EQ(FormatScore(0.9999999999), "0.9999");
  EXPECT_EQ(FormatScore(std::nextafter(1.0, 0.0)), "0.9999");
  EXPECT_EQ(FormatScore(0.99994), "0.9999");
  EXPECT_EQ(FormatScore(0.99985), "0.9999");  // rounds up as before when it stays below 1
  Report report;
  report.docs = {{"x", 0, 0, false}, {"y", 0, 0, false}};
  report.pairs.push_back({0, 1, 0.99997, 0.99999});
  EXPECT_EQ(SplitLines(Jsonl(report)),
            std::vector<std::string>{R"({"a":"x","b":"y","estimate":0.9999,"jaccard":0.9999})"});
  const json doc = json::parse(Json(report));
  EXPECT_EQ(doc["pairs"][0]["estimate"].dump(), "0.9999");
  EXPECT_EQ(doc["pairs"][0]["jaccard"].dump(), "0.9999");
  EXPECT_NE(Csv(report).find("x,y,0.9999,0.9999"), std::string::npos) << Csv(report);
}

// ----------------------------------------------------------------------- jsonl

TEST(WriteJsonlTest, PairsWithJaccard) {
  const std::string expected = R"({"a":"docs/a.txt","b":"docs/b,c\\d.txt","estimate":0.875,"jaccard":0.8612})"
                               "\n"
                               R"({"a":"docs/q\"uote\u0001.txt","b":"docs/tab\there.txt","estimate":1,"jaccard":1})"
                               "\n"
                               R"({"a":"docs/bad)" +
                               kFffd + kFffd +
                               R"(.txt","b":"docs/new\nline.txt","estimate":0.8,"jaccard":0.8})"
                               "\n"
                               R"({"a":"docs/a.txt","b":"ref/r.txt","estimate":0.9,"jaccard":0.91})"
                               "\n";
  EXPECT_EQ(Jsonl(MakeReport(Mode::kPairs, true, false)), expected);
}

TEST(WriteJsonlTest, PairsWithoutJaccardWithReference) {
  const std::string expected = R"({"a":"docs/a.txt","b":"docs/b,c\\d.txt","estimate":0.875,"reference":[]})"
                               "\n"
                               R"({"a":"docs/q\"uote\u0001.txt","b":"docs/tab\there.txt","estimate":1,"reference":[]})"
                               "\n"
                               R"({"a":"docs/bad)" +
                               kFffd + kFffd +
                               R"(.txt","b":"docs/new\nline.txt","estimate":0.8,"reference":[]})"
                               "\n"
                               R"({"a":"docs/a.txt","b":"ref/r.txt","estimate":0.9,"reference":["ref/r.txt"]})"
                               "\n";
  EXPECT_EQ(Jsonl(MakeReport(Mode::kPairs, false, true)), expected);
}

TEST(WriteJsonlTest, Clusters) {
  const std::string expected =
      R"({"cluster":0,"keep":"docs/a.txt","members":["docs/a.txt","docs/b,c\\d.txt","ref/r.txt"],"size":3})"
      "\n"
      R"({"cluster":1,"keep":"docs/tab\there.txt","members":["docs/bad)" +
      kFffd + kFffd +
      R"(.txt","docs/q\"uote\u0001.txt","docs/tab\there.txt"],"size":3})"
      "\n"
      R"({"cluster":2,"keep":"ref/s.txt","members":["docs/new\nline.txt","ref/s.txt"],"size":2})"
      "\n";
  EXPECT_EQ(Jsonl(MakeReport(Mode::kClusters, false, false)), expected);
}

TEST(WriteJsonlTest, ClustersWithReference) {
  const std::vector<std::string> lines = SplitLines(Jsonl(MakeReport(Mode::kClusters, false, true)));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(
      lines[0],
      R"({"cluster":0,"keep":"docs/a.txt","members":["docs/a.txt","docs/b,c\\d.txt","ref/r.txt"],"size":3,"reference":["ref/r.txt"]})");
  EXPECT_NE(lines[1].find(R"("size":3,"reference":[]})"), std::string::npos) << lines[1];
  EXPECT_EQ(
      lines[2],
      R"({"cluster":2,"keep":"ref/s.txt","members":["docs/new\nline.txt","ref/s.txt"],"size":2,"reference":["ref/s.txt"]})");
}

TEST(WriteJsonlTest, EmptyReportWritesNothing) {
  Report report;
  EXPECT_EQ(Jsonl(report), "");
  report.params.mode = Mode::kClusters;
  EXPECT_EQ(Jsonl(report), "");
}

std::string NlohmannString(const std::string& s) {
  return json(s).dump(-1, ' ', false, json::error_handler_t::replace);
}

void ExpectJsonlEscapesLikeNlohmann(const std::vector<std::string>& names) {
  std::vector<std::string> padded = names;
  if (padded.size() % 2 == 1) padded.push_back("");
  const std::vector<std::string> lines = SplitLines(Jsonl(ReportWithNames(padded)));
  ASSERT_EQ(lines.size(), padded.size() / 2);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string expected = "{\"a\":" + NlohmannString(padded[2 * i]) +
                                 ",\"b\":" + NlohmannString(padded[2 * i + 1]) + ",\"estimate\":0.5}";
    ASSERT_EQ(lines[i], expected) << "pair " << i;
  }
}

TEST(WriteJsonlTest, EscapesTrickyStringsLikeNlohmann) {
  using namespace std::string_literals;
  ExpectJsonlEscapesLikeNlohmann({
      ""s,
      "\x00"s,
      "\x01\x1f\x7f \"\\/\b\f\n\r\t"s,
      "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xEF\xBF\xBF \xF4\x8F\xBF\xBF"s,  // valid
      "\xFF"s,
      "a\xE2\x82"s,             // truncated at the end
      "\xE2\x82z"s,             // truncated in the middle
      "\xE2\x82\xE2\x82\xAC"s,  // truncated, then a valid sequence
      "\xC0\x80"s,              // overlong
      "\xE0\x80\x80"s,          // overlong
      "\xED\xA0\x80"s,          // UTF-16 surrogate
      "\xF4\x90\x80\x80"s,      // above U+10FFFF
      "\xF5\x80"s,
      "\x80\xBF"s,  // lone continuation bytes
      "\xC2"s,
      "\xF0\x9F\x98"s,
      "\xF0\x9F\x98 "s,
      "docs/bad\xFF\xE2\x82.txt"s,
  });
}

TEST(WriteJsonlTest, EscapesRandomBytesLikeNlohmann) {
  // Bytes drawn mostly from the interesting ranges: controls, quote,
  // backslash, continuation bytes and lead bytes.
  using namespace std::string_literals;
  std::mt19937 rng(12345);
  const std::string pool =
      "\x00\x01\x1f\x7f\"\\"
      "abc "
      "\x80\x8f\x90\x9f\xa0\xbf\xc0\xc1\xc2\xdf\xe0\xe1\xec\xed\xee\xef\xf0\xf1\xf3\xf4\xf5\xff"s;
  ASSERT_EQ(pool.size(), 32u);
  std::vector<std::string> names;
  for (int i = 0; i < 4000; ++i) {
    std::string name;
    const size_t length = rng() % 12;
    for (size_t k = 0; k < length; ++k) {
      name.push_back(rng() % 4 == 0 ? static_cast<char>(rng() % 256) : pool[rng() % pool.size()]);
    }
    names.push_back(name);
  }
  ExpectJsonlEscapesLikeNlohmann(names);
}

TEST(WriteJsonlTest, ScoresAreWrittenAsInJson) {
  // The same numbers must come out of the hand-written jsonl and of nlohmann.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> scores = {0,   1,     0.00005, 0.00004, 0.0001, 0.99995, 0.99994,    0.12345,
                                0.5, 0.875, 0.86123, 1e-9,    0.3,    0.99999, 0.999999999};
  for (int i = 0; i < 3000; ++i) scores.push_back(unit(rng));
  Report report;
  report.docs = {{"x", 0, 0, false}, {"y", 0, 0, false}};
  for (double score : scores) report.pairs.push_back({0, 1, score, score});

  const std::vector<std::string> lines = SplitLines(Jsonl(report));
  const json doc = json::parse(Json(report));
  ASSERT_EQ(lines.size(), scores.size());
  ASSERT_EQ(doc["pairs"].size(), scores.size());
  for (size_t i = 0; i < scores.size(); ++i) {
    const json& entry = doc["pairs"][i];
    const std::string expected = "{\"a\":\"x\",\"b\":\"y\",\"estimate\":" + entry["estimate"].dump() +
                                 ",\"jaccard\":" + entry["jaccard"].dump() + "}";
    ASSERT_EQ(lines[i], expected) << "score " << scores[i];
    ASSERT_EQ(entry["estimate"].dump(), FormatScore(scores[i]));
  }
}

TEST(WriteJsonlTest, InvalidUtf8InNamesBecomesOneReplacementPerSequence) {
  // \xFF is one ill-formed byte; \xE2\x82 is a sequence cut short by '.':
  // one U+FFFD each. A valid sequence after a broken one is kept.
  const Report report = ReportWithNames({kBad, "x\xE2\x82\xE2\x82\xAC\xC0\xAF"});
  const std::string line = Jsonl(report);
  EXPECT_EQ(line, "{\"a\":\"docs/bad" + kFffd + kFffd + ".txt\",\"b\":\"x" + kFffd + "\xE2\x82\xAC" + kFffd + kFffd +
                      "\",\"estimate\":0.5}\n");
  const json parsed = json::parse(line);  // throws on invalid UTF-8
  EXPECT_EQ(parsed["a"], "docs/bad" + kFffd + kFffd + ".txt");
}

// ------------------------------------------------------------------------ json

TEST(WriteJsonTest, PairsDocument) {
  const std::string expected = R"({
  "neardup": "0.1.0",
  "format": 1,
  "params": {
    "threshold": 0.8,
    "shingle": "word",
    "ngram": 5,
    "num_perm": 128,
    "bands": 16,
    "rows": 8,
    "seed": 1,
    "verify": "exact",
    "mode": "pairs"
  },
  "stats": {
    "documents": 8,
    "bytes": 800,
    "empty": 0,
    "too_short": 5,
    "hidden": 1,
    "glob": 2,
    "too_large": 3,
    "binary": 4,
    "unreadable": 6,
    "malformed_lines": 7,
    "invalid_utf8": 2,
    "transcoded": 1,
    "exact_duplicates": 1,
    "skipped": 15,
    "candidates": 9,
    "pairs": 4,
    "clusters": 0,
    "clustered": 0,
    "removable": 0,
    "removable_bytes": 0
  },
  "pairs": [
    {
      "a": "docs/a.txt",
      "b": "docs/b,c\\d.txt",
      "estimate": 0.875,
      "jaccard": 0.8612
    },
    {
      "a": "docs/q\"uote\u0001.txt",
      "b": "docs/tab\there.txt",
      "estimate": 1,
      "jaccard": 1
    },
    {
      "a": "docs/bad)" + kFffd +
                               kFffd + R"(.txt",
      "b": "docs/new\nline.txt",
      "estimate": 0.8,
      "jaccard": 0.8
    },
    {
      "a": "docs/a.txt",
      "b": "ref/r.txt",
      "estimate": 0.9,
      "jaccard": 0.91
    }
  ]
}
)";
  EXPECT_EQ(Json(MakeReport(Mode::kPairs, true, false)), expected);
}

TEST(WriteJsonTest, EmptyPairsDocumentEndsWithEmptyArray) {
  Report report;
  const std::string text = Json(report);
  const std::string tail = "\n  \"pairs\": []\n}\n";
  ASSERT_GE(text.size(), tail.size());
  EXPECT_EQ(text.substr(text.size() - tail.size()), tail);
  EXPECT_EQ(text.find("\"keep\""), std::string::npos);
  EXPECT_EQ(text.find("\"seconds\""), std::string::npos);
}

TEST(WriteJsonTest, ClustersDocumentParsesBack) {
  const json doc = json::parse(Json(MakeReport(Mode::kClusters, false, true)));
  EXPECT_EQ(doc["neardup"], kVersion);
  EXPECT_EQ(doc["format"], kFormatVersion);
  EXPECT_EQ(doc["params"]["mode"], "clusters");
  EXPECT_EQ(doc["params"]["verify"], "signature");
  EXPECT_EQ(doc["params"]["keep"], "first");
  EXPECT_EQ(doc["params"]["cluster_by"], "keep");
  EXPECT_FALSE(doc.contains("pairs"));
  EXPECT_FALSE(doc["stats"].contains("seconds"));
  ASSERT_EQ(doc["clusters"].size(), 3u);
  const json& second = doc["clusters"][1];
  EXPECT_EQ(second["cluster"], 1);
  EXPECT_EQ(second["keep"], kTab);
  EXPECT_EQ(second["members"], json::array({"docs/bad" + kFffd + kFffd + ".txt", kQuote, kTab}));
  EXPECT_EQ(second["size"], 3);
  EXPECT_EQ(second["reference"], json::array());
  EXPECT_EQ(doc["clusters"][2]["reference"], json::array({kRef2}));
}

TEST(WriteJsonTest, ParamsKeyOrderInClustersMode) {
  Report report = MakeReport(Mode::kClusters, false, false);
  report.params.shingle = ShingleUnit::kChar;
  report.params.ngram = 9;
  report.params.seed = 18446744073709551615u;
  report.params.verify = VerifyMode::kNone;
  report.params.keep = KeepRule::kLongest;
  report.params.cluster_by = ClusterBy::kKeep;
  report.params.threshold = 0.73;
  const std::string expected_params = R"(  "params": {
    "threshold": 0.73,
    "shingle": "char",
    "ngram": 9,
    "num_perm": 128,
    "bands": 16,
    "rows": 8,
    "seed": 18446744073709551615,
    "verify": "none",
    "mode": "clusters",
    "keep": "longest",
    "cluster_by": "keep"
  },
)";
  EXPECT_NE(Json(report).find(expected_params), std::string::npos) << Json(report);
}

TEST(WriteJsonTest, DuplicatesModeListsRemovable) {
  const json doc = json::parse(Json(MakeReport(Mode::kDuplicates, false, true)));
  EXPECT_EQ(doc["params"]["mode"], "duplicates");
  EXPECT_FALSE(doc.contains("clusters"));
  std::vector<std::string> paths;
  for (const json& r : doc["removable"]) paths.push_back(r["path"]);
  EXPECT_EQ(paths, (std::vector<std::string>{kComma, "docs/bad" + kFffd + kFffd + ".txt", kNewline,
                                             kQuote}));  // sorted by name
}

TEST(WriteJsonTest, AgreesWithJsonl) {
  for (const Mode mode : {Mode::kPairs, Mode::kClusters}) {
    for (const bool reference : {false, true}) {
      for (const bool exact : {false, true}) {
        const Report report = MakeReport(mode, exact, reference);
        // ordered_json keeps the keys in the order written.
        const auto doc = nlohmann::ordered_json::parse(Json(report));
        const auto& records = doc[mode == Mode::kPairs ? "pairs" : "clusters"];
        const std::vector<std::string> lines = SplitLines(Jsonl(report));
        ASSERT_EQ(lines.size(), records.size());
        for (size_t i = 0; i < lines.size(); ++i) {
          const auto record = nlohmann::ordered_json::parse(lines[i]);
          EXPECT_EQ(record, records[i]) << lines[i];
          EXPECT_EQ(record.dump(), records[i].dump());  // same keys, same order
        }
      }
    }
  }
}

TEST(WriteJsonTest, SameBytesWhateverTheTiming) {
  Report report = MakeReport(Mode::kPairs, true, true);
  const std::string first = Json(report);
  report.stats.seconds = 99;
  EXPECT_EQ(Json(report), first);
}

// ------------------------------------------------------------------
// WriteReport

TEST(WriteReportTest, DispatchesOnFormat) {
  const Report report = MakeReport(Mode::kPairs, true, true);
  const std::vector<std::pair<OutputFormat, std::string>> cases = {
      {OutputFormat::kJsonl, Jsonl(report)},
      {OutputFormat::kJson, Json(report)},
      {OutputFormat::kCsv, Csv(report)},
      {OutputFormat::kTsv, Tsv(report)},
  };
  for (const auto& [format, expected] : cases) {
    std::ostringstream out;
    WriteReport(report, format, out);
    EXPECT_EQ(out.str(), expected);
  }
}

TEST(WriteReportTest, DuplicatesModeWritesBarePathsWithoutFormat) {
  const Report report = MakeReport(Mode::kDuplicates, false, true);
  const std::string nul(1, '\0');
  std::ostringstream out;
  WriteReport(report, OutputFormat::kPaths, out, '\0');
  EXPECT_EQ(out.str(), kComma + nul + kBad + nul + kNewline + nul + kQuote + nul);
}

// With -f, one record per removable document naming the one it duplicates,
// with the scores it was judged by.
TEST(WriteReportTest, DuplicatesModeRecordsNameTheKeptDocument) {
  Report report = MakeReport(Mode::kDuplicates, true, true);
  for (Removal& r : report.removable) {
    r.estimate = 0.875;
    r.jaccard = 0.86123;
  }
  std::ostringstream jsonl, csv, tsv;
  WriteReport(report, OutputFormat::kJsonl, jsonl);
  WriteReport(report, OutputFormat::kCsv, csv);
  WriteReport(report, OutputFormat::kTsv, tsv);
  const std::vector<std::string> lines = SplitLines(jsonl.str());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(
      lines[0],
      R"({"path":"docs/b,c\\d.txt","kept":"docs/a.txt","estimate":0.875,"jaccard":0.8612,"kept_reference":false})");
  EXPECT_EQ(json::parse(lines[2])["kept"], kRef2);  // newline.txt's cluster keeps its reference copy
  EXPECT_EQ(json::parse(lines[2])["kept_reference"], true);
  EXPECT_EQ(csv.str().substr(0, csv.str().find('\n')), "path,kept,estimate,jaccard,kept_reference");
  EXPECT_NE(csv.str().find("\"docs/b,c\\d.txt\",docs/a.txt,0.875,0.8612,false\n"), std::string::npos);
  EXPECT_EQ(SplitLines(tsv.str())[0], "docs/b,c\\\\d.txt\tdocs/a.txt\t0.875\t0.8612\tfalse");
}

TEST(WriteReportTest, DuplicatesModeJsonIsOneDocumentWithRemovable) {
  // -f json stays a json document in duplicates mode, as docs/output.md shows:
  // the same header as the other modes, then "removable" (the terminator
  // does not apply).
  const Report report = MakeReport(Mode::kDuplicates, false, true);
  std::ostringstream out;
  WriteReport(report, OutputFormat::kJson, out, '\0');
  EXPECT_EQ(out.str(), Json(report));
  const json doc = json::parse(out.str());
  EXPECT_EQ(doc["params"]["mode"], "duplicates");
  EXPECT_TRUE(doc.contains("stats"));
  EXPECT_FALSE(doc.contains("pairs"));
  EXPECT_FALSE(doc.contains("clusters"));
  ASSERT_EQ(doc["removable"].size(), 4u);
  EXPECT_EQ(doc["removable"][0]["path"], kComma);
  EXPECT_EQ(doc["removable"][0]["kept"], kA);
}

// A stream that records how the writer hands its bytes over.
class RecordingBuf : public std::streambuf {
 public:
  std::vector<std::string> writes;

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    writes.emplace_back(s, static_cast<size_t>(n));
    return n;
  }
  int_type overflow(int_type ch) override {
    if (ch != traits_type::eof()) writes.emplace_back(1, static_cast<char>(ch));
    return traits_type::not_eof(ch);
  }
};

TEST(WriteReportTest, EveryWriteHoldsWholeRecords) {
  // The front end flushes only between writes, so that a signal never cuts
  // a record: each write must end at a record boundary.
  Report big;
  big.params.mode = Mode::kPairs;
  for (int i = 0; i < 20000; ++i) big.docs.push_back({"doc" + std::to_string(i), 0, 0, false});
  for (DocId i = 0; i + 1 < 20000; i += 2) big.pairs.push_back({i, i + 1, 0.9, -1});
  Report clusters = MakeReport(Mode::kClusters, false, true);
  Report duplicates = MakeReport(Mode::kDuplicates, false, true);
  struct Case {
    const Report* report;
    OutputFormat format;
    char terminator;
  };
  const Case cases[] = {
      {&big, OutputFormat::kJsonl, '\n'},        {&big, OutputFormat::kCsv, '\n'},
      {&big, OutputFormat::kTsv, '\n'},          {&big, OutputFormat::kJson, '\n'},
      {&clusters, OutputFormat::kJsonl, '\n'},   {&clusters, OutputFormat::kJson, '\n'},
      {&duplicates, OutputFormat::kPaths, '\0'}, {&duplicates, OutputFormat::kJsonl, '\n'},
      {&duplicates, OutputFormat::kJson, '\n'},
  };
  for (const Case& c : cases) {
    RecordingBuf buf;
    std::ostream out(&buf);
    WriteReport(*c.report, c.format, out, c.terminator);
    ASSERT_FALSE(buf.writes.empty());
    std::string all;
    for (const std::string& w : buf.writes) {
      ASSERT_FALSE(w.empty());
      EXPECT_EQ(w.back(), c.terminator) << static_cast<int>(c.format);
      all += w;
    }
    if (c.format == OutputFormat::kJson) {
      EXPECT_EQ(buf.writes.size(), 1u);  // the document in one piece
      EXPECT_TRUE(json::accept(all));
    }
  }
}

TEST(WriteReportTest, LargeOutputIsComplete) {
  // More than one flush block.
  Report report;
  report.params.mode = Mode::kPairs;
  for (int i = 0; i < 20000; ++i) report.docs.push_back({"doc" + std::to_string(i), 0, 0, false});
  for (DocId i = 0; i + 1 < 20000; i += 2) report.pairs.push_back({i, i + 1, 0.9, -1});
  const std::vector<std::string> lines = SplitLines(Jsonl(report));
  ASSERT_EQ(lines.size(), 10000u);
  EXPECT_EQ(lines.back(), R"({"a":"doc19998","b":"doc19999","estimate":0.9})");
  EXPECT_EQ(SplitLines(Csv(report)).size(), 10001u);
  EXPECT_EQ(SplitLines(Tsv(report)).back(), "doc19998\tdoc19999\t0.9");
}

}  // namespace
}  // namespace neardup
