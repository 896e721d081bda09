// The writer's lock of an --index file: one writer at a time. TakeLock()
// takes an exclusive flock(2) on the file (not SQLite's fcntl locks; the
// kernel drops it when the holder dies), and WriteHolder() writes the
// holder's pid, host and start time in the `lock` table, so that a second
// writer fails at once with "FILE: in use by pid P on HOST since T" unless it
// was told to wait. The holder's row is deleted when the index closes
// (SignatureIndex); a row left by a holder that died names it until then.
//
// Thread safety: free functions.
//
//   Result<int> fd = TakeLock("mirror.db", IndexOpenOptions{.lock_wait = 0});  // the caller closes *fd
#pragma once

#include <string>

#include "index/index_sql.h"
#include "index/signature_index.h"
#include "neardup/status.h"

namespace neardup {

// Opens `path` (creating it when missing), checks that it is a regular file
// of one name (CheckOneName), and takes its exclusive flock, waiting up to
// options.lock_wait seconds. Returns the descriptor that holds it (the
// caller closes it to let go). Errors: "PATH: the index is read-only (...)",
// "PATH: not a neardup index (a directory)", "PATH: in use by pid P on HOST
// since T; give --lock-wait SECONDS to wait for it", "PATH: in use by ...
// (waited N s)".
Result<int> TakeLock(const std::string& path, const IndexOpenOptions& options);

// Writes this process as the lock's holder in the `lock` row of `h`.
Status WriteHolder(sqlite3* h, const std::string& path);

// This machine's host name ("?" when it has none).
std::string HostName();

}  // namespace neardup
