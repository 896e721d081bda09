// jsonl and json writers, score formatting, and WriteReport's dispatch.
//
// jsonl is written by hand into a local buffer (it may be millions of lines);
// json is one document built with nlohmann::ordered_json, so keys keep the
// order documented in docs/output.md. Both write invalid UTF-8 in names as
// U+FFFD in the same way: AppendJsonString() replaces each maximal ill-formed
// subsequence with one U+FFFD, as nlohmann's error_handler_t::replace does
// (tests compare the two on random bytes).

#include <charconv>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>

#include "base/utf8.h"
#include "neardup/option_table.h"
#include "neardup/options.h"
#include "neardup/report.h"
#include "neardup/version.h"
#include "neardup/writers.h"
#include "report/cluster.h"
#include "write/jsonl_records.h"

namespace neardup {
namespace {

using Json = nlohmann::ordered_json;

// jsonl output is handed to the stream in blocks of about this size.
constexpr size_t kFlushBytes = 64 * 1024;

// Writes and empties `buf`. Returns false once the stream has failed (e.g. a
// closed pipe), so that callers can stop early; the caller checks the stream.
bool Flush(std::string* buf, std::ostream& out) {
  out.write(buf->data(), static_cast<std::streamsize>(buf->size()));
  buf->clear();
  return out.good();
}

// `value` rounded to 4 decimals, with -0 turned into 0; a value below 1 never
// rounds up to 1 (a score of 1 means the same tokens): 0.99996 is 0.9999.
double RoundScore(double value) {
  const double rounded = std::round(value * 10000.0) / 10000.0;
  if (value < 1.0 && rounded >= 1.0) return 0.9999;
  return rounded == 0 ? 0.0 : rounded;
}

// A score as a json number that nlohmann prints as FormatScore() does: it
// prints doubles in shortest round-trip form, but 1.0 as "1.0", so whole
// values are stored as integers.
Json ScoreJson(double value) {
  const double rounded = RoundScore(value);
  if (rounded == std::trunc(rounded) && std::fabs(rounded) < 1e15) {
    return static_cast<int64_t>(rounded);
  }
  return rounded;
}

void AppendReplacement(std::string* out) { out->append(kUtf8Replacement); }

// Appends `s` as a JSON string: quotes; `"` `\` escaped; control characters
// as \b \f \n \r \t or \u00xx (lowercase hex); other bytes as they are when
// they form valid UTF-8, and one U+FFFD per maximal ill-formed subsequence
// otherwise (an invalid lead byte, or a truncated sequence: the byte that
// breaks it is read again). This is byte for byte what nlohmann's dump(...,
// ensure_ascii = false, error_handler_t::replace) writes.
void AppendJsonString(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    // Copy a run of bytes that need no attention in one go.
    size_t run = i;
    while (run < n) {
      const auto c = static_cast<unsigned char>(s[run]);
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
      ++run;
    }
    out->append(s.data() + i, run - i);
    i = run;
    if (i == n) break;

    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          out->append("\\\"");
          break;
        case '\\':
          out->append("\\\\");
          break;
        case '\b':
          out->append("\\b");
          break;
        case '\f':
          out->append("\\f");
          break;
        case '\n':
          out->append("\\n");
          break;
        case '\r':
          out->append("\\r");
          break;
        case '\t':
          out->append("\\t");
          break;
        default:
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 0xF]);
      }
      ++i;
      continue;
    }
    const Utf8Char u = DecodeUtf8Char(s, i);
    if (u.status == Utf8Status::kValid) {
      out->append(s.data() + i, u.length);
    } else {
      AppendReplacement(out);
    }
    i += u.length;
  }
  out->push_back('"');
}

// See FormatScore().
void AppendScore(std::string* out, double value) {
  // Fixed notation, shortest digits that read back to the rounded value:
  // 0.875, 1, 0.8612, 0.0001 (never 1e-04). Room for any double.
  char text[400];
  const auto [end, error] = std::to_chars(text, text + sizeof(text), RoundScore(value), std::chars_format::fixed);
  if (error != std::errc()) return;  // unreachable: the buffer fits any double
  out->append(text, end);
}

// ,"reference":[names of `ids` that are reference documents]
template <typename Ids>
void AppendReferenceList(std::string* out, const Report& report, const Ids& ids) {
  out->append(",\"reference\":[");
  bool first = true;
  for (const DocId id : ids) {
    if (!report.docs[id].reference) continue;
    if (!first) out->push_back(',');
    first = false;
    AppendJsonString(out, report.docs[id].name);
  }
  out->push_back(']');
}

template <typename Ids>
Json ReferenceListJson(const Report& report, const Ids& ids) {
  Json list = Json::array();
  for (const DocId id : ids) {
    if (report.docs[id].reference) list.push_back(report.docs[id].name);
  }
  return list;
}

// --relation contains|both: the pair's relation, and for a containment its
// container and contained document (docs/output.md).
void AppendRelation(std::string* buf, const Report& report, const ReportedPair& pair) {
  buf->append(",\"relation\":");
  if (pair.kind == PairKind::kSimilar) {
    buf->append("\"similar\"");
    return;
  }
  buf->append("\"contains\",\"container\":");
  AppendJsonString(buf, report.docs[pair.kind == PairKind::kAInB ? pair.b : pair.a].name);
  buf->append(",\"contained\":");
  AppendJsonString(buf, report.docs[pair.kind == PairKind::kAInB ? pair.a : pair.b].name);
}

// --relation contains|both: the containment and both sizes.
void AppendContainment(std::string* buf, const Report& report, const ReportedPair& pair) {
  buf->append(",\"containment\":");
  AppendScore(buf, pair.containment);
  buf->append(",\"a_shingles\":").append(std::to_string(report.docs[pair.a].shingles));
  buf->append(",\"b_shingles\":").append(std::to_string(report.docs[pair.b].shingles));
}

void WriteJsonlPairs(const Report& report, std::ostream& out) {
  std::string buf;
  const bool relations = report.params.relation != Relation::kSimilar;
  for (const ReportedPair& pair : report.pairs) {
    buf.append("{\"a\":");
    AppendJsonString(&buf, report.docs[pair.a].name);
    buf.append(",\"b\":");
    AppendJsonString(&buf, report.docs[pair.b].name);
    if (relations) AppendRelation(&buf, report, pair);
    buf.append(",\"estimate\":");
    AppendScore(&buf, pair.estimate);
    if (pair.jaccard >= 0) {
      buf.append(",\"jaccard\":");
      AppendScore(&buf, pair.jaccard);
    }
    if (relations) AppendContainment(&buf, report, pair);
    if (report.params.has_reference) {
      const DocId ids[] = {pair.a, pair.b};
      AppendReferenceList(&buf, report, ids);
    }
    buf.append("}\n");
    if (buf.size() >= kFlushBytes && !Flush(&buf, out)) return;
  }
  Flush(&buf, out);
}

void WriteJsonlClusters(const Report& report, std::ostream& out) {
  std::string buf;
  for (const Cluster& cluster : report.clusters) {
    buf.append("{\"cluster\":");
    buf.append(std::to_string(cluster.id));
    buf.append(",\"keep\":");
    AppendJsonString(&buf, report.docs[cluster.keep].name);
    buf.append(",\"members\":[");
    for (size_t i = 0; i < cluster.members.size(); ++i) {
      if (i > 0) buf.push_back(',');
      AppendJsonString(&buf, report.docs[cluster.members[i]].name);
    }
    buf.append("],\"size\":");
    buf.append(std::to_string(cluster.members.size()));
    if (report.params.has_reference) AppendReferenceList(&buf, report, cluster.members);
    buf.append("}\n");
    if (buf.size() >= kFlushBytes && !Flush(&buf, out)) return;
  }
  Flush(&buf, out);
}

Json ParamsJson(const Params& params) {
  Json json = Json::object();
  json["threshold"] = params.threshold;
  json["shingle"] = NameOf(params.shingle);
  json["ngram"] = params.ngram;
  json["num_perm"] = params.num_perm;
  json["bands"] = params.bands;
  json["rows"] = params.rows;
  json["seed"] = params.seed;
  json["verify"] = NameOf(params.verify);
  json["mode"] = NameOf(params.mode);
  if (params.relation != Relation::kSimilar) json["relation"] = NameOf(params.relation);
  if (params.mode != Mode::kPairs) {
    json["keep"] = NameOf(params.keep);
    json["cluster_by"] = NameOf(params.cluster_by);
  }
  return json;
}

// Every count but `seconds`, which would make runs differ.
Json StatsJson(const Report& report) {
  const Stats& stats = report.stats;
  Json json = Json::object();
  json["documents"] = stats.documents;
  json["bytes"] = stats.bytes;
  json["empty"] = stats.empty;
  json["too_short"] = stats.too_short;
  json["hidden"] = stats.hidden;
  json["glob"] = stats.glob;
  json["too_large"] = stats.too_large;
  json["binary"] = stats.binary;
  json["unreadable"] = stats.unreadable;
  json["malformed_lines"] = stats.malformed_lines;
  json["invalid_utf8"] = stats.invalid_utf8;
  json["transcoded"] = stats.transcoded;
  json["exact_duplicates"] = stats.exact_duplicates;
  json["skipped"] = stats.skipped();
  json["candidates"] = stats.candidates;
  json["pairs"] = report.pairs.size();
  json["clusters"] = report.clusters.size();
  json["clustered"] = report.clustered();
  json["removable"] = report.removable.size();
  json["removable_bytes"] = report.removable_bytes();
  return json;
}

// As AppendRelation(), into a json entry.
void AddRelationJson(const Report& report, const ReportedPair& pair, Json* entry) {
  if (pair.kind == PairKind::kSimilar) {
    (*entry)["relation"] = "similar";
    return;
  }
  (*entry)["relation"] = "contains";
  (*entry)["container"] = report.docs[pair.kind == PairKind::kAInB ? pair.b : pair.a].name;
  (*entry)["contained"] = report.docs[pair.kind == PairKind::kAInB ? pair.a : pair.b].name;
}

Json PairsJson(const Report& report) {
  Json pairs = Json::array();
  for (const ReportedPair& pair : report.pairs) {
    Json entry = Json::object();
    entry["a"] = report.docs[pair.a].name;
    entry["b"] = report.docs[pair.b].name;
    const bool relations = report.params.relation != Relation::kSimilar;
    if (relations) AddRelationJson(report, pair, &entry);
    entry["estimate"] = ScoreJson(pair.estimate);
    if (pair.jaccard >= 0) entry["jaccard"] = ScoreJson(pair.jaccard);
    if (relations) {
      entry["containment"] = ScoreJson(pair.containment);
      entry["a_shingles"] = report.docs[pair.a].shingles;
      entry["b_shingles"] = report.docs[pair.b].shingles;
    }
    if (report.params.has_reference) {
      const DocId ids[] = {pair.a, pair.b};
      entry["reference"] = ReferenceListJson(report, ids);
    }
    pairs.push_back(std::move(entry));
  }
  return pairs;
}

Json ClustersJson(const Report& report) {
  Json clusters = Json::array();
  for (const Cluster& cluster : report.clusters) {
    Json entry = Json::object();
    entry["cluster"] = cluster.id;
    entry["keep"] = report.docs[cluster.keep].name;
    Json members = Json::array();
    for (const DocId id : cluster.members) members.push_back(report.docs[id].name);
    entry["members"] = std::move(members);
    entry["size"] = cluster.members.size();
    if (report.params.has_reference) {
      entry["reference"] = ReferenceListJson(report, cluster.members);
    }
    clusters.push_back(std::move(entry));
  }
  return clusters;
}

// One record per removable document, in the order of WriteDuplicates()
// (csv_writer.cc), as WriteJsonlRemovals() writes them.
Json RemovableJson(const Report& report) {
  Json removable = Json::array();
  for (const Removal& r : report.removable) {
    Json entry = Json::object();
    entry["path"] = report.docs[r.doc].name;
    entry["kept"] = report.docs[r.kept].name;
    entry["estimate"] = ScoreJson(r.estimate);
    if (r.jaccard >= 0) entry["jaccard"] = ScoreJson(r.jaccard);
    if (report.params.has_reference) entry["kept_reference"] = report.docs[r.kept].reference;
    removable.push_back(std::move(entry));
  }
  return removable;
}

}  // namespace

std::string FormatScore(double value) {
  std::string text;
  AppendScore(&text, value);
  return text;
}

void WriteJsonlRemovals(const Report& report, std::ostream& out) {
  std::string buf;
  for (const Removal& r : report.removable) {
    buf.append("{\"path\":");
    AppendJsonString(&buf, report.docs[r.doc].name);
    buf.append(",\"kept\":");
    AppendJsonString(&buf, report.docs[r.kept].name);
    buf.append(",\"estimate\":");
    AppendScore(&buf, r.estimate);
    if (r.jaccard >= 0) {
      buf.append(",\"jaccard\":");
      AppendScore(&buf, r.jaccard);
    }
    if (report.params.has_reference)
      buf.append(report.docs[r.kept].reference ? ",\"kept_reference\":true" : ",\"kept_reference\":false");
    buf.append("}\n");
    if (buf.size() >= kFlushBytes && !Flush(&buf, out)) return;
  }
  Flush(&buf, out);
}

void WriteJsonl(const Report& report, std::ostream& out) {
  // Clusters and duplicates modes both carry clusters.
  if (report.params.mode == Mode::kPairs) {
    WriteJsonlPairs(report, out);
  } else {
    WriteJsonlClusters(report, out);
  }
}

void WriteJson(const Report& report, std::ostream& out) {
  Json root = Json::object();
  root["neardup"] = kVersion;
  root["format"] = kFormatVersion;
  root["params"] = ParamsJson(report.params);
  root["stats"] = StatsJson(report);
  if (report.index.used) {  // only with --index, so that the rest compares with a run without it
    Json index = Json::object();
    index["reused"] = report.index.reused;
    index["signed"] = report.index.signed_now;
    index["removed"] = report.index.removed;
    root["index"] = std::move(index);
  }
  switch (report.params.mode) {
    case Mode::kPairs:
      root["pairs"] = PairsJson(report);
      break;
    case Mode::kClusters:
      root["clusters"] = ClustersJson(report);
      break;
    case Mode::kDuplicates:
      root["removable"] = RemovableJson(report);
      break;
  }
  // One document, handed over in one write: a reader never gets half of it.
  std::string text = root.dump(2, ' ', false, Json::error_handler_t::replace);
  text.push_back('\n');
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

void WriteReport(const Report& report, OutputFormat format, std::ostream& out, char terminator) {
  // Duplicates mode: the list of removable paths, except that json stays one
  // json document (with "removable" in place of "pairs").
  if (report.params.mode == Mode::kDuplicates && format != OutputFormat::kJson) {
    if (format == OutputFormat::kPaths) {
      WriteDuplicates(report, out, terminator);
    } else {
      WriteRemovals(report, format, out);
    }
    return;
  }
  switch (format) {
    case OutputFormat::kJsonl:
      WriteJsonl(report, out);
      return;
    case OutputFormat::kJson:
      WriteJson(report, out);
      return;
    case OutputFormat::kCsv:
      WriteCsv(report, out);
      return;
    case OutputFormat::kTsv:
      WriteTsv(report, out);
      return;
    case OutputFormat::kPaths:
      WriteDuplicates(report, out, terminator);
      return;
    case OutputFormat::kHtml:
      WriteHtml(report, ReviewWithoutTexts(report), out);
      return;
  }
}

}  // namespace neardup
