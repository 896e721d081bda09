// What `neardup index info` and `neardup index check` read of an --index
// file: ReadIndexInfo() and CheckIndex(), declared in neardup/index.h (the
// front end's door) and made here. Both open the file to read (OpenDb: no
// lock, no migration; a version 1 file is read as it is) and close it before
// they return. The check passes every row through the checks a scan makes
// before it uses one (index_rows.h), and lists what fails instead of
// stopping at the first.
//
// Thread safety: free functions; safe to call from any thread.
//
//   Result<std::vector<std::string>> problems = CheckIndex("mirror.db");  // empty: sound
#pragma once

#include "neardup/index.h"
