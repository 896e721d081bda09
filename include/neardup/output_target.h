// Output targets: the places a run writes besides its data stream, -o FILE
// and --kept-dir DIR, checked before anything is read, so that a run never
// writes over an input, into a scanned folder or onto the --index file.
// scan.h includes this header; FindDuplicates() checks --kept-dir itself,
// the front end checks -o.
//
//   if (Status s = CheckOutputTarget(options, "out.jsonl"); !s.ok()) return s;
//
// Thread safety: free functions that only read the file system; safe to call
// from any thread.
#pragma once

#include <string>

#include "neardup/options.h"
#include "neardup/status.h"

namespace neardup {

// Whether `output` (the -o path; empty or "-" is stdout) may receive the
// report of a run over `options`, checked before anything is read: it must
// not be an input (a PATH, a listed path or an --against path), lie inside
// a scanned folder (even as a file not yet made: the next scan would read
// it as a document), be the --index file or lie in --kept-dir. Paths are
// compared canonical (links resolved). A device, FIFO or socket is always accepted: it is
// written in place and never read as a document found in a folder.
// Returns InvalidArgument, one line naming both paths and the way out;
// else Ok (a path that cannot be resolved is left to the front end).
Status CheckOutputTarget(const Options& options, const std::string& output);

// Whether --kept-dir (options.kept_dir; empty: Ok) may be written by a run
// over `options`, checked before anything is read (FindDuplicates() checks
// it first): it must be a new or empty folder, not an input nor inside one
// (a PATH, a listed path or an --against path), and hold no input nor the
// --index file; no input may be a stream (stdin as `-`, a pipe, a FIFO,
// a device), which can be read once only. Paths are compared canonical
// (links resolved). Returns InvalidArgument, one line naming the paths and
// the way out; else Ok. The same for --annotate-dir (options.annotate_dir),
// which must not overlap --kept-dir either.
Status CheckKeptDir(const Options& options);
// CheckKeptDir() but for the folders' emptiness: where --kept-dir and
// --annotate-dir may lie. The tasks of stage filter share them, each
// checking this (stages.h).
Status CheckKeptDirPlace(const Options& options);

}  // namespace neardup
