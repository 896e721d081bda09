#include "distributed/shard_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <span>

#include "base/hash.h"
#include "distributed/stage_bytes.h"
#include "lsh/band_key.h"
#include "sign/table_codec.h"

namespace neardup {

namespace {

constexpr char kBandsMagic[8] = {'N', 'D', 'U', 'P', 'B', 'A', 'N', 'D'};
// What a temporary file is read back in.
constexpr size_t kCopyChunk = size_t{4} << 20;
// Signature values spooled at a time.
constexpr size_t kRowsChunk = size_t{256} << 10;

// Appends `v`'s low `n` bytes (little-endian) to `out`.
void PutLow(std::string& out, uint64_t v, size_t n) { out.append(reinterpret_cast<const char*>(&v), n); }

Status TempError(const char* what) {
  return Status::IoError(std::string("temporary file for ") + what + " in " + TempFile::Folder() + ": " +
                         std::strerror(errno));
}

// Reads `file` from its start, `expected` bytes, handing them to `put` in
// chunks.
template <typename Put>
Status CopyBack(TempFile& file, uint64_t expected, const char* what, Put&& put) {
  std::FILE* f = file.get();
  if (std::fflush(f) != 0 || std::fseek(f, 0, SEEK_SET) != 0) return TempError(what);
  std::string chunk(kCopyChunk, '\0');
  uint64_t read = 0;
  while (read < expected) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(kCopyChunk, expected - read));
    const size_t got = std::fread(chunk.data(), 1, want, f);
    if (got != want) {
      if (std::ferror(f)) return TempError(what);
      return Status::IoError(std::string("temporary file for ") + what + ": shorter than written");
    }
    put(std::string_view(chunk.data(), got));
    read += got;
  }
  return Status::Ok();
}

}  // namespace

ShardWriter::ShardWriter(const SignatureParams& params, Banding banding, uint64_t fingerprint, uint64_t files)
    : params_(params),
      banding_(banding),
      fingerprint_(fingerprint),
      files_(files),
      keys_(kBandSortBudget, "sorting band keys") {}

Status ShardWriter::Open() {
  for (auto [file, what] : {std::pair{&records_, "document records"}, std::pair{&signatures_, "signatures"},
                            std::pair{&copies_, "content hashes"}}) {
    Result<TempFile> made = TempFile::Create(what);
    if (!made.ok()) return error_ = made.status();
    *file = std::move(*made);
  }
  return Status::Ok();
}

Status ShardWriter::Spool(TempFile& file, const std::string& bytes) {
  if (bytes.empty()) return Status::Ok();
  if (std::fwrite(bytes.data(), 1, bytes.size(), file.get()) != bytes.size()) return TempError("a shard");
  return Status::Ok();
}

Status ShardWriter::Take(SignatureTable& table, uint64_t first_file) {
  if (!error_.ok()) return error_;
  if (docs_ + table.size() >= (uint64_t{1} << kShardShift)) {
    return error_ = Status::InvalidArgument("a shard holds 2^40 documents or more: use more sign tasks");
  }
  std::string records;
  std::string copies;
  for (size_t k = 0; k < table.size(); ++k) {
    DocRecord& d = table.docs[k];
    const uint64_t file = first_file + d.file;
    const uint64_t id = docs_ + k;
    if (file >= files_ || file > UINT32_MAX) return error_ = Status::Internal("a document of a file out of its share");
    d.file = static_cast<uint32_t>(file);
    if (Status s = CheckEncodable(d, id, files_); !s.ok()) return error_ = s;
    const size_t before = records.size();
    AppendDocRecord(d, &records);
    docs_bytes_ += records.size() - before;
    PutLow(copies, d.content.low, 8);
    PutLow(copies, d.content.high, 8);
    line_hashes_.push_back(d.line_hash);
    if (d.kind != DocKind::kOk) continue;
    ++signed_;
    const uint32_t* signature = table.signature(static_cast<DocId>(k)).data();
    for (int band = 0; band < banding_.bands; ++band) {
      const Key key{.hash = BandKey(signature, banding_, band),
                    .band_id = (static_cast<uint64_t>(band) << kShardShift) | id};
      if (Status s = keys_.Add(key); !s.ok()) return error_ = s;
    }
  }
  for (auto [file, bytes] : {std::pair{&records_, &records}, std::pair{&copies_, &copies}}) {
    if (Status s = Spool(*file, *bytes); !s.ok()) return error_ = s;
  }
  const std::span<const uint32_t> values = table.values();
  std::string rows;
  for (size_t at = 0; at < values.size(); at += kRowsChunk) {
    rows.clear();
    AppendSignatureRows(values.subspan(at, std::min(kRowsChunk, values.size() - at)), &rows);
    if (Status s = Spool(signatures_, rows); !s.ok()) return error_ = s;
  }
  docs_ += table.size();
  table.ClearDocuments();
  return Status::Ok();
}

Status ShardWriter::WriteTable(const std::vector<InputFile>& files, const std::string& path) {
  std::string files_bytes;
  for (const InputFile& f : files) AppendFileRecord(f, &files_bytes);
  const TableHeader layout = TableLayout(params_, files.size(), docs_, files_bytes.size(), docs_bytes_);
  AtomicFileWriter out;
  if (Status s = out.Open(path); !s.ok()) return s;
  Hasher64 sum;
  sum.Reset(0);
  auto put = [&](std::string_view bytes) {
    sum.Update(bytes.data(), bytes.size());
    out.Append(bytes);
  };
  std::string header;
  AppendTableHeader(params_, layout, &header);
  put(header);
  put(files_bytes);
  if (Status s = CopyBack(records_, docs_bytes_, "document records", put); !s.ok()) return s;
  put(std::string(layout.signatures_offset - layout.docs_offset - docs_bytes_, '\0'));
  const uint64_t rows = uint64_t{4} * docs_ * static_cast<uint64_t>(params_.num_perm);
  if (Status s = CopyBack(signatures_, rows, "signatures", put); !s.ok()) return s;
  std::string checksum;
  PutLow(checksum, sum.Digest(), 8);
  out.Append(checksum);
  return out.Commit();
}

Status ShardWriter::WriteBands(const std::string& path) {
  AtomicFileWriter file;
  if (Status s = file.Open(path); !s.ok()) return s;
  std::string header;
  FieldWriter w(&header);
  w.Raw(kBandsMagic, 8);
  w.U32(kBandsVersion);
  w.U32(static_cast<uint32_t>(banding_.bands));
  w.U32(static_cast<uint32_t>(banding_.rows));
  w.U32(0);
  w.U64(fingerprint_);
  w.U64(signed_);
  w.U64(docs_);
  file.Append(header);
  std::string checksums;
  FieldWriter sums(&checksums);
  std::string block;
  Hasher64 run;
  run.Reset(0);
  uint64_t band = 0;
  uint64_t in_band = 0;
  auto flush = [&] {
    run.Update(block.data(), block.size());
    file.Append(block);
    block.clear();
  };
  auto end_band = [&]() -> Status {
    if (in_band != signed_) return Status::Internal(path + ": band keys lost while sorting");
    flush();
    sums.U64(run.Digest());
    run.Reset(0);
    in_band = 0;
    ++band;
    return Status::Ok();
  };
  if (Status s = keys_.Finish(); !s.ok()) return s;
  for (const Key& k : keys_) {
    while (band < (k.band_id >> kShardShift)) {
      if (Status s = end_band(); !s.ok()) return s;
    }
    PutLow(block, k.hash, 8);
    PutLow(block, k.band_id & ((uint64_t{1} << kShardShift) - 1), kBandIdBytes);
    ++in_band;
    if (block.size() >= AtomicFileWriter::kBuffer) flush();
  }
  if (!keys_.status().ok()) return keys_.status();
  while (band < static_cast<uint64_t>(banding_.bands)) {
    if (Status s = end_band(); !s.ok()) return s;
  }
  Hasher64 copies;
  copies.Reset(0);
  Status copied = CopyBack(copies_, docs_ * kCopyEntrySize, "content hashes", [&](std::string_view bytes) {
    copies.Update(bytes.data(), bytes.size());
    file.Append(bytes);
  });
  if (!copied.ok()) return copied;
  sums.U64(copies.Digest());
  sums.U64(BandsIndexChecksum(header, checksums));
  file.Append(checksums);
  return file.Commit();
}

Status ShardWriter::Finish(const std::vector<InputFile>& files, const std::string& table_path,
                           const std::string& bands_path) {
  if (!error_.ok()) return error_;
  if (files.size() != files_) return Status::Internal("a shard's files changed while it was signed");
  if (Status s = WriteTable(files, table_path); !s.ok()) return s;
  return WriteBands(bands_path);
}

}  // namespace neardup
