// Id lists: lists of global ids (the large buckets that bucket/J.pairs and
// verify/K.pairs hold for the report's leaders), as a part of those
// formats.
//
// Layout (coding.h): u64 L, then L lists, each u64 n and n u64 ids.
//
// Thread safety: free functions over values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/coding.h"

namespace neardup {

// Appends the encoding of `lists` to *out.
void PutIdLists(std::string* out, const std::vector<std::vector<uint64_t>>& lists);
// Reads what PutIdLists() wrote from `r` into *lists; false (and `r`
// failed) when a count exceeds what is left.
bool ReadIdLists(Decoder& r, std::vector<std::vector<uint64_t>>* lists);

}  // namespace neardup
