// Fixture: a report whose document names need every kind of escaping, and
// the writers run into strings, for the tests of the writers
// (json_writer_test.cc, csv_writer_test.cc). Test code only.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "neardup/report.h"
#include "neardup/writers.h"
#include "report/cluster.h"

namespace neardup {
namespace testing {

// Names chosen to need every kind of escaping somewhere.
inline const std::string kA = "docs/a.txt";
inline const std::string kComma = "docs/b,c\\d.txt";         // comma, backslash
inline const std::string kQuote = "docs/q\"uote\x01.txt";    // quote, control char
inline const std::string kTab = "docs/tab\there.txt";        // tab
inline const std::string kNewline = "docs/new\nline.txt";    // newline
inline const std::string kBad = "docs/bad\xFF\xE2\x82.txt";  // invalid byte, truncated sequence
inline const std::string kRef = "ref/r.txt";                 // reference document
inline const std::string kRef2 = "ref/s.txt";                // reference document

enum Doc : DocId { A, Comma, Quote, Tab, Newline, Bad, Ref, Ref2 };

inline Report MakeReport(Mode mode, bool exact, bool has_reference) {
  Report report;
  report.params.threshold = 0.8;
  report.params.bands = 16;
  report.params.rows = 8;
  report.params.verify = exact ? VerifyMode::kExact : VerifyMode::kSignature;
  report.params.mode = mode;
  report.params.has_reference = has_reference;
  for (const std::string& name : {kA, kComma, kQuote, kTab, kNewline, kBad, kRef, kRef2}) {
    DocEntry entry;
    entry.name = name;
    entry.size = 100;
    entry.reference = has_reference && name.rfind("ref/", 0) == 0;
    report.docs.push_back(entry);
  }
  if (mode == Mode::kPairs) {
    report.pairs = {
        {A, Comma, 0.875, exact ? 0.86123 : -1},
        {Quote, Tab, 1.0, exact ? 1.0 : -1},
        {Bad, Newline, 0.80004, exact ? 0.8 : -1},
        {A, Ref, 0.9, exact ? 0.91 : -1},
    };
  } else {
    report.clusters = {
        {0, A, {A, Comma, Ref}},
        {1, Tab, {Bad, Quote, Tab}},
        {2, Ref2, {Newline, Ref2}},
    };
  }
  report.stats.documents = 8;
  report.stats.bytes = 800;
  report.stats.too_short = 5;
  report.stats.hidden = 1;
  report.stats.glob = 2;
  report.stats.too_large = 3;
  report.stats.binary = 4;
  report.stats.unreadable = 6;
  report.stats.malformed_lines = 7;
  report.stats.invalid_utf8 = 2;
  report.stats.transcoded = 1;
  report.stats.exact_duplicates = 1;
  report.stats.candidates = 9;
  report.removable = Removable(report.docs, report.clusters);
  report.stats.seconds = 1.25;
  return report;
}

template <typename Writer>
inline std::string Run(Writer writer, const Report& report) {
  std::ostringstream out;
  writer(report, out);
  return out.str();
}

inline std::string Jsonl(const Report& report) { return Run(WriteJsonl, report); }
inline std::string Json(const Report& report) { return Run(WriteJson, report); }
inline std::string Csv(const Report& report) { return Run(WriteCsv, report); }
inline std::string Tsv(const Report& report) { return Run(WriteTsv, report); }

inline std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Builds a pairs report whose names are `names` (pair i = names[2i],
// names[2i+1]).
inline Report ReportWithNames(const std::vector<std::string>& names) {
  Report report;
  for (const std::string& name : names) report.docs.push_back({name, 0, 0, false});
  for (DocId i = 0; i + 1 < names.size(); i += 2) report.pairs.push_back({i, i + 1, 0.5, -1});
  return report;
}

}  // namespace testing
}  // namespace neardup
