// DocId: a document's number in one run, its position in input order (PATH
// arguments in order, files in walk order, JSONL lines in file order). A
// Report's docs, pairs and clusters refer to documents by it; the phases
// share it (src/base/types.h).
#pragma once

#include <cstdint>

namespace neardup {

using DocId = uint32_t;

}  // namespace neardup
