// NewJob: what a --new run reports for, and so whose pending marks it may
// clear (IndexedFile::pending).
//
// A --new run delivers the pairs (or clusters) of its new documents with the
// documents under its PATHs, as its options decide them. A run over other
// PATHs (a subfolder), or with other such options (a higher -t, another
// banding), delivers another set: clearing marks for it would hide from the
// --new runs that matter, the nightly job's, pairs they never delivered. So
// an index serves one job: the first --new run that delivers its output
// makes its NewJob the index's (`meta`: new_job, new_job_options), and only
// runs of that job clear marks (docs/index.md).
//
// The fingerprint covers the canonical PATHs and listed paths (as the index
// keys them, so spellings and working directories do not matter), every
// option that decides which documents a walk yields (--glob, --hidden, -L,
// ignore files, --input, --text-key, --id-key, --min-words, --max-filesize,
// --max-line), and every option that decides what is reported (-t, --bands,
// --rows, --verify, the --exact margin, --mode, --keep, --cluster-by). Not:
// -f, -o, --threads, --kept-dir, memory limits, which change how it is
// written or how fast, not what. A run with --against never clears marks
// (its report leaves pairs out) and has no job.
//
// Thread safety: a plain function.
#pragma once

#include "index/index_keys.h"
#include "neardup/index.h"
#include "neardup/options.h"

namespace neardup {

// The job of a --new run with `options`, whose PATH arguments `keys`
// canonicalizes. REQUIRES: options.new_only, options.against empty.
NewJob NewJobOf(const Options& options, const IndexKeys& keys);

}  // namespace neardup
