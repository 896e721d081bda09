// Version of neardup and of its JSON output format.
#pragma once

namespace neardup {

inline constexpr const char* kVersion = "0.1.0";
// Bumped when a field of the json/jsonl output changes meaning or disappears.
inline constexpr int kFormatVersion = 1;

}  // namespace neardup
