// Corpus: walks the input paths into a sorted list of files to read.
//
// PATH arguments may be files or directories; directories are walked
// recursively. The path of a file as written in the output is the PATH argument
// joined with the file's path below it, as `find PATH` prints it. Hidden names
// (starting with '.') are skipped unless Options::hidden; symbolic links are
// not followed unless Options::follow, and then a directory loop is detected by
// device and inode, reported once and not entered again, and a file reached
// twice is read once. Files are sorted by path in byte order; the index in that
// order is the file's id.
//
// Details: PATH arguments (and listed paths) are always read, whatever the
// globs and hidden say, and followed if they are links; only what the walk
// finds below them is filtered. --max-filesize and the special-file rule
// (fifos, sockets, devices are skipped) apply to everything. A file is known
// by device and inode, so one reached by several paths (links, hard links,
// overlapping arguments such as "." and "ref") is listed once, under its
// smallest path, as a reference file if any of those paths is under --against.
// A directory whose path the last matching glob excludes is not entered.
//
// Expected problems do not stop the walk: a missing PATH or an unreadable
// directory becomes an entry in `errors`; files excluded by options are counted.
//
// Thread safety: WalkCorpus is a pure function of its arguments and the file system.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "neardup/options.h"
#include "neardup/status.h"

namespace neardup {

struct InputFile {
  std::string path;        // as written in the output (PATH joined with the rest)
  uint64_t size = 0;       // bytes, at walk time
  int64_t mtime_ns = 0;    // modification time at walk time
  int64_t ctime_ns = 0;    // status change time at walk time
  uint64_t dev = 0;        // device and inode at walk time
  uint64_t ino = 0;
  bool reference = false;  // under an --against path
};

struct WalkCounts {
  uint64_t hidden = 0;     // hidden files and directories not entered
  uint64_t glob = 0;       // files (and directories not entered) excluded by --glob
  uint64_t too_large = 0;  // files over --max-filesize
  uint64_t symlinks = 0;   // links not followed (without --follow)
  uint64_t loops = 0;      // directory loops found (with --follow)
  uint64_t special = 0;    // sockets, fifos, devices
};

struct WalkedCorpus {
  std::vector<InputFile> files;  // sorted by path, unique
  WalkCounts counts;
  std::vector<Status> errors;    // one per problem, message "PATH: reason"
};

// Walks options.paths, options.listed_paths (taken as files or directories
// alike) and options.against (marked reference), applying hidden, follow,
// globs and max_filesize.
// Returns InvalidArgument only for a malformed glob; everything else is recorded.
Result<WalkedCorpus> WalkCorpus(const Options& options);

}  // namespace neardup
