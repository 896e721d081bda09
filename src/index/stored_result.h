// StoredResult: a scan's whole output kept in its --index, and given again
// by a later run with the same options over the same unchanged files,
// without reading the stored signatures or any document: the nightly re-run
// of an unchanged corpus costs its walk.
//
// The front end keeps the output of a run that used the index, had no
// problem, and writes nothing else than its output (no --new, --kept-dir or
// --annotate-dir), under the run's key: a hash of everything that shapes the
// output (every option, the output format, the working directory, neardup's
// version). A later run with that key finds it (FindResult) before it walks,
// and gives it again when its walk meets the same files, in the same order,
// with the same stat (ListingOf(): path, device, inode, size, mtime and
// ctime), the same counts of what it left out, and every one of them older, by mtime and by ctime, than the
// moment the run that kept it started, less the timestamp resolution: the
// rule that lets the index reuse a file unread (file_plans.cc's
// StatProvesUnchanged), so no file changed since that run read it.
//
// Results live in the index's `results` table, made by the first run that
// keeps one (an index without it holds none; a build that does not know the
// table leaves it alone); the newest kMaxResults keys are kept. Finding and
// keeping never fail a run: a result that cannot be read or written is
// none, and the run computes its output.
//
// Thread safety: the functions open their own connections; FindResult and
// ListingOf may run beside the run's other use of the index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/types.h"
#include "neardup/index.h"
#include "neardup/status.h"
#include "walk/walk.h"

namespace neardup {

inline constexpr int kMaxResults = 8;  // keys kept, the newest (and kMaxKeptOutputBytes, index.h)

// The files a walk met, as a result depends on them, and its counts of
// what it left out (hidden, --glob, too large...: the summary counts them).
ResultListing ListingOf(const WalkedCorpus& walked);

// Whether `stored` is the output of a run over the files of `now` (see above).
bool GivesAgain(const StoredResult& stored, const ResultListing& now);
// The moment from which a file's mtime or ctime says it may have changed
// since `stored`'s run read it: a walk that meets one will not give it again.
int64_t ChangedSince(const StoredResult& stored);

// The result kept in the index at `index_path` under `key`, if any.
std::optional<StoredResult> FindResult(const std::string& index_path, const std::string& key);

// Whether the last run over the index at `index_path` that ended signed and
// removed nothing (its files all reused, or its output given again): a
// corpus quiet then is likely quiet now. False when it cannot be told.
bool LastRunChangedNothing(const std::string& index_path);

// (KeepResult, which the front end calls once the output is written, is
// declared in neardup/index.h.)

// CLOCK_REALTIME now, in nanoseconds.
int64_t NowNs();

}  // namespace neardup
