// Fuzz harness: bytes -> DecodeFrom, DecodeRecords and DecodeRecordsWith
// (table_codec.h).
//
// Checks that, for the input and for a copy whose trailing 8 bytes are
// rewritten to the checksum of the rest (random mutations almost never pass
// the checksum; the copy lets them reach the structural checks behind it):
//   - DecodeFrom returns (no crash, no allocation the bytes do not justify);
//     a failure is Corrupt or InvalidArgument, its message one line starting
//     "signature table: ";
//   - a decoded table encodes back to exactly the same bytes (the encoding
//     is canonical), PeekHeader() agrees with it, VerifyChecksum() passes and
//     SignaturesInPlace() gives its matrix;
//   - PeekHeader() accepting means its counts and offsets add up;
//   - DecodeRecords() fails exactly when DecodeFrom() does, with the same
//     status; on success its records and in-place signatures make the same
//     table (encoded back through a table that borrows the signatures), and
//     its progress calls count up to the checksum's start;
//   - DecodeRecordsWith() keeping every other document fails as DecodeFrom()
//     does, and keeps those documents; without the checksum it fails only
//     as the structural checks say, never worse.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/hash.h"
#include "harnesses.h"
#include "sign/table_codec.h"

namespace neardup::fuzz {
namespace {

bool CheckFailure(const Status& status) {
  NEARDUP_FUZZ_CHECK(status.code() == Status::Code::kCorrupt || status.code() == Status::Code::kInvalidArgument);
  NEARDUP_FUZZ_CHECK(status.message().starts_with("signature table: "));
  NEARDUP_FUZZ_CHECK(status.message().find('\n') == std::string::npos);
  return true;
}

bool CheckHeader(std::string_view bytes) {
  Result<TableHeader> h = PeekHeader(bytes);
  if (!h.ok()) return CheckFailure(h.status());
  NEARDUP_FUZZ_CHECK(bytes.size() >= kTableHeaderSize);
  NEARDUP_FUZZ_CHECK(h->signatures_offset >= kTableHeaderSize);
  NEARDUP_FUZZ_CHECK(h->signatures_offset % 8 == 0);
  NEARDUP_FUZZ_CHECK(h->signatures_offset <= h->docs_offset);
  NEARDUP_FUZZ_CHECK(h->docs_offset + 8 <= h->total_size);
  NEARDUP_FUZZ_CHECK(h->signatures_size() / 4 / static_cast<uint64_t>(h->params.num_perm) == h->doc_count);
  return true;
}

// DecodeRecords() agrees with DecodeFrom()'s `decoded`.
bool CheckRecords(const std::string& bytes, const Result<DecodedTable>& decoded) {
  size_t last = 0;
  bool monotonic = true;
  Result<DecodedRecords> records = DecodeRecords(bytes, [&](size_t n) {
    monotonic = monotonic && n > last;
    last = n;
  });
  NEARDUP_FUZZ_CHECK(monotonic);
  NEARDUP_FUZZ_CHECK(records.ok() == decoded.ok());
  if (!records.ok()) {
    NEARDUP_FUZZ_CHECK(records.status().code() == decoded.status().code());
    NEARDUP_FUZZ_CHECK(records.status().message() == decoded.status().message());
    return true;
  }
  NEARDUP_FUZZ_CHECK(last == bytes.size() - 8);
  NEARDUP_FUZZ_CHECK(records->params == decoded->params);
  NEARDUP_FUZZ_CHECK(records->docs.size() == decoded->table.size());
  NEARDUP_FUZZ_CHECK(records->signatures.data() >= reinterpret_cast<const uint32_t*>(bytes.data()));
  NEARDUP_FUZZ_CHECK(records->signatures.size_bytes() <= bytes.size());
  SignatureTable borrowed(records->params.num_perm);
  borrowed.files = std::move(records->files);
  borrowed.AppendBorrowed(std::move(records->docs), records->signatures, nullptr);
  std::string again;
  NEARDUP_FUZZ_CHECK(EncodeTo(borrowed, records->params, &again).ok());
  NEARDUP_FUZZ_CHECK(again == bytes);
  return true;
}

// DecodeRecordsWith() agrees with DecodeFrom()'s `decoded`.
bool CheckSomeRecords(const std::string& bytes, const Result<DecodedTable>& decoded) {
  RecordWalk walk{.keep = [](uint64_t k, const DocRecord&) { return k % 2 == 0; },
                  .hashed = nullptr,
                  .read = nullptr,
                  .checksum = true};
  Result<DecodedRecords> some = DecodeRecordsWith(bytes, walk);
  NEARDUP_FUZZ_CHECK(some.ok() == decoded.ok());
  if (!some.ok()) {
    NEARDUP_FUZZ_CHECK(some.status().message() == decoded.status().message());
  } else {
    NEARDUP_FUZZ_CHECK(some->docs.size() == (decoded->table.size() + 1) / 2);
    for (size_t i = 0; i < some->docs.size(); ++i) {
      NEARDUP_FUZZ_CHECK(some->kept[i] == 2 * i);
      NEARDUP_FUZZ_CHECK(some->docs[i].name == decoded->table.docs[2 * i].name);
    }
  }
  walk.checksum = false;
  Result<DecodedRecords> unchecked = DecodeRecordsWith(bytes, walk);
  if (decoded.ok()) NEARDUP_FUZZ_CHECK(unchecked.ok());
  if (!unchecked.ok()) return CheckFailure(unchecked.status());
  for (const DocRecord& d : unchecked->docs) NEARDUP_FUZZ_CHECK(d.file < unchecked->files.size());
  return true;
}

// `bytes` is held in a heap buffer (aligned for uint32_t).
bool CheckDecode(const std::string& bytes) {
  if (!CheckHeader(bytes)) return false;
  Result<DecodedTable> decoded = DecodeFrom(bytes);
  if (!CheckRecords(bytes, decoded)) return false;
  if (!CheckSomeRecords(bytes, decoded)) return false;
  if (!decoded.ok()) return CheckFailure(decoded.status());

  std::string again;
  const Status encoded = EncodeTo(decoded->table, decoded->params, &again);
  NEARDUP_FUZZ_CHECK(encoded.ok());
  NEARDUP_FUZZ_CHECK(again == bytes);
  NEARDUP_FUZZ_CHECK(VerifyChecksum(bytes).ok());
  Result<TableHeader> h = PeekHeader(bytes);
  NEARDUP_FUZZ_CHECK(h.ok());
  NEARDUP_FUZZ_CHECK(h->params == decoded->params);
  NEARDUP_FUZZ_CHECK(h->file_count == decoded->table.files.size());
  NEARDUP_FUZZ_CHECK(h->doc_count == decoded->table.size());
  NEARDUP_FUZZ_CHECK(h->total_size == bytes.size());
  Result<std::span<const uint32_t>> in_place = SignaturesInPlace(bytes);
  NEARDUP_FUZZ_CHECK(in_place.ok());
  const std::span<const uint32_t> values = decoded->table.values();
  NEARDUP_FUZZ_CHECK(std::equal(in_place->begin(), in_place->end(), values.begin(), values.end()));
  for (const DocRecord& d : decoded->table.docs) NEARDUP_FUZZ_CHECK(d.file < decoded->table.files.size());
  return true;
}

bool Run(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (!CheckDecode(bytes)) return false;
  if (bytes.size() >= 8) {
    const size_t body = bytes.size() - 8;
    const uint64_t checksum = HashBytes(bytes.data(), body, 0);
    for (size_t i = 0; i < 8; ++i) bytes[body + i] = static_cast<char>(checksum >> (8 * i));
    if (!CheckDecode(bytes)) return false;
  }
  return true;
}

}  // namespace

int TableFuzz(const uint8_t* data, size_t size) {
  Run(data, size);
  return 0;
}

}  // namespace neardup::fuzz

#ifndef NEARDUP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return neardup::fuzz::TableFuzz(data, size); }
#endif
