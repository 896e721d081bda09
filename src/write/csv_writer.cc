// csv, tsv and duplicates writers.
//
// All three write names as the bytes they are (no UTF-8 replacement), so a
// path read back from the output names the same file. Output goes through a
// local buffer handed to the stream in blocks.
//
// csv follows RFC 4180 except for line ends: records end in "\n", not
// "\r\n" (spreadsheets, Python's csv module, pandas, xsv and others read
// both, and "\n" is what the rest of a Unix pipeline expects). A field is
// quoted when it holds `,` `"` CR or LF, with `"` doubled.
//
// tsv has no header and no quoting; backslash, tab, LF and CR in a field are
// written as \\ \t \n \r (the convention of jq's @tsv), so each record is
// one line and a field never holds a tab.

#include <ostream>
#include <string>
#include <string_view>

#include "neardup/options.h"
#include "neardup/report.h"
#include "neardup/writers.h"
#include "report/cluster.h"
#include "write/jsonl_records.h"

namespace neardup {
namespace {

constexpr size_t kFlushBytes = 64 * 1024;

// Writes and empties `buf`. Returns false once the stream has failed (e.g. a
// closed pipe), so that callers can stop early; the caller checks the stream.
bool Flush(std::string* buf, std::ostream& out) {
  out.write(buf->data(), static_cast<std::streamsize>(buf->size()));
  buf->clear();
  return out.good();
}

const char* Bool(bool value) { return value ? "true" : "false"; }

void AppendCsvField(std::string* out, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out->append(field);
    return;
  }
  out->push_back('"');
  for (const char c : field) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

void AppendTsvField(std::string* out, std::string_view field) {
  for (const char c : field) {
    switch (c) {
      case '\\':
        out->append("\\\\");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      default:
        out->push_back(c);
    }
  }
}

// One writer for both formats: the separator and the field escaping differ.
struct Dialect {
  char separator;
  void (*append_field)(std::string*, std::string_view);
};

constexpr Dialect kCsv = {',', AppendCsvField};
constexpr Dialect kTsv = {'\t', AppendTsvField};

void AppendRaw(std::string* out, char separator, std::string_view text) {
  out->push_back(separator);
  out->append(text);
}

// --relation contains|both: the fields "relation,container,contained" of a
// pair (the last two empty for a similar pair).
void AppendRelationFields(const Report& report, const Dialect& dialect, const ReportedPair& pair, std::string* buf) {
  const bool contains = pair.kind != PairKind::kSimilar;
  AppendRaw(buf, dialect.separator, contains ? "contains" : "similar");
  buf->push_back(dialect.separator);
  if (contains) dialect.append_field(buf, report.docs[pair.kind == PairKind::kAInB ? pair.b : pair.a].name);
  buf->push_back(dialect.separator);
  if (contains) dialect.append_field(buf, report.docs[pair.kind == PairKind::kAInB ? pair.a : pair.b].name);
}

// Rows "a,b[,relation,container,contained],estimate,jaccard[,containment,
// a_shingles,b_shingles][,a_reference,b_reference]". An empty jaccard means
// "not computed" (-1).
void WritePairRows(const Report& report, const Dialect& dialect, bool jaccard_column, std::ostream& out,
                   std::string* buf) {
  const bool has_reference = report.params.has_reference;
  const bool relations = report.params.relation != Relation::kSimilar;
  for (const ReportedPair& pair : report.pairs) {
    dialect.append_field(buf, report.docs[pair.a].name);
    buf->push_back(dialect.separator);
    dialect.append_field(buf, report.docs[pair.b].name);
    if (relations) AppendRelationFields(report, dialect, pair, buf);
    AppendRaw(buf, dialect.separator, FormatScore(pair.estimate));
    if (jaccard_column) {
      buf->push_back(dialect.separator);
      if (pair.jaccard >= 0) buf->append(FormatScore(pair.jaccard));
    }
    if (relations) {
      AppendRaw(buf, dialect.separator, FormatScore(pair.containment));
      AppendRaw(buf, dialect.separator, std::to_string(report.docs[pair.a].shingles));
      AppendRaw(buf, dialect.separator, std::to_string(report.docs[pair.b].shingles));
    }
    if (has_reference) {
      AppendRaw(buf, dialect.separator, Bool(report.docs[pair.a].reference));
      AppendRaw(buf, dialect.separator, Bool(report.docs[pair.b].reference));
    }
    buf->push_back('\n');
    if (buf->size() >= kFlushBytes && !Flush(buf, out)) return;
  }
}

// Rows "cluster,path,kept,reference", one per member.
void WriteClusterRows(const Report& report, const Dialect& dialect, std::ostream& out, std::string* buf) {
  for (const Cluster& cluster : report.clusters) {
    const std::string id = std::to_string(cluster.id);
    for (const DocId member : cluster.members) {
      buf->append(id);
      buf->push_back(dialect.separator);
      dialect.append_field(buf, report.docs[member].name);
      AppendRaw(buf, dialect.separator, Bool(member == cluster.keep));
      AppendRaw(buf, dialect.separator, Bool(report.docs[member].reference));
      buf->push_back('\n');
    }
    if (buf->size() >= kFlushBytes && !Flush(buf, out)) return;
  }
}

// Rows "path,kept,estimate[,jaccard][,kept_reference]", one per removable
// document.
void WriteRemovalRows(const Report& report, const Dialect& dialect, bool jaccard_column, std::ostream& out,
                      std::string* buf) {
  for (const Removal& r : report.removable) {
    dialect.append_field(buf, report.docs[r.doc].name);
    buf->push_back(dialect.separator);
    dialect.append_field(buf, report.docs[r.kept].name);
    AppendRaw(buf, dialect.separator, FormatScore(r.estimate));
    if (jaccard_column) {
      buf->push_back(dialect.separator);
      if (r.jaccard >= 0) buf->append(FormatScore(r.jaccard));
    }
    if (report.params.has_reference) AppendRaw(buf, dialect.separator, Bool(report.docs[r.kept].reference));
    buf->push_back('\n');
    if (buf->size() >= kFlushBytes && !Flush(buf, out)) return;
  }
}

}  // namespace

void WriteRemovals(const Report& report, OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::kJsonl) {
    WriteJsonlRemovals(report, out);
    return;
  }
  std::string buf;
  const bool exact = report.params.verify == VerifyMode::kExact;
  if (format == OutputFormat::kCsv) {
    buf.append("path,kept,estimate,jaccard");
    if (report.params.has_reference) buf.append(",kept_reference");
    buf.push_back('\n');
  }
  WriteRemovalRows(report, format == OutputFormat::kCsv ? kCsv : kTsv, format == OutputFormat::kCsv || exact, out,
                   &buf);
  Flush(&buf, out);
}

void WriteCsv(const Report& report, std::ostream& out) {
  std::string buf;
  // Clusters and duplicates modes both carry clusters.
  if (report.params.mode == Mode::kPairs) {
    const bool relations = report.params.relation != Relation::kSimilar;
    buf.append(relations ? "a,b,relation,container,contained,estimate,jaccard,containment,a_shingles,b_shingles"
                         : "a,b,estimate,jaccard");
    if (report.params.has_reference) buf.append(",a_reference,b_reference");
    buf.push_back('\n');
    WritePairRows(report, kCsv, /*jaccard_column=*/true, out, &buf);
  } else {
    buf.append("cluster,path,kept,reference\n");
    WriteClusterRows(report, kCsv, out, &buf);
  }
  Flush(&buf, out);
}

void WriteTsv(const Report& report, std::ostream& out) {
  std::string buf;
  if (report.params.mode == Mode::kPairs) {
    // The jaccard column is there when jaccard was computed. It is decided
    // for the whole output, not per row, so every row has the same columns
    // (a pair without it, if any, gets an empty field).
    // --relation contains|both: always, so that its columns are fixed.
    bool jaccard_column = report.params.relation != Relation::kSimilar;
    for (const ReportedPair& pair : report.pairs) {
      if (pair.jaccard >= 0) {
        jaccard_column = true;
        break;
      }
    }
    WritePairRows(report, kTsv, jaccard_column, out, &buf);
  } else {
    WriteClusterRows(report, kTsv, out, &buf);
  }
  Flush(&buf, out);
}

void WriteDuplicates(const Report& report, std::ostream& out, char terminator) {
  std::string buf;
  for (const Removal& r : report.removable) {
    buf.append(report.docs[r.doc].name);
    buf.push_back(terminator);
    if (buf.size() >= kFlushBytes && !Flush(&buf, out)) return;
  }
  Flush(&buf, out);
}

}  // namespace neardup
