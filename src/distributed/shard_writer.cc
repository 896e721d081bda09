#include "distributed/shard_writer.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <span>

#include "base/hash_sort.h"
#include "distributed/stage_bytes.h"
#include "lsh/band_key.h"
#include "sign/table_codec.h"

namespace neardup {

namespace {

constexpr char kBandsMagic[8] = {'N', 'D', 'U', 'P', 'B', 'A', 'N', 'D'};
// What a temporary file is read back in.
constexpr size_t kCopyChunk = size_t{4} << 20;
// Keys read ahead per run while merging.
constexpr size_t kMergeReadAhead = 4096;

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

// One band's keys in one spilled run, read ahead from its file; or the
// band's last buffer, sorted in memory.
struct KeyCursor {
  int fd = -1;  // -1: `memory`
  uint64_t offset = 0;  // of the next key to read
  uint64_t left = 0;    // keys not yet read
  std::vector<BandEntry> buffer;
  const std::vector<BandEntry>* memory = nullptr;
  size_t pos = 0;
  const BandEntry& Head() const { return fd < 0 ? (*memory)[pos] : buffer[pos]; }
  size_t Size() const { return fd < 0 ? memory->size() : buffer.size(); }
  // Makes Head() valid; false at the end. A short read sets *failed.
  bool Fill(bool* failed) {
    if (pos < Size()) return true;
    if (fd < 0 || left == 0) return false;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left, kMergeReadAhead));
    buffer.resize(n);
    const ssize_t got = ::pread(fd, buffer.data(), n * sizeof(BandEntry), static_cast<off_t>(offset));
    if (got != static_cast<ssize_t>(n * sizeof(BandEntry))) {
      *failed = true;
      return false;
    }
    offset += n * sizeof(BandEntry);
    left -= n;
    pos = 0;
    return true;
  }
};

// Merges `cursors` (each in (hash, id) order, no id in two of them),
// calling put(entry) in order. False when a run could not be read.
template <typename Put>
bool MergeKeys(std::vector<KeyCursor>& cursors, Put&& put) {
  bool failed = false;
  std::vector<size_t> heap;
  for (size_t c = 0; c < cursors.size(); ++c) {
    if (cursors[c].Fill(&failed)) heap.push_back(c);
  }
  auto later = [&cursors](size_t x, size_t y) { return cursors[y].Head() < cursors[x].Head(); };
  std::make_heap(heap.begin(), heap.end(), later);
  while (!heap.empty() && !failed) {
    std::pop_heap(heap.begin(), heap.end(), later);
    KeyCursor& c = cursors[heap.back()];
    put(c.Head());
    ++c.pos;
    if (c.Fill(&failed)) {
      std::push_heap(heap.begin(), heap.end(), later);
    } else {
      heap.pop_back();
    }
  }
  return !failed;
}

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
  bands_path_ = bands_path;
  for (auto [file, what] : {std::pair{&records_, "document records"}, std::pair{&copies_, "content hashes"}}) {
    Result<TempFile> made = TempFile::Create(what);
    if (!made.ok()) return error_ = made.status();
    *file = std::move(*made);
  }
  if (Status s = table_.Open(table_path); !s.ok()) return error_ = s;
  table_sum_.Reset(0);
  table_.Append(std::string(kTableHeaderSize, '\0'));  // written last (WriteTableEnd)
  std::string bytes;
  for (const InputFile& f : files) AppendFileRecord(f, &bytes);
  files_bytes_ = bytes.size();
  const TableHeader layout = TableLayout(params_, files_, 0, files_bytes_, 0);
  bytes.resize(layout.signatures_offset - kTableHeaderSize, '\0');
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
  if (!error_.ok()) return error_;
  if (docs_ + table.size() >= (uint64_t{1} << kShardShift)) {
    return error_ = Status::InvalidArgument("a shard holds 2^40 documents or more: use more sign tasks");
  }
  std::string& records = records_block_;
  std::string& copies = copies_block_;
  records.clear();
  copies.clear();
  const size_t per_set = kBandSortBudget / 2 / sizeof(BandEntry);
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
  const std::span<const uint32_t> values = table.values();
  if constexpr (std::endian::native == std::endian::little) {
    AppendToTable(std::string_view(reinterpret_cast<const char*>(values.data()), values.size_bytes()));
  } else {
    std::string rows;
    AppendSignatureRows(values, &rows);
    AppendToTable(rows);
  }
  docs_ += table.size();
  table.ClearDocuments();
  return Status::Ok();
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
  Result<TempFile> file = TempFile::Create("sorting band keys");
  if (!file.ok()) return file.status();
  std::swap(filling_, spilling_);
  filled_ = 0;
  runs_.push_back(std::make_unique<KeyRun>(KeyRun{.file = std::move(*file), .counts = {}}));
  KeyRun* run = runs_.back().get();
  spill_ = std::make_unique<BackgroundTask>([this, run] { spill_status_ = SpillRun(spilling_, *run); });
  return Status::Ok();
}

Status ShardWriter::SpillRun(KeyBuffers& keys, KeyRun& run) {
  for (std::vector<BandEntry>& band : keys) {
    internal::SortByHash(band, scratch_, ends_);
    if (std::fwrite(band.data(), sizeof(BandEntry), band.size(), run.file.get()) != band.size()) {
      return TempError("sorting band keys");
    }
    run.counts.push_back(band.size());
    band.clear();
  }
  if (std::fflush(run.file.get()) != 0) return TempError("sorting band keys");
  return Status::Ok();
}

Status ShardWriter::WriteBands() {
  if (Status s = JoinSpill(); !s.ok()) return s;
  for (std::vector<BandEntry>& band : filling_) internal::SortByHash(band, scratch_, ends_);
  AtomicFileWriter file;
  if (Status s = file.Open(bands_path_); !s.ok()) return s;
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
  std::vector<uint64_t> run_offsets(runs_.size(), 0);  // of the band being merged, per run
  for (size_t band = 0; band < filling_.size(); ++band) {
    std::vector<KeyCursor> cursors(runs_.size() + 1);
    for (size_t r = 0; r < runs_.size(); ++r) {
      cursors[r].fd = ::fileno(runs_[r]->file.get());
      cursors[r].offset = run_offsets[r];
      cursors[r].left = runs_[r]->counts[band];
      run_offsets[r] += runs_[r]->counts[band] * sizeof(BandEntry);
    }
    cursors.back().memory = &filling_[band];
    Hasher64 run;
    run.Reset(0);
    uint64_t in_band = 0;
    auto flush = [&] {
      run.Update(block.data(), block.size());
      file.Append(block);
      block.clear();
    };
    const bool read = MergeKeys(cursors, [&](const BandEntry& k) {
      PutLow(block, k.hash, 8);
      PutLow(block, k.id, kBandIdBytes);
      ++in_band;
      if (block.size() >= AtomicFileWriter::kBuffer) flush();
    });
    if (!read) return Status::IoError("temporary file for sorting band keys: shorter than written");
    if (in_band != signed_) return Status::Internal(bands_path_ + ": band keys lost while sorting");
    flush();
    sums.U64(run.Digest());
    filling_[band] = std::vector<BandEntry>();
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

Status ShardWriter::WriteTableEnd() {
  Status copied = CopyBack(records_, docs_bytes_, "document records", [&](std::string_view b) { AppendToTable(b); });
  if (!copied.ok()) return copied;
  const TableHeader layout = TableLayout(params_, files_, docs_, files_bytes_, docs_bytes_);
  std::string header;
  AppendTableHeader(params_, layout, &header);
  std::string checksum;
  PutLow(checksum, TableChecksum(table_sum_, header), 8);
  table_.Append(checksum);
  table_.WriteAt(0, header);
  return table_.Commit();
}

Status ShardWriter::Finish() {
  if (!error_.ok()) return error_;
  if (Status s = WriteTableEnd(); !s.ok()) return s;
  return WriteBands();
}

}  // namespace neardup
