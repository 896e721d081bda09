// The deduplicated corpus (--kept-dir): after the report, every input file
// that holds documents is written to DIR at its path below its PATH argument
// (a file given as a PATH: its name), without the documents --mode
// duplicates lists (ReportAndDropped() in phases.h decides them, in every
// mode; with --new too, old duplicates included: the folder is the whole
// deduplicated corpus). Reference files (--against) and files that could not be read whole
// when signed are never written.
//
//  - JSONL: every line but the dropped ones, byte for byte (line ends and
//    lines that are not documents included: what could not be judged is
//    kept), in input order, compressed as the input by its name
//    (output_file.h). The file is read as a stream, holding only the sorted
//    line numbers of its dropped documents.
//  - Text: the kept files hard-linked, or copied with their permission bits
//    and mtime: --kept-copy, DIR on another file system, and the files a
//    link could expose are copied (with a setuid or setgid bit, not owned
//    by the user running, or reached through a symbolic link from outside
//    the inputs, -L). A copy never has a setuid, setgid or sticky bit.
//
// Everything is written through one KeptFolder (kept_folder.h): DIR opened
// once, each file's kept path checked and its folders opened below DIR with
// no symbolic link followed, made with the mode of the input folder they
// mirror. A kept path that is not a path below DIR gives a problem for its
// file, never a write.
//
// What was signed is what is written: each file's stat key (size, mtime,
// ctime, device, inode) must be unchanged before and after it is read again,
// and each dropped line must still hash as it did when signed: its bytes
// (DocRecord::line_hash), or its content hash for a document from the index
// (the kept lines are vouched for by the stat key). A file that fails is not
// written (no partial file is left in DIR) and gives a problem, Changed:
// "PATH: changed during the run; not written to DIR" (its stat key), or
// "PATH:LINE: changed since it was signed; not written to DIR".
//
// Thread safety: WriteKeptDir() uses the run's workers inside (a file each).
//
// A scan writes it through KeptDirPhase() (phases.h), a stage filter task
// through WriteKeptDir() over its shard:
//
//   KeptSources sources = KeptSourcesOf(options, inputs->corpus);   // before the report
//   Result<ReportOutcome> r = ReportAndDropped(run, std::move(*inputs), std::move(found));
//   KeptWritten w = WriteKeptDir(run, sources, r->dropped);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/types.h"
#include "neardup/report.h"
#include "neardup/status.h"
#include "scan/run.h"
#include "sign/sign.h"
#include "walk/kept_folder.h"

namespace neardup {

// What the pass needs of the signed corpus, taken before the report phase
// lets it go: the files, and per document where it is and what it was.
struct KeptSources {
  struct Doc {
    uint64_t line = 0;  // JSONL line number (from 1); 0 for a text file
    ContentHash content;
    uint32_t line_hash = 0;  // DocRecord::line_hash
    uint32_t file = 0;
    DocKind kind = DocKind::kFailed;
  };
  std::vector<InputFile> files;
  std::vector<Doc> docs;                // by DocId
  std::vector<uint8_t> unread;          // per file: 1 when signing could not read it whole
  std::vector<std::string> kept_paths;  // per file: KeptPathOf()
  // The inputs given (PATHs and listed files): a text file is linked only
  // when it lies below one of them once links are resolved.
  std::vector<std::string> inputs;
  // Per file, or empty: documents kept that are not in `docs`, counted as
  // written with their file (stage filter: those of the later ranges of a
  // file split between shards, whose dropped documents alone are in `docs`).
  std::vector<uint64_t> kept_elsewhere;
};
// Whether a document of this kind is a document of the kept corpus (signed,
// empty or too short; not a binary, failed one).
bool WritableKind(DocKind kind);
KeptSources KeptSourcesOf(const Options& options, const SignedCorpus& corpus);
// The same from a signed shard's parts (stage filter): its files, documents
// (with their line hashes), problems, and each file's KeptPathOf().
// REQUIRES: kept_paths.size() == files.size().
KeptSources KeptSourcesOf(std::vector<InputFile> files, const std::vector<DocRecord>& docs,
                          const std::vector<InputProblem>& problems, std::vector<std::string> kept_paths);

// Where `file` goes below DIR: its path below its PATH argument (or below
// any PATH it starts with), else its name; empty and "." components left
// out, so that it is a tail of the file's path (IsTailOf, kept_folder.h). A
// sign task records it per file (stage filter writes without the PATHs).
std::string KeptPathOf(const Options& options, const InputFile& file);

struct KeptWritten {
  KeptStats stats;
  std::vector<Status> problems;  // in file order
  // The files not written because they changed since signed or could not
  // be read whole (indices in KeptSources::files); not those of other problems.
  std::vector<uint32_t> changed;
};

// Writes Options::kept_dir: the one pass of scan --kept-dir and of each
// stage filter task (over its shard). `dropped`: DocIds ascending. Errors are per file
// (KeptWritten::problems, counted in stats.failed), never fatal. When the
// run is cancelled, the files under way are let go (their temporary files
// removed) and no other is started; the caller says Cancelled.
// DIR is opened (made when missing, kept_folder.h) first; when that fails,
// every file is a problem.
// REQUIRES: CheckKeptDir() was OK; `sources` from this run's corpus.
KeptWritten WriteKeptDir(const Run& run, const KeptSources& sources, const std::vector<DocId>& dropped);
// The same into `dir`, opened already (stage filter, which claims it first).
KeptWritten WriteKeptDir(const Run& run, const KeptSources& sources, const std::vector<DocId>& dropped,
                         const KeptFolder& dir);

}  // namespace neardup
