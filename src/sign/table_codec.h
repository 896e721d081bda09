// Table codec: a SignatureTable and its SignatureParams as bytes, and back.
//
// The encoding is what an index or a shard file holds: written once by
// EncodeTo(), read whole by DecodeFrom(), or in part without decoding
// everything: PeekHeader() reads the parameters and counts from the first
// kTableHeaderSize bytes, SignaturesInPlace() gives the signature matrix
// where it lies (for a memory-mapped file, row k is document k's signature),
// and DecodeRecords() decodes everything but that matrix, checked as
// DecodeFrom() checks it, for a table that borrows its signatures
// (SignatureTable::AppendBorrowed).
//
// Layout, byte by byte. Every integer is little-endian; offsets count from
// the first byte of the encoding.
//
//   Header (kTableHeaderSize = 88 bytes)
//     0   8  magic "NDUPSIG\0" (4E 44 55 50 53 49 47 00)
//     8   4  u32 format version (kTableFormatVersion = 4)
//    12  28  SignatureParams::AppendCanonical():
//              12 u8 shingle (0 word, 1 char)   13 u8 encoding (0 utf8, 1 latin1)
//              14 u8 strip (0 none, 1 html, 2 mail; zero before --strip)
//              15 u8 zero                      16 u32 ngram (1..64)
//              20 u32 num_perm (1..4096) = P   24 u64 seed
//              32 u32 tokenizer version        36 u32 zero
//    40   8  u64 SignatureParams::Fingerprint(): XXH3-64, seed 0, of bytes 12..39
//    48   8  u64 F, the number of files
//    56   8  u64 D, the number of documents
//    64   8  u64 offset of the docs section (= S + 4*D*P)
//    72   8  u64 offset S of the signature matrix (a multiple of 8)
//    80   8  u64 T, the size of the whole encoding, checksum included
//   Files section, at offset 88: F records of 45 + L bytes, in table order
//     u32 L, then L bytes of path (any bytes)
//     u64 size, i64 mtime_ns, i64 ctime_ns, u64 dev, u64 ino
//     u8 flags: bit 0 reference, bit 1 stream (identity.stream); others zero
//   Padding: 0 to 7 zero bytes, up to S, the files section's end rounded up
//   to a multiple of 8.
//   Signature matrix, at S: D rows of P u32 values; row k is document k's
//   signature (all 0xFFFFFFFF for a document that was not signed).
//   Docs section, right after the matrix (the docs offset above): D records
//   of 66 + N bytes, document k being record k
//     u32 N, then N bytes of name (any bytes)
//     u32 file (an index into the files, < F), u64 line,
//     u64 offset (DocRecord::offset: where a JSONL line starts in its file,
//       which a re-read seeks to; 2^64-1 when not known),
//     u64 size,
//     i64 mtime_ns, u64 content.low, u64 content.high,
//     u64 shingles (DocRecord::shingles: the distinct-shingle count, 0 when
//       the run did not count them),
//     u8 kind (DocKind: 0 ok, 1 empty, 2 too short, 3 binary, 4 failed),
//     u8 flags: bit 0 reference; others zero
//   Checksum, at T - 8 (the docs section's end): u64 XXH3-64, seed 0, of
//   bytes 88..T-9 followed by bytes 0..87 (the header hashed last).
//
// Version 2 puts what is known only at the end last, so that a writer that
// streams a table (shard_writer.h) writes the files and the matrix in
// place as documents are signed, and the header last: the sizes of the docs
// section and of the matrix are known only then. (Version 1 had the docs
// section before the matrix and the checksum over bytes 0..T-9 in order;
// version 3 added each document's distinct-shingle count, for
// --relation contains|both; version 4 each JSONL line's offset, so that the
// verify tasks read again only the lines they check, as scan does.)
//
// The encoding of a table is canonical: DecodeFrom() accepts exactly the
// byte strings EncodeTo() writes, so encoding a decoded table gives back the
// same bytes. Anything else (truncated, extended, a flipped bit, another
// magic or version, counts or offsets that do not add up, an unknown kind or
// flag, nonzero padding) is an error with a one-line message starting
// "signature table: ": InvalidArgument for another magic or format version,
// Corrupt for the rest. No allocation is sized by a count before the count is
// checked against the bytes present.
//
// Every field is read and written through the coding layer (base/coding.h).
//
// Thread safety: free functions over values; call them from any thread.
//
//   std::string bytes;
//   Status s = EncodeTo(table, params, &bytes);
//   Result<DecodedTable> back = DecodeFrom(bytes);
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/hash.h"
#include "neardup/status.h"
#include "sign/signature_table.h"

namespace neardup {

inline constexpr char kTableMagic[8] = {'N', 'D', 'U', 'P', 'S', 'I', 'G', '\0'};
inline constexpr uint32_t kTableFormatVersion = 4;
inline constexpr size_t kTableHeaderSize = 88;
// Sizes of the fixed part of a file record and of a doc record (without the
// path or name bytes).
inline constexpr size_t kTableFileRecordSize = 45;
inline constexpr size_t kTableDocRecordSize = 66;

// What the header says, checked for consistency (see PeekHeader()).
struct TableHeader {
  SignatureParams params;
  uint64_t file_count = 0;
  uint64_t doc_count = 0;
  uint64_t docs_offset = 0;
  uint64_t signatures_offset = 0;  // S: a multiple of 8
  uint64_t total_size = 0;         // T: the whole encoding, checksum included
  // Bytes of the signature matrix: 4 * doc_count * params.num_perm.
  uint64_t signatures_size() const { return docs_offset - signatures_offset; }
};

struct DecodedTable {
  SignatureParams params;
  SignatureTable table;
};

// A whole encoding decoded but for its signatures (DecodeRecords()).
struct DecodedRecords {
  SignatureParams params;
  std::vector<InputFile> files;
  std::vector<DocRecord> docs;
  // The matrix where it lies in the decoded bytes, borrowed from them:
  // docs.size() * params.num_perm values, row k being docs[k]'s signature.
  std::span<const uint32_t> signatures;
  // DecodeRecordsWith() with a `keep`: the index of each of `docs` among
  // all (ascending). Else empty.
  std::vector<uint64_t> kept;
};

// Replaces *out with the encoding of `table` under `params`.
// InvalidArgument (and *out unspecified) when the pair cannot be encoded:
// table.num_perm() != params.num_perm, params out of range (ngram 1..64,
// num_perm 1..4096, an unknown shingle unit or encoding), a document whose
// file is not an index into table.files or whose kind is unknown, or a path
// or name of 4 GiB or more.
Status EncodeTo(const SignatureTable& table, const SignatureParams& params, std::string* out);

// The parts of an encoding, for a writer that streams a table too large to
// hold (a stage sign task: shard_writer.h). EncodeTo() is made of them:
//   TableLayout() the header's counts and offsets for F files of
//     `files_size` bytes of records and D documents of `docs_size` bytes;
//   AppendTableHeader() its kTableHeaderSize bytes;
//   AppendFileRecord(), AppendDocRecord() one record (a document checked
//     first by CheckEncodable(): InvalidArgument as EncodeTo()'s);
//   AppendSignatureRows() rows of the matrix, little-endian;
//   zero padding from the files up to signatures_offset;
//   TableChecksum() the checksum, from `body` (XXH3-64, seed 0, fed bytes
//     88..T-9) and the header's bytes.
uint64_t TableChecksum(Hasher64& body, std::string_view header);
TableHeader TableLayout(const SignatureParams& params, uint64_t files, uint64_t docs, uint64_t files_size,
                        uint64_t docs_size);
void AppendTableHeader(const SignatureParams& params, const TableHeader& layout, std::string* out);
void AppendFileRecord(const InputFile& f, std::string* out);
Status CheckEncodable(const DocRecord& d, uint64_t index, uint64_t file_count);
void AppendDocRecord(const DocRecord& d, std::string* out);
void AppendSignatureRows(std::span<const uint32_t> values, std::string* out);

// Decodes a whole encoding: the table and the parameters it was signed with.
// Errors as described above; the checksum is verified before the sections
// are read.
Result<DecodedTable> DecodeFrom(std::string_view bytes);

// As DecodeFrom(), with the same checks in the same order and the same
// errors (the checksum over all of `bytes` included), but the signatures are
// not copied: DecodedRecords::signatures borrows `bytes`, for a memory-mapped
// shard. Also InvalidArgument where SignaturesInPlace() gives it (a big-endian
// host, a matrix not aligned for uint32_t).
// If `hashed` is set, it is called while the checksum is verified, after
// each few MiB, with the count of leading bytes hashed so far (ending with
// bytes.size() - 8): the checksum does not read them again, so a caller that
// mapped `bytes` may let their pages go (see src/base/mapped_file.h); the files
// and docs sections are read after the checksum.
//
//   Result<DecodedRecords> shard = DecodeRecords(mapped.bytes());
//   table.AppendBorrowed(std::move(shard->docs), shard->signatures, owner);
Result<DecodedRecords> DecodeRecords(std::string_view bytes, const std::function<void(size_t)>& hashed = nullptr);

// How DecodeRecordsWith() walks the records.
struct RecordWalk {
  // When set, called with each document (its index and record, checked) in
  // order; only those it returns true for are kept, in DecodedRecords::docs
  // (their indices in DecodedRecords::kept). Else every one is kept.
  std::function<bool(uint64_t index, const DocRecord& doc)> keep;
  // DecodeRecords()' `hashed`.
  std::function<void(size_t)> hashed;
  // When set, called while the docs section is read, every few MiB, with
  // the offset reached: the pages of the section before it are not read
  // again.
  std::function<void(size_t)> read;
  // False skips the checksum: only for bytes verified before (the same
  // mapping, read a second time). Every other check is made.
  bool checksum = true;
  // When set, called with each file (its index and record, checked) in
  // order; only those it returns true for are kept, in
  // DecodedRecords::files, in order. Else every one is kept. Documents keep
  // their file's index among all.
  std::function<bool(uint64_t index, const InputFile& file)> keep_file = nullptr;
};
// As DecodeRecords(), walking the records as `walk` says: a caller that
// needs a few documents of a large table holds only those.
Result<DecodedRecords> DecodeRecordsWith(std::string_view bytes, const RecordWalk& walk);

// Reads the header at the start of `bytes`, which may hold only the header
// (at least kTableHeaderSize bytes): magic, version, parameters in range and
// matching their fingerprint, zero reserved fields, and counts and offsets
// that add up (88 + 45*F <= S, S a multiple of 8, docs offset = S + 4*D*P,
// docs offset + 50*D <= T - 8). The rest of the bytes and the checksum are
// not read.
Result<TableHeader> PeekHeader(std::string_view bytes);

// Whether the last 8 bytes of `bytes` are the checksum of the rest (Corrupt
// if not, or if there are fewer than 8 bytes).
Status VerifyChecksum(std::string_view bytes);

// Whether the table in file `path`, of `size` bytes, holds its checksum:
// VerifyChecksum() of the file's bytes, read with pread through a buffer of
// 256 KiB rather than through a mapping (a page of page cache is then
// copied, not mapped into the process and let go again: several times
// cheaper for the kernel, and the pages count in no one's resident memory).
// False too when the file cannot be read, is no longer `size` bytes, or is
// shorter than kTableHeaderSize + 8 bytes.
bool TableFileChecksumMatches(const std::string& path, size_t size);

// The signature matrix of a whole encoding where it lies in `bytes`
// (doc_count * num_perm values, row after row), without copying: for a
// memory-mapped shard. Checks the header and that `bytes` is exactly T bytes
// long; does not verify the checksum (call VerifyChecksum() once if the bytes
// may be damaged) nor read the files and docs sections. InvalidArgument on a
// big-endian host, or when bytes.data() + S is not aligned for uint32_t (an
// mmap()ed file or a heap buffer always is). The span borrows `bytes`.
Result<std::span<const uint32_t>> SignaturesInPlace(std::string_view bytes);

}  // namespace neardup
