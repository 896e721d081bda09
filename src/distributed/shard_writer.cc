#include "distributed/shard_writer.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <span>

#include "base/coding.h"
#include "base/hash_sort.h"
#include "lsh/band_key.h"
#include "neardup/quote.h"
#include "sign/table_codec.h"

namespace neardup {

namespace {

// What a temporary file is read back in.
constexpr size_t kCopyChunk = size_t{4} << 20;
// Keys packed and written at a time.
constexpr size_t kPackKeys = size_t{1} << 16;

Status TempError(const char* what) {
  return Status::IoError(std::string("temporary file for ") + what + " in " + ShellQuoted(TempFile::Folder()) + ": " +
                         std::strerror(errno));
}

// Reads `file` from its start, `expected` bytes, handing them to `put` in
// chunks.
template <typename Put>
Status CopyBack(TempFile& file, uint64_t expected, const char* what, Put&& put) {
  std::FILE* f = file.get();
  if (std::fflush(f) != 0 || std::fseek(f, 0, SEEK_SET) != 0) return TempError(what);
  // Not zeroed, and no larger than the bytes to copy: a small share's copy
  // would otherwise clear and fault in 4 MiB twice.
  const size_t room = static_cast<size_t>(std::min<uint64_t>(kCopyChunk, expected));
  const std::unique_ptr<char[]> chunk = std::make_unique_for_overwrite<char[]>(std::max<size_t>(room, 1));
  uint64_t read = 0;
  while (read < expected) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(kCopyChunk, expected - read));
    const size_t got = std::fread(chunk.get(), 1, want, f);
    if (got != want) {
      if (std::ferror(f)) return TempError(what);
      return Status::IoError(std::string("temporary file for ") + what + ": shorter than written");
    }
    put(std::string_view(chunk.get(), got));
    read += got;
  }
  return Status::Ok();
}

// Packs `keys` as band entries (u64 hash, 4-byte id) into `out`.
}  // namespace

ShardWriter::ShardWriter(const SignatureParams& params, Banding banding, uint64_t fingerprint)
    : params_(params), banding_(banding), fingerprint_(fingerprint) {
  filling_.resize(static_cast<size_t>(banding_.bands));
  spilling_.resize(static_cast<size_t>(banding_.bands));
}

ShardWriter::~ShardWriter() = default;  // spill_ goes first: its thread is joined

Status ShardWriter::Open(const std::vector<InputFile>& files, const std::string& table_path,
                         const std::string& bands_path) {
  files_ = files.size();
  for (auto [file, what] : {std::pair{&records_, "document records"}, std::pair{&copies_, "content hashes"}}) {
    Result<TempFile> made = TempFile::Create(what);
    if (!made.ok()) return error_ = made.status();
    *file = std::move(*made);
  }
  if (Status s = table_.Open(table_path); !s.ok()) return error_ = s;
  if (Status s = bands_.Open(bands_path); !s.ok()) return error_ = s;
  bands_path_ = bands_path;
  bands_.Append(std::string(kBandsHeaderSize, '\0'));  // written last (WriteBandsEnd)
  table_sum_.Reset(0);
  table_.Append(std::string(kTableHeaderSize, '\0'));  // written last (WriteTableEnd)
  // The file records go out a writer's buffer at a time through one string,
  // not encoded whole first: 100k records took 9 MB of fresh memory, a page
  // fault a page, before any file was read.
  std::string bytes;
  bytes.reserve(AtomicFileWriter::kBuffer + 4096);
  files_bytes_ = 0;
  for (const InputFile& f : files) {
    AppendFileRecord(f, &bytes);
    if (bytes.size() >= AtomicFileWriter::kBuffer) {
      files_bytes_ += bytes.size();
      AppendToTable(bytes);
      bytes.clear();
    }
  }
  files_bytes_ += bytes.size();
  const TableHeader layout = TableLayout(params_, files_, 0, files_bytes_, 0);
  bytes.resize(bytes.size() + (layout.signatures_offset - kTableHeaderSize - files_bytes_), '\0');
  AppendToTable(bytes);
  return Status::Ok();
}

void ShardWriter::AppendToTable(std::string_view bytes) {
  table_sum_.Update(bytes.data(), bytes.size());
  table_.Append(bytes);
}

Status ShardWriter::Spool(TempFile& file, const std::string& bytes) {
  if (bytes.empty()) return Status::Ok();
  if (std::fwrite(bytes.data(), 1, bytes.size(), file.get()) != bytes.size()) return TempError("a shard");
  return Status::Ok();
}

Status ShardWriter::Take(SignatureTable& table, uint64_t first_file) {
  const Status s = Take(table.docs, table.values(), first_file);
  table.ClearDocuments();
  return s;
}

Status ShardWriter::Take(std::vector<DocRecord>& docs, std::span<const uint32_t> values, uint64_t first_file) {
  if (!error_.ok()) return error_;
  const size_t num_perm = static_cast<size_t>(params_.num_perm);
  if (values.size() != docs.size() * num_perm)
    return error_ = Status::Internal("a block's signatures do not match its documents");
  if (docs_ + docs.size() > kMaxShardDocs) {
    return error_ =
               Status::InvalidArgument("a sign task's share holds more than 4294967295 documents: use more sign tasks");
  }
  std::string& records = records_block_;
  std::string& copies = copies_block_;
  records.clear();
  copies.clear();
  const size_t per_set = kBandSortBudget / 2 / sizeof(BandEntry);
  ReserveKeys(per_set);
  for (size_t k = 0; k < docs.size(); ++k) {
    DocRecord& d = docs[k];
    const uint64_t file = first_file + d.file;
    const uint64_t id = docs_ + k;
    if (file >= files_ || file > UINT32_MAX) return error_ = Status::Internal("a document of a file out of its share");
    d.file = static_cast<uint32_t>(file);
    if (Status s = CheckEncodable(d, id, files_); !s.ok()) return error_ = s;
    const size_t before = records.size();
    AppendDocRecord(d, &records);
    docs_bytes_ += records.size() - before;
    PutContentHash(&copies, d.content);
    line_hashes_.push_back(d.line_hash);
    if (d.kind != DocKind::kOk) continue;
    ++signed_;
    const uint32_t* signature = values.data() + k * num_perm;
    for (int band = 0; band < banding_.bands; ++band) {
      filling_[static_cast<size_t>(band)].push_back({.hash = BandKey(signature, banding_, band), .id = id});
    }
    filled_ += static_cast<size_t>(banding_.bands);
    if (filled_ >= per_set) {
      if (Status s = StartSpill(); !s.ok()) return error_ = s;
    }
  }
  for (auto [file, bytes] : {std::pair{&records_, &records}, std::pair{&copies_, &copies}}) {
    if (Status s = Spool(*file, *bytes); !s.ok()) return error_ = s;
  }
  if constexpr (std::endian::native == std::endian::little) {
    AppendToTable(std::string_view(reinterpret_cast<const char*>(values.data()), values.size_bytes()));
  } else {
    std::string rows;
    AppendSignatureRows(values, &rows);
    AppendToTable(rows);
  }
  docs_ += docs.size();
  // A table that cannot be written (a full disk) fails the task now, not
  // once its whole share is signed.
  if (!table_.error().ok()) return error_ = table_.error();
  return Status::Ok();
}

// Each band's keys sized once for what the share will give it (a text
// share gives a key a band for each file; a JSONL share, with few files, is
// grown as it comes), up to its part of a set: grown by doubling, a band's
// keys were copied a dozen times into fresh memory, whose every page is a
// fault to back.
void ShardWriter::ReserveKeys(size_t per_set) {
  if (filling_.empty() || filling_[0].capacity() > 0) return;
  const size_t per_band = std::min(files_, per_set / filling_.size());
  for (std::vector<BandEntry>& band : filling_) band.reserve(per_band);
}

Status ShardWriter::JoinSpill() {
  if (spill_) {
    spill_->Join();
    spill_.reset();
  }
  return spill_status_;
}

Status ShardWriter::StartSpill() {
  if (Status s = JoinSpill(); !s.ok()) return s;
  std::swap(filling_, spilling_);
  filled_ = 0;
  spill_ = std::make_unique<BackgroundTask>([this] { spill_status_ = SpillRun(spilling_); });
  return Status::Ok();
}

Status ShardWriter::SpillRun(KeyBuffers& keys) {
  std::string packed;
  for (std::vector<BandEntry>& band : keys) {
    internal::SortByHash(band, scratch_, ends_);
    Hasher64 sum;
    sum.Reset(0);
    for (size_t at = 0; at < band.size(); at += kPackKeys) {
      EncodeBandEntries(std::span<const BandEntry>(band).subspan(at, std::min(kPackKeys, band.size() - at)), packed);
      sum.Update(packed.data(), packed.size());
      bands_.Append(packed);
    }
    run_counts_.push_back(band.size());
    run_sums_.push_back(sum.Digest());
    band.clear();
  }
  return Status::Ok();
}

Status ShardWriter::WriteBandsEnd() {
  if (Status s = JoinSpill(); !s.ok()) return s;  // the last run (Finish())
  filling_ = spilling_ = KeyBuffers();
  const uint64_t runs = run_counts_.size() / static_cast<uint64_t>(banding_.bands);
  for (int band = 0; band < banding_.bands; ++band) {
    uint64_t in_band = 0;
    for (uint64_t r = 0; r < runs; ++r)
      in_band += run_counts_[r * static_cast<uint64_t>(banding_.bands) + static_cast<uint64_t>(band)];
    if (in_band != signed_) return Status::Internal(ShellQuoted(bands_path_) + ": band keys lost while sorting");
  }
  Hasher64 copies;
  copies.Reset(0);
  Status copied = CopyBack(copies_, docs_ * kCopyEntrySize, "content hashes", [&](std::string_view bytes) {
    copies.Update(bytes.data(), bytes.size());
    bands_.Append(bytes);
  });
  if (!copied.ok()) return copied;
  const std::string header = EncodeBandsHeader({.bands = static_cast<uint32_t>(banding_.bands),
                                                .rows = static_cast<uint32_t>(banding_.rows),
                                                .runs = static_cast<uint32_t>(runs),
                                                .fingerprint = fingerprint_,
                                                .per_band = signed_,
                                                .docs = docs_});
  bands_.Append(EncodeBandsTrailer(header, run_counts_, run_sums_, copies.Digest()));
  bands_.WriteAt(0, header);
  return bands_.Commit();
}

Status ShardWriter::WriteTableEnd() {
  Status copied = CopyBack(records_, docs_bytes_, "document records", [&](std::string_view b) { AppendToTable(b); });
  if (!copied.ok()) return copied;
  const TableHeader layout = TableLayout(params_, files_, docs_, files_bytes_, docs_bytes_);
  std::string header;
  AppendTableHeader(params_, layout, &header);
  std::string checksum;
  PutFixed64(&checksum, TableChecksum(table_sum_, header));
  table_.Append(checksum);
  table_.WriteAt(0, header);
  return table_.Commit();
}

Status ShardWriter::Finish() {
  if (!error_.ok()) return error_;
  // The last run of band keys is sorted and written on the spill thread
  // while this one ends the table: the two files' ends at once.
  if (Status s = StartSpill(); !s.ok()) return s;
  if (Status s = WriteTableEnd(); !s.ok()) {
    (void)JoinSpill();  // the bands are not committed
    return s;
  }
  return WriteBandsEnd();
}

}  // namespace neardup
