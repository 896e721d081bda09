#include "distributed/format/band_file.h"

#include <cstring>

#include "base/coding.h"
#include "base/hash.h"

namespace neardup {

std::string EncodeBandsHeader(const BandsHeader& h) {
  std::string out(kBandsMagic, sizeof kBandsMagic);
  PutFixed32(&out, kBandsVersion);
  PutFixed32(&out, h.bands);
  PutFixed32(&out, h.rows);
  PutFixed32(&out, h.runs);
  PutFixed64(&out, h.fingerprint);
  PutFixed64(&out, h.per_band);
  PutFixed64(&out, h.docs);
  return out;
}

Result<BandsHeader> DecodeBandsHeader(std::string_view bytes) {
  Decoder r(bytes.substr(0, kBandsHeaderSize));
  char magic[8];
  r.Raw(magic, 8, "the magic");
  const uint32_t version = r.U32("the version");
  BandsHeader h;
  h.bands = r.U32("the band count");
  h.rows = r.U32("the row count");
  h.runs = r.U32("the run count");
  h.fingerprint = r.U64("the fingerprint");
  h.per_band = r.U64("the entries per band");
  h.docs = r.U64("the document count");
  if (!r.ok() || std::memcmp(magic, kBandsMagic, 8) != 0 || version != kBandsVersion) {
    return Status::Corrupt("not a band file");
  }
  return h;
}

std::optional<uint64_t> BandsFileSize(uint64_t bands, uint64_t per_band, uint64_t docs, uint64_t runs) {
  // Every term below 2^62 keeps the sum in 64 bits.
  constexpr uint64_t kLimit = uint64_t{1} << 62;
  if (bands == 0 || bands > (uint64_t{1} << 20) || per_band > kLimit / kBandEntrySize / bands ||
      docs > kLimit / kCopyEntrySize || runs == 0 || runs > (uint64_t{1} << 32)) {
    return std::nullopt;
  }
  return kBandsHeaderSize + bands * per_band * kBandEntrySize + docs * kCopyEntrySize + runs * bands * 16 + 16;
}

std::string EncodeBandsTrailer(std::string_view header, const std::vector<uint64_t>& counts,
                               const std::vector<uint64_t>& sums, uint64_t copies_sum) {
  std::string out;
  for (const uint64_t n : counts) PutFixed64(&out, n);
  for (const uint64_t sum : sums) PutFixed64(&out, sum);
  PutFixed64(&out, copies_sum);
  PutFixed64(&out, BandsIndexChecksum(header, out));
  return out;
}

BandsTrailer DecodeBandsTrailer(std::string_view bytes, uint64_t runs, uint64_t bands) {
  const size_t n = static_cast<size_t>(runs * bands);
  BandsTrailer t;
  t.counts.resize(n);
  t.sums.resize(n);
  for (size_t k = 0; k < n; ++k) {
    t.counts[k] = DecodeFixed64(bytes.data() + 8 * k);
    t.sums[k] = DecodeFixed64(bytes.data() + 8 * (n + k));
  }
  t.copies_sum = DecodeFixed64(bytes.data() + 16 * n);
  t.index_sum = DecodeFixed64(bytes.data() + 16 * n + 8);
  return t;
}

uint64_t BandsIndexChecksum(std::string_view header, std::string_view fields) {
  Hasher64 h;
  h.Reset(0);
  h.Update(header.data(), header.size());
  h.Update(fields.data(), fields.size());
  return h.Digest();
}

void EncodeBandEntries(std::span<const BandEntry> keys, std::string& out) {
  out.resize(keys.size() * kBandEntrySize);
  char* p = out.data();
  for (const BandEntry& k : keys) {
    for (size_t i = 0; i < 8; ++i) p[i] = static_cast<char>((k.hash >> (8 * i)) & 0xFF);
    for (size_t i = 0; i < kBandIdBytes; ++i) p[8 + i] = static_cast<char>((k.id >> (8 * i)) & 0xFF);
    p += kBandEntrySize;
  }
}

BandEntry DecodeBandEntry(const char* p) { return {.hash = DecodeFixed64(p), .id = DecodeFixed32(p + 8)}; }

void PutContentHash(std::string* out, ContentHash hash) {
  PutFixed64(out, hash.low);
  PutFixed64(out, hash.high);
}

ContentHash DecodeContentHash(const char* p) { return {.low = DecodeFixed64(p), .high = DecodeFixed64(p + 8)}; }

}  // namespace neardup
