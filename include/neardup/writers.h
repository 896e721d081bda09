// Writers: a Report as jsonl, json, csv, tsv or a list of removable paths.
//
// Every writer writes to any std::ostream and decides nothing about where it
// goes. Names that are not valid UTF-8 are written with each invalid
// sequence (each maximal ill-formed subsequence, as nlohmann/json's replace
// handler has it) replaced by one U+FFFD in jsonl/json (JSON must be UTF-8);
// csv, tsv and the duplicates list write the bytes as they are (so `xargs rm`
// finds the file), tsv escaping only \ TAB LF CR as jq's @tsv does.
// Numbers are written with up to 4 decimals ("0.875", "1"), so the same input
// gives the same bytes.
//
//   std::ostringstream out;
//   WriteReport(report, OutputFormat::kJsonl, out);
//
// Thread safety: pure functions of the report.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "neardup/options.h"
#include "neardup/report.h"
#include "neardup/review.h"
#include "neardup/status.h"

namespace neardup {

// Pairs mode: one record per pair. html: WriteHtml() with
// ReviewWithoutTexts() (no diffs). Clusters mode: one record (jsonl, json) or
// one row per member (csv, tsv) per cluster. Duplicates mode: kPaths writes
// the removable paths, each followed by `terminator` ('\n', or '\0' for
// xargs -0) (WriteDuplicates()); jsonl, csv and tsv one record per removable
// document (WriteRemovals()); json its one document with a "removable" list
// of the same records (WriteJson()).
//
// Every writer hands whole records to `out`: each out.write() call holds one
// or more complete records (a json document is one record), so a stream that
// flushes only between calls never cuts a record.
void WriteReport(const Report& report, OutputFormat format, std::ostream& out, char terminator = '\n');

// The writers below follow report.params.mode. Called directly on a
// duplicates-mode report, jsonl, csv and tsv write its clusters, and json
// writes a "removable" list in place of "pairs"/"clusters".
//
// jsonl: {"a":..,"b":..,"estimate":..[,"jaccard":..][,"reference":[..]]} per
// pair; {"cluster":..,"keep":..,"members":[..],"size":..[,"reference":[..]]}
// per cluster. "jaccard" when computed; "reference" (the reference documents
// among a and b, or among the members) when params.has_reference.
void WriteJsonl(const Report& report, std::ostream& out);
// json: one document {"neardup","format","params","stats", then "pairs",
// "clusters" or "removable"}, 2-space indent, ending in a newline. No timing,
// so runs give identical bytes.
void WriteJson(const Report& report, std::ostream& out);
// csv (RFC 4180 quoting, "\n" line ends), with a header:
// a,b,estimate,jaccard[,a_reference,b_reference] (jaccard empty when not
// computed), or cluster,path,kept,reference (one row per member).
void WriteCsv(const Report& report, std::ostream& out);
// tsv: the csv columns without a header; the jaccard column only when jaccard
// was computed. \ TAB LF CR in names are written \\ \t \n \r.
void WriteTsv(const Report& report, std::ostream& out);
// Each member of each cluster that is neither kept nor a reference document,
// in order, followed by `terminator`.
void WriteDuplicates(const Report& report, std::ostream& out, char terminator);
// Each removable document as a record naming the document it duplicates:
// jsonl {"path":..,"kept":..,"estimate":..[,"jaccard":..][,"kept_reference":..]};
// csv with a header path,kept,estimate,jaccard[,kept_reference] (jaccard
// empty when not computed); tsv the same columns without a header, jaccard
// with --exact only. "jaccard" is the exact Jaccard with the kept document
// (--exact); "kept_reference" (with --against) whether the kept document is
// a reference document. REQUIRES: format is kJsonl, kCsv or kTsv.
void WriteRemovals(const Report& report, OutputFormat format, std::ostream& out);

// html: one self-contained review page (html_writer.cc) of `report` and its
// `review` (review.h; BuildReview() reads the texts, the writer reads
// nothing): CSS and script inline, no network access, opens from file://.
// It shows the parameters and counts, a histogram of the reported
// similarities and the banding's S-curve (inline SVG), then the review's
// groups, each with its kept document and every member's similarity to it,
// size and mtime, and a collapsible word diff against the kept one, or the
// reason there is none. The page renders groups in chunks as they scroll
// into view; opened as PAGE#all it renders every group and opens every diff
// at once. When done, its script sets data-ok="1" on <body>; script errors
// are collected in <body data-errors>.
// REQUIRES: `review` is a review of `report`.
void WriteHtml(const Report& report, const Review& review, std::ostream& out);

// The same page, of a review given a batch of groups at a time
// (BuildReviewInBatches, review.h): each batch is rendered as it comes, by
// `threads` threads (as Options::threads: 0 is one a core), and may then be
// dropped. The page's data (about the page's size) comes after its charts,
// which need every group: its first `held_bytes` are held in memory, the rest
// goes to a temporary file (TMPDIR) until Write(), so that the page of a
// large review is never held whole.
//
//   HtmlReview page(report, threads);
//   Review facts = BuildReviewInBatches(report, options, max_words,
//                                       [&](std::vector<ReviewGroup>& b) { s = page.Add(b); });
//   if (s.ok()) s = page.Write(facts, out);
class HtmlReview {
 public:
  static constexpr uint64_t kHeldBytes = uint64_t{4} << 20;
  explicit HtmlReview(const Report& report, int threads = 1, uint64_t held_bytes = kHeldBytes);
  ~HtmlReview();
  HtmlReview(const HtmlReview&) = delete;
  HtmlReview& operator=(const HtmlReview&) = delete;
  // Renders `groups`, the review's next groups in order. IoError when the
  // temporary file cannot be made or written (the page is then not written).
  [[nodiscard]] Status Add(std::span<const ReviewGroup> groups);
  // Writes the page. IoError when the temporary file cannot be read back.
  // REQUIRES: `facts` is the review whose groups were added (its own groups
  // are not read); every Add() returned OK.
  [[nodiscard]] Status Write(const Review& facts, std::ostream& out) const;

 private:
  struct Spill;
  const Report& report_;
  int threads_;
  uint64_t held_bytes_;
  // The groups rendered, a string a batch (its groups comma-separated, a
  // comma before each batch but the first): held at their size, never copied
  // into one growing string, up to held_bytes_; the later ones in spill_.
  std::vector<std::string> data_;
  uint64_t held_ = 0;
  bool any_ = false;  // a group was rendered
  std::unique_ptr<Spill> spill_;
  std::vector<double> similarities_;
};

// Formats a similarity with at most 4 decimals and no trailing zeros: 0.875, 1, 0.8612.
// A value below 1 is at most 0.9999: only a score of exactly 1 prints as 1.
std::string FormatScore(double value);

}  // namespace neardup
