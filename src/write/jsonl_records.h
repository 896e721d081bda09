// The jsonl records of the writers that csv_writer.cc dispatches to as well
// (json_writer.cc): one JSON object per line.
#pragma once

#include <ostream>

#include "neardup/report.h"

namespace neardup {

// {"path":..,"kept":..,"estimate":..[,"jaccard":..][,"kept_reference":..]}
// per removable document (writers.h, WriteRemovals).
void WriteJsonlRemovals(const Report& report, std::ostream& out);

}  // namespace neardup
