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
// Thread safety: WriteAnnotateDir() uses the run's workers inside (a file each).
//
//   KeptWritten w = WriteAnnotateDir(run, sources, report, clusters, removable, dropped);
#pragma once

#include <vector>

#include "neardup/report.h"
#include "scan/kept_dir.h"
#include "scan/run.h"

namespace neardup {

// Writes Options::annotate_dir. `report`: its docs (names, by DocId);
// `clusters`, `removable`, `dropped`: the whole corpus's (ReportOutcome).
// Errors are per file (KeptWritten::problems, counted in stats.failed),
// never fatal. REQUIRES: CheckKeptDir() was OK; `sources` from this run's
// corpus; JSONL or Parquet input.
KeptWritten WriteAnnotateDir(const Run& run, const KeptSources& sources, const Report& report,
                             const std::vector<Cluster>& clusters, const std::vector<Removal>& removable,
                             const std::vector<DocId>& dropped);

}  // namespace neardup
