// Stage sign: task I of N signs a share of the inputs into the work folder
// (`neardup stage sign`), the first of the three stages that together give
// the scan's answer on many machines (sign -> bucket -> report).
//
// Every task walks the same inputs (the walk is a pure function of the
// options and the file system) and takes its share (byte_shares.h): with
// --input jsonl, an N-th of the walked bytes, cut at newlines, so that one
// large file is shared too; with text, the contiguous share
// [I*F/N, (I+1)*F/N) of the F walked files. The shards in task order hold
// the documents in the scan's DocId order; a file split between shards
// appears in each of them, its documents with their true line numbers. It
// writes (work_folder.h):
//  - sign/I.table: its SignatureTable (table_codec.h), local ids;
//  - sign/I.meta: its problems and counts, the walk's tally, the
//    fingerprint of the whole listing it walked, and what it saw of each
//    file of its share (ShardMeta, format/shard_meta.h);
//  - sign/I.bands: for each band, one entry (band hash, local id) per signed
//    document, in sorted runs (as the keys spilled), so that a bucket task
//    reads only its bands; then each document's content hash, once
//    (format/band_file.h);
//  - sign/I.bitmaps, below -t 0.7 with --exact (WantsBitmaps()): each
//    document's SetBitmap, those of the first kBitmapTextBudget bytes of
//    text of the share (format/shard_bitmaps.h), for the verify tasks; at
//    other thresholds none, and one a killed run left is removed;
//  - sign/I.done, last (task_frame.h).
// The table, the band keys and the bitmaps are streamed as the documents
// are signed (shard_writer.h): a task's memory does not grow with its
// share.
// A document's global id is (shard << 40) | local index (kShardShift,
// format/shard_meta.h): ids of distinct shards never collide, and their
// order is the scan's.
//
// A task walks before anything else, and refuses to sign (or to count
// itself done) when a finished shard, its own included, walked another
// listing (paths and sizes): the inputs changed between the tasks, and their
// shares would overlap or leave files out (CheckShardListings). A finished
// task run again also refuses when a file of its own share changed since it
// read it (CheckShareUnchanged): metadata that is not content is not a
// change (a ctime always; an mtime or inode when the file's bytes hash as
// they did), so a work folder is used again after --kept-dir hard-linked
// the inputs, and a file whose content changed is named once, by the task
// whose share holds it.
//
// JSONL ids are made unique later, over all shards, by the report.
// A stream input (stdin, a pipe) cannot be read by a stage task: it is an
// error (save it to a file first).
//
// Thread safety: RunSignTask uses options.threads threads inside.
//
//   Result<TaskRun> ran = RunSignTask(options, "work", {.task = 0, .tasks = 4}, {});
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "distributed/format/band_file.h"
#include "distributed/format/shard_meta.h"
#include "distributed/shards.h"
#include "distributed/work_folder.h"
#include "lsh/banding.h"
#include "neardup/options.h"
#include "neardup/scan.h"
#include "neardup/stages.h"
#include "neardup/status.h"
#include "sign/sign.h"
#include "sign/table_codec.h"
#include "walk/walk.h"

namespace neardup {}  // namespace neardup
