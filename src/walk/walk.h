// Corpus: walks the input paths into a sorted list of files to read.
//
// PATH arguments may be files or directories; directories are walked
// recursively. The path of a file as written in the output is the PATH argument
// joined with the file's path below it, as `find PATH` prints it. Hidden names
// (starting with '.') are skipped unless Options::hidden; symbolic links are
// not followed unless Options::follow, and then a directory loop is detected by
// device and inode, reported once and not entered again, a dangling link is
// reported and counted (neither is an unreadable file), and a file reached
// twice is read once. The walk is iterative: its depth costs heap, not stack. Files are sorted by path in byte order;
// the index in that order is the file's id.
//
// Details: PATH arguments (and listed paths) are always read, whatever the
// globs and hidden say, and followed if they are links; only what the walk
// finds below them is filtered. A PATH argument that is not a regular file or
// a directory (a FIFO, a pipe such as /dev/stdin or <(cmd), a device) is a
// stream document: listed with identity.stream set and size 0, read once by
// the pipeline. Special files found below a directory (fifos, sockets,
// devices) are never opened: they are skipped and counted. --max-filesize
// applies to every regular file listed. A file is known
// by device and inode, so one reached by several paths (links, hard links,
// overlapping arguments such as "." and "ref") is listed once, under its
// smallest path, as a reference file if any of those paths is under --against.
// A directory whose path the last matching glob excludes is not entered.
// The --index file and its SQLite companions are never listed: found
// below a PATH, each is left out with a notice.
//
// Expected problems do not stop the walk: a missing PATH, an unreadable
// directory, a listing that fails midway (what was listed before the failure
// is kept) or a file that cannot be stat'ed becomes one entry in `errors`, and
// the rest of the corpus is walked; files excluded by options are counted.
//
// Every directory listing and stat goes through a FileSystem (OpenDir, Stat,
// and the Directory's List and StatEntry), so tests can inject those failures.
//
//   Result<WalkedCorpus> walked = WalkCorpus(options, FileSystem::Default());
//   for (const InputFile& f : walked->files) Read(f.path);
//
// Thread safety: WalkCorpus is a pure function of its arguments and the file
// system. Without --follow it lists directories on Options::threads threads
// at once (each Directory used by one thread), so `fs` must be thread-safe
// as FileSystem says; the result is the one-thread walk's, in the same order.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/types.h"
#include "neardup/options.h"
#include "neardup/status.h"
#include "walk/file_system.h"

namespace neardup {

struct WalkCounts {
  uint64_t hidden = 0;     // hidden files and directories not entered
  uint64_t glob = 0;       // files (and directories not entered) excluded by --glob or an ignore file
  uint64_t ignored = 0;    // of those, the ones an ignore file excluded (.ignore, .gitignore, --ignore-file)
  uint64_t too_large = 0;  // files over --max-filesize
  uint64_t symlinks = 0;   // links not followed (without --follow)
  uint64_t loops = 0;      // directory loops found (with --follow)
  uint64_t dangling = 0;   // links to nothing (with --follow), each also in `errors`
  uint64_t special = 0;    // sockets, fifos, devices found below a directory
  uint64_t parquet = 0;    // .parquet files, not read (neardup does not read Parquet yet)
};

struct WalkedCorpus {
  std::vector<InputFile> files;  // sorted by path, unique
  WalkCounts counts;
  // One per problem, message "PATH: reason". Loops and dangling links are
  // here too (as warnings), counted in `counts`; the rest are unreadable.
  std::vector<Status> errors;
  // Advice that changes nothing: the --index file found among the inputs,
  // left out ("PATH: the --index file ..."), a Parquet file left out ("PATH:
  // a Parquet file, ..."). Not an error.
  std::vector<std::string> notices;
  // With Options::name_skipped: "PATH: why" for each entry counted in
  // hidden, glob, too_large or special.
  std::vector<std::string> skipped;
};

// Told once, from the thread that took the stat, of the first regular file
// the walk stats whose mtime or ctime is at or after `from_ns`: a
// run with a kept result (stored_result.h) learns, as soon as its walk
// meets a file changed since that result's run, that it will not give it
// again, and begins the reading it then needs. `changed` must be cheap and
// thread-safe.
struct WalkWatch {
  int64_t from_ns = INT64_MAX;
  std::function<void()> changed;
};

// Walks options.paths, options.listed_paths (taken as files or directories
// alike) and options.against (marked reference), applying hidden, follow,
// globs and max_filesize; tells `watch` (when not null) as it says.
// Returns InvalidArgument only for a malformed glob; everything else is recorded.
Result<WalkedCorpus> WalkCorpus(const Options& options, FileSystem& fs, const WalkWatch* watch = nullptr);
// The same on the real file system, FileSystem::Default().
Result<WalkedCorpus> WalkCorpus(const Options& options);

}  // namespace neardup
