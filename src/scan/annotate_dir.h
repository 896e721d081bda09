// The annotated corpus (--annotate-dir): after the report, every input file
// of a JSONL or Parquet run is written whole to DIR, at the path --kept-dir
// would give it (KeptPathOf(), kept_dir.h), each document with four fields
// added (their names prefixed by --annotate-prefix):
//
//   cluster       the id of its cluster (Cluster::id, as the records of
//                 --mode clusters number them when --new cuts nothing), or
//                 null for a document in no cluster;
//   duplicate_of  the name (id or FILE:LINE) of the document kept in its
//                 cluster, or null for that document and one alone;
//   score         its exact Jaccard with that document (the estimate when the
//                 run computed no exact one: --verify signature), or null
//                 with duplicate_of null;
//   kept          false for the documents --mode duplicates lists (those
//                 --kept-dir leaves out), true for every other.
//
// The clusters are those of the whole corpus, as --kept-dir's (--new cuts
// nothing), in every mode.
//
//  - JSONL: every line in order, byte for byte (line ends included), a
//    document's line with the fields appended before its closing brace
//    (",\"cluster\":3,...}"); lines that are not documents (malformed, over
//    --max-line, without the text key, blank) are copied as they are.
//    Compressed as the input by its name (output_file.h).
//  - Parquet: the input's schema plus the four columns (UBIGINT, VARCHAR,
//    DOUBLE, BOOLEAN), every row in order, the input's codec
//    (parquet_write.h).
//
// A field the input has already (a top-level key of a document's line, a
// column of a Parquet file) is an error for that file naming the field and
// --annotate-prefix: the file is not written. Everything is written through
// one KeptFolder (kept_folder.h) as --kept-dir is: nothing outside DIR, each
// file whole or not at all, DIR made 0700. Each file's stat key must be
// unchanged before and after it is read again.
//
// A stage filter task writes the files of its shard from the marks the
// report left (format/mark_list.h), through the same pass.
//
// Thread safety: WriteAnnotateDir() uses the run's workers inside (a file each).
//
//   KeptWritten w = WriteAnnotateDir(run, sources, report, clusters, removable, dropped);
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "neardup/report.h"
#include "scan/kept_dir.h"
#include "scan/run.h"

namespace neardup {

// A mark of one document of a file: one in a cluster, or dropped. A
// document without one is in no cluster and kept.
struct LineMark {
  uint64_t line = 0;  // KeptSources::Doc::line: its JSONL line, its Parquet row
  uint32_t cluster = 0;
  uint32_t name = 0;  // in AnnotateMarks::names: its cluster's kept document's, when `duplicate`
  double score = 0;
  bool clustered = false;
  bool duplicate = false;  // not the kept document of its cluster
  bool scored = false;     // a removal gave the score (else null)
  bool kept = true;
};

// What is added to the files of a KeptSources, held per file as runs of
// document lines and the marks alone: a file's documents outside every
// cluster cost nothing.
struct AnnotateMarks {
  struct File {
    std::vector<std::pair<uint64_t, uint64_t>> docs;  // the document lines: runs [first, last], ascending
    std::vector<LineMark> marks;                      // ascending by line, each a line of `docs`
    uint64_t documents = 0;
  };
  std::vector<File> files;         // by KeptSources file
  std::vector<std::string> names;  // the kept documents' names

  // Adds line `line` of file `f` as a document. REQUIRES: above the lines
  // added to `f` before.
  void AddLine(uint32_t f, uint64_t line);
};

// The document lines of `sources` (those of a writable kind), no marks.
AnnotateMarks DocumentLines(const KeptSources& sources);

// Writes Options::annotate_dir (opened: `dir`) from `marks`. Errors are per
// file (KeptWritten::problems, counted in stats.failed; the files that
// changed since signed in `changed`), never fatal. REQUIRES:
// CheckKeptDir() was OK; `sources` from this run's corpus; JSONL or Parquet
// input.
KeptWritten WriteAnnotateDir(const Run& run, const KeptSources& sources, const AnnotateMarks& marks,
                             const KeptFolder& dir);

// A scan's: the marks of `clusters`, `removable` and `dropped` (the whole
// corpus's, ReportOutcome; DocIds those of `report` and `sources`), DIR
// opened here.
KeptWritten WriteAnnotateDir(const Run& run, const KeptSources& sources, const Report& report,
                             const std::vector<Cluster>& clusters, const std::vector<Removal>& removable,
                             const std::vector<DocId>& dropped);

}  // namespace neardup
