// Shard bitmaps: sign/I.bitmaps, the SetBitmap of each document of shard I
// (sign/set_bitmap.h), which a verify task reads by id for the documents of
// its share only, to rule out the candidate pairs whose Jaccard cannot reach
// the threshold before it reads any document again (CandidateRule, as scan
// does). A sign task writes it, document after document, when the run
// builds bitmaps (WantsBitmaps(): --exact below -t 0.7); a shard without the
// file (signed at -t 0.7 or above, or by an older neardup) rules no pair
// out, and the verification still proves every pair.
//
// Layout (coding.h: little-endian):
//   Header (kBitmapsHeaderSize = 48 bytes, written last):
//     8 magic "NDUPBITS", u32 version (kBitmapsVersion = 1), u32 0,
//     u64 SignFingerprint, u64 D the shard's documents, u64 T where the
//     offset table starts, u64 Checksum64() of the 40 bytes before
//   the records, from byte 48 to T, one a document in local id order: its
//     SetBitmap (set_bitmap_codec.h: the one byte 0 when it has none), then
//     u64 Checksum64() of its local id (u64) followed by those bytes;
//   the offset table at T: D + 1 u64, record k at [off[k], off[k+1]),
//     off[0] = 48, ascending, off[D] = T;
//   the block checksums: per block of kBitmapOffsetsPerBlock entries of the
//     offset table (the last one shorter), u64 Checksum64() of its bytes.
// The file is T + 8 (D + 1) + 8 ceil((D + 1) / kBitmapOffsetsPerBlock)
// bytes. A reader by id checks the header, the blocks of the table it reads
// (32 KiB each) and each record it reads, never the file whole: a verify
// task holds its share's bitmaps and one block, whatever the shard's size.
// A record's checksum covers its id, so an offset that points at another
// record is damage too.
//
// Thread safety: a writer or a reader is used by one thread at a time;
// distinct readers may read one file at once.
//
//   ShardBitmapsWriter w;
//   if (Status s = w.Open(frame.Path("bitmaps"), fingerprint); !s.ok()) return s;
//   w.Add(bitmap); ...  Status s = w.Finish();
//   Result<ShardBitmapsReader> r = ShardBitmapsReader::Open(path, fingerprint, docs);
//   Result<SetBitmap> bits = r->Read(7);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/temp_file.h"
#include "distributed/work_folder.h"
#include "neardup/status.h"
#include "sign/set_bitmap.h"

namespace neardup {

inline constexpr size_t kBitmapsHeaderSize = 48;
inline constexpr uint32_t kBitmapsVersion = 1;
inline constexpr char kBitmapsMagic[8] = {'N', 'D', 'U', 'P', 'B', 'I', 'T', 'S'};
inline constexpr uint64_t kBitmapOffsetsPerBlock = 4096;

// What the header says.
struct BitmapsHeader {
  uint64_t fingerprint = 0;  // SignFingerprint()
  uint64_t docs = 0;         // D
  uint64_t table = 0;        // T
};
// The kBitmapsHeaderSize bytes of `header`, its checksum last.
std::string EncodeBitmapsHeader(const BitmapsHeader& header);
// The header in `bytes` (kBitmapsHeaderSize of them): Corrupt naming what
// is wrong (the magic, the version, the checksum). Its values are the
// reader's to check.
Result<BitmapsHeader> DecodeBitmapsHeader(std::string_view bytes);
// The size of a file of `docs` documents whose offset table starts at
// `table`; 0 when it would not fit 64 bits.
uint64_t BitmapsFileSize(uint64_t docs, uint64_t table);
// Appends the record of document `local`: `bitmap`, then its checksum.
void PutBitmapRecord(std::string* out, uint64_t local, const SetBitmap& bitmap);
// The bitmap of document `local` in `record` (one record's bytes): Corrupt
// naming the field when its checksum or a field is wrong, or bytes are left.
Result<SetBitmap> DecodeBitmapRecord(std::string_view record, uint64_t local);

// Writes sign/I.bitmaps through an AtomicFileWriter (a temporary renamed
// into place by Finish()); the offsets wait in an anonymous temporary file
// (8 bytes a document), so its memory is a buffer, not the shard. Not
// copyable.
class ShardBitmapsWriter {
 public:
  ShardBitmapsWriter() = default;
  ShardBitmapsWriter(const ShardBitmapsWriter&) = delete;
  ShardBitmapsWriter& operator=(const ShardBitmapsWriter&) = delete;
  // Starts the file at `path` for a run of SignFingerprint() `fingerprint`.
  // IoError when the file or the temporary cannot be made.
  Status Open(const std::string& path, uint64_t fingerprint);
  // Appends the bitmap of the next document (empty: it has none). An error
  // is kept and returned by Finish().
  void Add(const SetBitmap& bitmap);
  // Writes the offset table, its block checksums and the header, and
  // renames the file into place. IoError (naming the file) on failure.
  Status Finish();
  uint64_t documents() const { return docs_; }

 private:
  AtomicFileWriter file_;
  TempFile offsets_;
  uint64_t fingerprint_ = 0;
  uint64_t docs_ = 0;
  uint64_t at_ = kBitmapsHeaderSize;  // where the next record goes
  std::string record_;                // reused
  Status error_;
};

// Reads sign/I.bitmaps by id (see the top). Move-only; the descriptor is
// closed by the destructor.
class ShardBitmapsReader {
 public:
  // Opens `path`, made for SignFingerprint() `fingerprint` over a shard of
  // `docs` documents. IoError when it cannot be opened; Corrupt, through
  // Damaged() (naming the file), for a damaged header, a size that does not
  // match it, or another document count or fingerprint than the shard's.
  static Result<ShardBitmapsReader> Open(const std::string& path, uint64_t fingerprint, uint64_t docs);
  ShardBitmapsReader(ShardBitmapsReader&& o) noexcept;
  ShardBitmapsReader& operator=(ShardBitmapsReader&& o) noexcept;
  ShardBitmapsReader(const ShardBitmapsReader&) = delete;
  ShardBitmapsReader& operator=(const ShardBitmapsReader&) = delete;
  ~ShardBitmapsReader();

  // The bitmap of document `local` (empty when it has none). REQUIRES:
  // local < docs. Corrupt through Damaged() (naming the file and what is
  // wrong: a block of offsets, an offset, a record) or IoError.
  Result<SetBitmap> Read(uint64_t local);

 private:
  ShardBitmapsReader() = default;
  Result<uint64_t> Offset(uint64_t k);
  Status LoadBlock(uint64_t block);

  std::string path_;
  int fd_ = -1;
  BitmapsHeader header_;
  uint64_t block_ = UINT64_MAX;    // the block of offsets in block_offsets_
  std::vector<uint64_t> offsets_;  // its entries
};

}  // namespace neardup
