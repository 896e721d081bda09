#include "sign/set_bitmap_codec.h"

#include <bit>

namespace neardup {

void PutSetBitmap(std::string* out, const SetBitmap& bitmap) {
  if (bitmap.empty()) {
    PutFixed8(out, 0);
    return;
  }
  PutFixed8(out, bitmap.level);
  PutFixed64(out, bitmap.most);
  PutFixed64(out, bitmap.least);
  PutFixed64(out, bitmap.bits);
  for (const uint64_t w : bitmap.words) PutFixed64(out, w);
}

size_t SetBitmapBytes(const SetBitmap& bitmap) {
  return bitmap.empty() ? 1 : 1 + 3 * sizeof(uint64_t) + bitmap.words.size() * sizeof(uint64_t);
}

SetBitmap GetSetBitmap(Decoder& in) {
  SetBitmap out;
  const uint8_t level = in.U8("a bitmap's level");
  if (!in.ok() || level == 0) return out;
  if (level < SetBitmapBuilder::kMinLevel || level > SetBitmapBuilder::kMaxLevel) {
    in.Fail("a bitmap's level");
    return out;
  }
  out.level = level;
  out.most = in.U64("a bitmap's most");
  out.least = in.U64("a bitmap's least");
  out.bits = in.U64("a bitmap's bits");
  const size_t words = size_t{1} << (level - 6);
  if (!in.ok() || in.left() < words * sizeof(uint64_t)) {
    in.Fail("a bitmap's words");
    return SetBitmap();
  }
  out.words.resize(words);
  uint64_t set = 0;
  for (uint64_t& w : out.words) {
    w = in.U64("a bitmap's words");
    set += static_cast<uint64_t>(std::popcount(w));
  }
  if (set != out.bits || out.least > out.most || out.bits > out.least) {
    in.Fail("a bitmap's counts");
    return SetBitmap();
  }
  return out;
}

}  // namespace neardup
