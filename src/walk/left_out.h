// What the walk leaves out of the files it found, each with a notice naming
// it: the --index file and its SQLite companions, and Parquet files.
//
// Thread safety: pure functions of their arguments (and, for LeaveOutIndex,
// the file system).
#pragma once

#include "neardup/options.h"
#include "walk/file_system.h"
#include "walk/walk.h"

namespace neardup {

// Leaves the --index file and its SQLite companions (-wal, -shm, -journal)
// out of out->files when the walk found them (by device and inode: under any
// path), with a notice each: the index changes while the run writes it, and
// is no document anyone asked for. Nothing without --index.
void LeaveOutIndex(const Options& options, FileSystem& fs, WalkedCorpus* out);

// Leaves Parquet files (named *.parquet, any case) out of out->files unless
// the run reads Parquet (--input parquet), each with a notice naming it and
// counted in out->counts.parquet: their rows are documents only with
// --input parquet, and read as text or JSONL their bytes would be a binary
// file or malformed lines.
void LeaveOutParquet(const Options& options, WalkedCorpus* out);

}  // namespace neardup
