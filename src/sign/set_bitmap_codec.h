// SetBitmap as bytes: how the index (`--index`) and the work folder (stage
// sign, then stage verify) store a document's bitmap, so that a document
// signed in an earlier run or by another task is ruled out as a fresh one is.
//
// Layout (coding.h: little-endian):
//   u8 level (0: no bitmap, and nothing follows)
//   u64 most, u64 least, u64 bits
//   2^(level-6) u64 words
//
// Thread safety: free functions over values.
//
//   std::string bytes;  PutSetBitmap(&bytes, bitmap);
//   Decoder in(bytes);  SetBitmap back = GetSetBitmap(in);  // check in.ok()
#pragma once

#include <string>

#include "base/coding.h"
#include "sign/set_bitmap.h"

namespace neardup {

// Appends `bitmap` to *out; an empty bitmap is the one byte 0.
void PutSetBitmap(std::string* out, const SetBitmap& bitmap);

// The bytes PutSetBitmap() appended for one bitmap.
size_t SetBitmapBytes(const SetBitmap& bitmap);

// Reads one bitmap as PutSetBitmap() wrote it. `in` fails, naming the
// field, on bytes that no bitmap gives: a level outside
// [SetBitmapBuilder::kMinLevel, kMaxLevel] (other than 0), fewer words than
// the level needs, more bits counted than the words hold or set, or
// least > most (a bound from such a bitmap could rule out a pair that
// reaches the threshold).
SetBitmap GetSetBitmap(Decoder& in);

}  // namespace neardup
