#include "test_paths.h"

namespace neardup::testing {

const char* NeardupBinary() { return NEARDUP_BINARY; }
const char* GenJsonlBinary() { return NEARDUP_GEN_JSONL; }
const char* GenMailBinary() { return NEARDUP_GEN_MAIL; }
const char* SourceDir() { return NEARDUP_SOURCE_DIR; }

}  // namespace neardup::testing
