#include "sign/table_codec.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "base/coding.h"
#include "base/hash.h"

namespace neardup {
namespace {

constexpr bool kLittleHost = std::endian::native == std::endian::little;
constexpr uint8_t kLastDocKind = static_cast<uint8_t>(DocKind::kFailed);
// Header fields (see the layout in table_codec.h).
constexpr size_t kVersionAt = 8;
constexpr size_t kParamsAt = 12;
constexpr size_t kFingerprintAt = 40;
constexpr size_t kFileCountAt = 48;
constexpr size_t kDocCountAt = 56;
constexpr size_t kDocsOffsetAt = 64;
constexpr size_t kSignaturesOffsetAt = 72;
constexpr size_t kTotalSizeAt = 80;
static_assert(kParamsAt + SignatureParams::kCanonicalSize == kFingerprintAt);
static_assert(kTotalSizeAt + 8 == kTableHeaderSize);
constexpr size_t kChecksumSize = 8;
// How many bytes DecodeRecords() hashes between two calls of its `hashed`.
constexpr size_t kChecksumChunk = size_t{4} << 20;
// File flags and doc flags.
constexpr uint8_t kFileReference = 1;
constexpr uint8_t kFileStream = 2;
constexpr uint8_t kDocReference = 1;

std::string Error(std::string_view what) { return std::string("signature table: ").append(what); }
Status Corrupt(std::string_view what) { return Status::Corrupt(Error(what)); }

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

std::string Num(uint64_t v) { return std::to_string(v); }

// A fixed-width field of type T at `p` (coding.h), signed types as their
// two's complement bits.
template <typename T>
T Load(const char* p) {
  return static_cast<T>(DecodeFixed<std::make_unsigned_t<T>>(p));
}

template <typename T>
void Put(std::string* out, T value) {
  using U = std::make_unsigned_t<T>;
  const U v = static_cast<U>(value);
  if constexpr (sizeof(T) == 1) {
    PutFixed8(out, v);
  } else if constexpr (sizeof(T) == 2) {
    PutFixed16(out, v);
  } else if constexpr (sizeof(T) == 4) {
    PutFixed32(out, v);
  } else {
    PutFixed64(out, v);
  }
}

uint64_t RoundUp8(uint64_t n) { return (n + 7) & ~uint64_t{7}; }

// Empty when `p` can be stored, else what is wrong with it.
std::string ParamsProblem(const SignatureParams& p) {
  if (p.shingle != ShingleUnit::kWord && p.shingle != ShingleUnit::kChar) {
    return std::string("unknown shingle unit ").append(Num(static_cast<uint64_t>(p.shingle)));
  }
  if (p.encoding != Encoding::kUtf8 && p.encoding != Encoding::kLatin1) {
    return std::string("unknown encoding ").append(Num(static_cast<uint64_t>(p.encoding)));
  }
  if (p.strip != Strip::kNone && p.strip != Strip::kHtml && p.strip != Strip::kMail) {
    return std::string("unknown --strip ").append(Num(static_cast<uint64_t>(p.strip)));
  }
  if (p.ngram < 1 || p.ngram > kMaxNgram) {
    return std::string("--ngram ").append(std::to_string(p.ngram)).append(" out of range 1..").append(Num(kMaxNgram));
  }
  if (p.num_perm < 1 || p.num_perm > kMaxNumPerm) {
    return std::string("--num-perm ")
        .append(std::to_string(p.num_perm))
        .append(" out of range 1..")
        .append(Num(kMaxNumPerm));
  }
  return {};
}

// Reads fixed-width fields from [pos, end) of a buffer, naming the record it
// is in when the bytes run out.
class Cursor {
 public:
  Cursor(const char* data, size_t pos, size_t end) : data_(data), pos_(pos), end_(end) {}

  void At(const char* record, uint64_t index) {
    record_ = record;
    index_ = index;
  }
  // OK when `n` more bytes are there; all reads below require it.
  Status Need(uint64_t n) const {
    if (end_ - pos_ >= n) return Status::Ok();
    return Corrupt(std::string("truncated in ")
                       .append(Where())
                       .append(" (need ")
                       .append(Num(n))
                       .append(" bytes, ")
                       .append(Num(end_ - pos_))
                       .append(" left)"));
  }
  Status Problem(std::string_view what) const { return Corrupt(Where().append(": ").append(what)); }

  template <typename T>
  T Read() {
    const T v = Load<T>(data_ + pos_);
    pos_ += sizeof(T);
    return v;
  }
  std::string_view Bytes(size_t n) {
    const std::string_view v(data_ + pos_, n);
    pos_ += n;
    return v;
  }
  size_t pos() const { return pos_; }

 private:
  std::string Where() const { return std::string(record_).append(" ").append(Num(index_)); }

  const char* data_;
  size_t pos_;
  size_t end_;
  const char* record_ = "";
  uint64_t index_ = 0;
};

Status ReadFiles(Cursor& in, uint64_t count, const RecordWalk& walk, std::vector<InputFile>* files) {
  if (!walk.keep_file) files->reserve(count);  // checked by PeekHeader against the section's size
  InputFile scratch;
  for (uint64_t i = 0; i < count; ++i) {
    in.At("file", i);
    if (Status s = in.Need(4); !s.ok()) return s;
    const uint32_t length = in.Read<uint32_t>();
    if (Status s = in.Need(uint64_t{length} + kTableFileRecordSize - 4); !s.ok()) return s;
    InputFile& f = walk.keep_file ? scratch : files->emplace_back();
    f.path = std::string(in.Bytes(length));
    f.size = in.Read<uint64_t>();
    f.mtime_ns = in.Read<int64_t>();
    f.ctime_ns = in.Read<int64_t>();
    f.identity.dev = in.Read<uint64_t>();
    f.identity.ino = in.Read<uint64_t>();
    const uint8_t flags = in.Read<uint8_t>();
    if ((flags & ~(kFileReference | kFileStream)) != 0) {
      return in.Problem(std::string("unknown flags ").append(Hex(flags)));
    }
    f.reference = (flags & kFileReference) != 0;
    f.identity.stream = (flags & kFileStream) != 0;
    if (walk.keep_file && walk.keep_file(i, f)) files->push_back(std::move(f));
  }
  return Status::Ok();
}

// Reads the docs section into *docs, or with `walk.keep` set, only the
// documents it keeps (their indices in *kept).
Status ReadDocs(Cursor& in, uint64_t count, uint64_t file_count, const RecordWalk& walk, std::vector<DocRecord>* docs,
                std::vector<uint64_t>* kept) {
  if (!walk.keep) docs->reserve(count);  // checked by PeekHeader against the section's size
  size_t next_done = in.pos() + kChecksumChunk;
  DocRecord scratch;
  for (uint64_t i = 0; i < count; ++i) {
    if (walk.read && in.pos() >= next_done) {
      walk.read(in.pos());
      next_done = in.pos() + kChecksumChunk;
    }
    in.At("doc", i);
    if (Status s = in.Need(4); !s.ok()) return s;
    const uint32_t length = in.Read<uint32_t>();
    if (Status s = in.Need(uint64_t{length} + kTableDocRecordSize - 4); !s.ok()) return s;
    DocRecord& d = walk.keep ? scratch : docs->emplace_back();
    d.name = std::string(in.Bytes(length));
    d.file = in.Read<uint32_t>();
    d.line = in.Read<uint64_t>();
    d.offset = in.Read<uint64_t>();
    d.size = in.Read<uint64_t>();
    d.mtime_ns = in.Read<int64_t>();
    d.content.low = in.Read<uint64_t>();
    d.content.high = in.Read<uint64_t>();
    d.shingles = in.Read<uint64_t>();
    const uint8_t kind = in.Read<uint8_t>();
    const uint8_t flags = in.Read<uint8_t>();
    if (d.file >= file_count) {
      return in.Problem(
          std::string("file ").append(Num(d.file)).append(" out of range (").append(Num(file_count)).append(" files)"));
    }
    if (kind > kLastDocKind) return in.Problem(std::string("unknown kind ").append(Num(kind)));
    if ((flags & ~kDocReference) != 0) return in.Problem(std::string("unknown flags ").append(Hex(flags)));
    d.kind = static_cast<DocKind>(kind);
    d.reference = (flags & kDocReference) != 0;
    if (walk.keep && walk.keep(i, d)) {
      docs->push_back(std::move(d));
      kept->push_back(i);
    }
  }
  return Status::Ok();
}

// The header and `bytes` agree on the size; the checksum is not verified.
Result<TableHeader> PeekWhole(std::string_view bytes) {
  Result<TableHeader> header = PeekHeader(bytes);
  if (!header.ok()) return header;
  if (bytes.size() < header->total_size) {
    return Corrupt(std::string("truncated (the header says ")
                       .append(Num(header->total_size))
                       .append(" bytes, ")
                       .append(Num(bytes.size()))
                       .append(" present)"));
  }
  if (bytes.size() > header->total_size) {
    return Corrupt(std::string("extra bytes after the table (the header says ")
                       .append(Num(header->total_size))
                       .append(" bytes, ")
                       .append(Num(bytes.size()))
                       .append(" present)"));
  }
  return header;
}

}  // namespace

namespace {

// Checks that `table` can be encoded with `params`; sets the sizes of its
// files and docs sections.
Status EncodableSizes(const SignatureTable& table, const SignatureParams& params, uint64_t* files_size_out,
                      uint64_t* docs_size_out) {
  if (std::string problem = ParamsProblem(params); !problem.empty()) {
    return Status::InvalidArgument(Error("cannot encode: ").append(problem));
  }
  if (table.num_perm() != params.num_perm) {
    return Status::InvalidArgument(Error("cannot encode: the table has ")
                                       .append(std::to_string(table.num_perm()))
                                       .append(" values per signature, --num-perm is ")
                                       .append(std::to_string(params.num_perm)));
  }
  assert(!table.contiguous() || table.values().size() == table.size() * static_cast<size_t>(params.num_perm));
  constexpr uint64_t kMaxLength = std::numeric_limits<uint32_t>::max();

  uint64_t files_size = 0;
  for (size_t i = 0; i < table.files.size(); ++i) {
    if (table.files[i].path.size() > kMaxLength) {
      return Status::InvalidArgument(
          Error("cannot encode: the path of file ").append(Num(i)).append(" is 4 GiB or more"));
    }
    files_size += kTableFileRecordSize + table.files[i].path.size();
  }
  uint64_t docs_size = 0;
  for (size_t i = 0; i < table.docs.size(); ++i) {
    if (Status s = CheckEncodable(table.docs[i], i, table.files.size()); !s.ok()) return s;
    docs_size += kTableDocRecordSize + table.docs[i].name.size();
  }
  *files_size_out = files_size;
  *docs_size_out = docs_size;
  return Status::Ok();
}

}  // namespace

uint64_t TableChecksum(Hasher64& body, std::string_view header) {
  body.Update(header.data(), header.size());
  return body.Digest();
}

void AppendTableHeader(const SignatureParams& params, const TableHeader& layout, std::string* out) {
  out->append(kTableMagic, sizeof kTableMagic);
  Put<uint32_t>(out, kTableFormatVersion);
  params.AppendCanonical(out);
  Put<uint64_t>(out, params.Fingerprint());
  Put<uint64_t>(out, layout.file_count);
  Put<uint64_t>(out, layout.doc_count);
  Put<uint64_t>(out, layout.docs_offset);
  Put<uint64_t>(out, layout.signatures_offset);
  Put<uint64_t>(out, layout.total_size);
}

TableHeader TableLayout(const SignatureParams& params, uint64_t files, uint64_t docs, uint64_t files_size,
                        uint64_t docs_size) {
  TableHeader h;
  h.params = params;
  h.file_count = files;
  h.doc_count = docs;
  h.signatures_offset = RoundUp8(kTableHeaderSize + files_size);
  h.docs_offset = h.signatures_offset + uint64_t{4} * docs * static_cast<uint64_t>(params.num_perm);
  h.total_size = h.docs_offset + docs_size + kChecksumSize;
  return h;
}

void AppendFileRecord(const InputFile& f, std::string* out) {
  Put<uint32_t>(out, static_cast<uint32_t>(f.path.size()));
  out->append(f.path);
  Put<uint64_t>(out, f.size);
  Put<int64_t>(out, f.mtime_ns);
  Put<int64_t>(out, f.ctime_ns);
  Put<uint64_t>(out, f.identity.dev);
  Put<uint64_t>(out, f.identity.ino);
  Put<uint8_t>(out, static_cast<uint8_t>((f.reference ? kFileReference : 0) | (f.identity.stream ? kFileStream : 0)));
}

void AppendDocRecord(const DocRecord& d, std::string* out) {
  Put<uint32_t>(out, static_cast<uint32_t>(d.name.size()));
  out->append(d.name);
  Put<uint32_t>(out, d.file);
  Put<uint64_t>(out, d.line);
  Put<uint64_t>(out, d.offset);
  Put<uint64_t>(out, d.size);
  Put<int64_t>(out, d.mtime_ns);
  Put<uint64_t>(out, d.content.low);
  Put<uint64_t>(out, d.content.high);
  Put<uint64_t>(out, d.shingles);
  Put<uint8_t>(out, static_cast<uint8_t>(d.kind));
  Put<uint8_t>(out, d.reference ? kDocReference : 0);
}

void AppendSignatureRows(std::span<const uint32_t> values, std::string* out) {
  if constexpr (kLittleHost) {
    out->append(reinterpret_cast<const char*>(values.data()), values.size_bytes());
  } else {
    for (const uint32_t v : values) Put<uint32_t>(out, v);
  }
}

Status CheckEncodable(const DocRecord& d, uint64_t index, uint64_t file_count) {
  constexpr uint64_t kMaxLength = std::numeric_limits<uint32_t>::max();
  const std::string where = std::string("cannot encode: doc ").append(Num(index));
  if (d.name.size() > kMaxLength) return Status::InvalidArgument(Error(where).append(": name is 4 GiB or more"));
  if (d.file >= file_count) {
    return Status::InvalidArgument(Error(where)
                                       .append(": file ")
                                       .append(Num(d.file))
                                       .append(" out of range (")
                                       .append(Num(file_count))
                                       .append(" files)"));
  }
  if (static_cast<uint8_t>(d.kind) > kLastDocKind) {
    return Status::InvalidArgument(Error(where).append(": unknown kind ").append(Num(static_cast<uint8_t>(d.kind))));
  }
  return Status::Ok();
}

Status EncodeTo(const SignatureTable& table, const SignatureParams& params, std::string* out) {
  out->clear();
  uint64_t files_size = 0;
  uint64_t docs_size = 0;
  if (Status s = EncodableSizes(table, params, &files_size, &docs_size); !s.ok()) return s;
  const TableHeader layout = TableLayout(params, table.files.size(), table.size(), files_size, docs_size);
  out->reserve(layout.total_size);
  AppendTableHeader(params, layout, out);
  assert(out->size() == kTableHeaderSize);
  for (const InputFile& f : table.files) AppendFileRecord(f, out);
  out->resize(layout.signatures_offset, '\0');
  if (table.contiguous()) {
    AppendSignatureRows(table.values(), out);
  } else {
    for (DocId id = 0; id < table.size(); ++id) AppendSignatureRows(table.signature(id).span(), out);
  }
  assert(out->size() == layout.docs_offset);
  for (const DocRecord& d : table.docs) AppendDocRecord(d, out);
  Hasher64 sum;
  sum.Reset(0);
  sum.Update(out->data() + kTableHeaderSize, out->size() - kTableHeaderSize);
  Put<uint64_t>(out, TableChecksum(sum, std::string_view(*out).substr(0, kTableHeaderSize)));
  assert(out->size() == layout.total_size);
  return Status::Ok();
}

namespace {

// The signature parameters of a header, checked against their fingerprint.
Result<SignatureParams> ReadParams(const char* p) {
  SignatureParams out;
  const char* params = p + kParamsAt;
  const uint8_t shingle = Load<uint8_t>(params);
  const uint8_t encoding = Load<uint8_t>(params + 1);
  const uint8_t strip = Load<uint8_t>(params + 2);
  // Read into wide types first: any value of the bytes is representable.
  const uint32_t ngram = Load<uint32_t>(params + 4);
  const uint32_t num_perm = Load<uint32_t>(params + 8);
  if (Load<uint8_t>(params + 3) != 0) return Corrupt("nonzero reserved bytes in the header");
  const uint32_t minhash = Load<uint32_t>(params + 24);
  if (minhash > kMinHashVersion) {
    return Corrupt(
        std::string("unknown MinHash definition ").append(Num(minhash)).append(" (made by a newer neardup?)"));
  }
  if (shingle > 1) return Corrupt(std::string("unknown shingle unit ").append(Num(shingle)));
  if (encoding > 1) return Corrupt(std::string("unknown encoding ").append(Num(encoding)));
  if (strip > 2) return Corrupt(std::string("unknown --strip ").append(Num(strip)));
  if (ngram < 1 || ngram > kMaxNgram) {
    return Corrupt(std::string("--ngram ").append(Num(ngram)).append(" out of range 1..").append(Num(kMaxNgram)));
  }
  if (num_perm < 1 || num_perm > kMaxNumPerm) {
    return Corrupt(
        std::string("--num-perm ").append(Num(num_perm)).append(" out of range 1..").append(Num(kMaxNumPerm)));
  }
  out.shingle = static_cast<ShingleUnit>(shingle);
  out.encoding = static_cast<Encoding>(encoding);
  out.strip = static_cast<Strip>(strip);
  out.ngram = static_cast<int>(ngram);
  out.num_perm = static_cast<int>(num_perm);
  out.seed = Load<uint64_t>(params + 12);
  out.tokenizer_version = Load<uint32_t>(params + 20);
  out.minhash_version = minhash;
  const uint64_t stored_fingerprint = Load<uint64_t>(p + kFingerprintAt);
  if (stored_fingerprint != out.Fingerprint()) {
    return Corrupt(std::string("parameter fingerprint ")
                       .append(Hex(stored_fingerprint))
                       .append(" does not match the parameters (")
                       .append(Hex(out.Fingerprint()))
                       .append(")"));
  }

  return out;
}

// The counts and offsets of a header, checked against each other.
Status ReadLayout(const char* p, uint32_t num_perm, TableHeader* out) {
  TableHeader& h = *out;
  h.file_count = Load<uint64_t>(p + kFileCountAt);
  h.doc_count = Load<uint64_t>(p + kDocCountAt);
  h.docs_offset = Load<uint64_t>(p + kDocsOffsetAt);
  h.signatures_offset = Load<uint64_t>(p + kSignaturesOffsetAt);
  h.total_size = Load<uint64_t>(p + kTotalSizeAt);
  // Each comparison below is arranged so that nothing overflows.
  if (h.signatures_offset < kTableHeaderSize || h.signatures_offset % 8 != 0) {
    return Corrupt(std::string("signatures offset ")
                       .append(Num(h.signatures_offset))
                       .append(" is not a multiple of 8 from ")
                       .append(Num(kTableHeaderSize))
                       .append(" (the header's end) on"));
  }
  if (h.docs_offset < h.signatures_offset) {
    return Corrupt(std::string("docs offset ")
                       .append(Num(h.docs_offset))
                       .append(" outside ")
                       .append(Num(h.signatures_offset))
                       .append("..")
                       .append(Num(h.total_size))
                       .append(" (the signatures offset .. the checksum)"));
  }
  if (h.total_size < kChecksumSize || h.total_size - kChecksumSize < h.docs_offset) {
    return Corrupt(std::string("total size ")
                       .append(Num(h.total_size))
                       .append(" leaves no room for the docs at offset ")
                       .append(Num(h.docs_offset)));
  }
  if (h.file_count > (h.signatures_offset - kTableHeaderSize) / kTableFileRecordSize) {
    return Corrupt(std::string(Num(h.file_count))
                       .append(" files cannot fit in the ")
                       .append(Num(h.signatures_offset - kTableHeaderSize))
                       .append(" bytes of the files section"));
  }
  if (h.doc_count > (h.total_size - kChecksumSize - h.docs_offset) / kTableDocRecordSize) {
    return Corrupt(std::string(Num(h.doc_count))
                       .append(" docs cannot fit in the ")
                       .append(Num(h.total_size - kChecksumSize - h.docs_offset))
                       .append(" bytes of the docs section"));
  }
  const uint64_t row_size = uint64_t{4} * num_perm;
  if (h.doc_count > h.signatures_size() / row_size || h.signatures_size() != h.doc_count * row_size) {
    return Corrupt(std::string("the signature matrix takes ")
                       .append(Num(h.signatures_size()))
                       .append(" bytes, ")
                       .append(Num(h.doc_count))
                       .append(" docs of ")
                       .append(Num(num_perm))
                       .append(" values need ")
                       .append(Num(h.doc_count))
                       .append(" * ")
                       .append(Num(row_size)));
  }
  return Status::Ok();
}

}  // namespace

Result<TableHeader> PeekHeader(std::string_view bytes) {
  if (bytes.size() < kTableHeaderSize) {
    return Corrupt(std::string("truncated header (need ")
                       .append(Num(kTableHeaderSize))
                       .append(" bytes, ")
                       .append(Num(bytes.size()))
                       .append(" present)"));
  }
  const char* p = bytes.data();
  if (std::memcmp(p, kTableMagic, sizeof kTableMagic) != 0) {
    return Status::InvalidArgument(Error("bad magic: not a neardup signature table"));
  }
  const uint32_t version = Load<uint32_t>(p + kVersionAt);
  if (version != kTableFormatVersion) {
    return Status::InvalidArgument(Error("format version ")
                                       .append(Num(version))
                                       .append(" is not supported (this build reads version ")
                                       .append(Num(kTableFormatVersion))
                                       .append(")"));
  }
  TableHeader h;
  Result<SignatureParams> params = ReadParams(p);
  if (!params.ok()) return params.status();
  h.params = *params;
  if (Status s = ReadLayout(p, static_cast<uint32_t>(h.params.num_perm), &h); !s.ok()) return s;
  return h;
}

namespace {

// As VerifyChecksum(), calling `hashed` (if set) after each kChecksumChunk
// bytes and at the end (see DecodeRecords()).
Status VerifyChecksumBy(std::string_view bytes, const std::function<void(size_t)>& hashed) {
  if (bytes.size() < kChecksumSize) return Corrupt("truncated: no room for the checksum");
  const size_t body = bytes.size() - kChecksumSize;
  const uint64_t stored = Load<uint64_t>(bytes.data() + body);
  if (body < kTableHeaderSize) return Corrupt("truncated: no room for the header");
  Hasher64 hasher;
  hasher.Reset(0);
  for (size_t done = kTableHeaderSize; done < body;) {
    const size_t n = std::min(kChecksumChunk, body - done);
    hasher.Update(bytes.data() + done, n);
    done += n;
    if (hashed) hashed(done);
  }
  const uint64_t computed = TableChecksum(hasher, bytes.substr(0, kTableHeaderSize));
  if (hashed && body == kTableHeaderSize) hashed(body);
  if (stored != computed) {
    return Corrupt(std::string("checksum mismatch (stored ")
                       .append(Hex(stored))
                       .append(", computed ")
                       .append(Hex(computed))
                       .append(")"));
  }
  return Status::Ok();
}

// The matrix of a whole encoding whose header is `h`, where it lies.
Result<std::span<const uint32_t>> InPlace(std::string_view bytes, const TableHeader& h) {
  if constexpr (!kLittleHost) {
    return Status::InvalidArgument(Error("signatures cannot be used in place on a big-endian host"));
  }
  const char* start = bytes.data() + h.signatures_offset;
  if (reinterpret_cast<uintptr_t>(start) % alignof(uint32_t) != 0) {
    return Status::InvalidArgument(Error("signatures are not aligned in this buffer; decode them instead"));
  }
  return std::span<const uint32_t>(reinterpret_cast<const uint32_t*>(start), h.signatures_size() / 4);
}

// The files and docs sections of a whole encoding whose header is `h`, and
// the padding after them, checked.
Status ReadSections(std::string_view bytes, const TableHeader& h, const RecordWalk& walk,
                    std::vector<InputFile>* files_out, std::vector<DocRecord>* docs, std::vector<uint64_t>* kept) {
  Cursor files(bytes.data(), kTableHeaderSize, h.signatures_offset);
  if (Status s = ReadFiles(files, h.file_count, walk, files_out); !s.ok()) return s;
  if (RoundUp8(files.pos()) != h.signatures_offset) {
    return Corrupt(std::string("the files section ends at ")
                       .append(Num(files.pos()))
                       .append(", the signatures offset is ")
                       .append(Num(h.signatures_offset)));
  }
  for (size_t i = files.pos(); i < h.signatures_offset; ++i) {
    if (bytes[i] != '\0') return Corrupt(std::string("nonzero padding byte at offset ").append(Num(i)));
  }
  const uint64_t docs_end = h.total_size - kChecksumSize;
  Cursor doc_cursor(bytes.data(), h.docs_offset, docs_end);
  if (Status s = ReadDocs(doc_cursor, h.doc_count, h.file_count, walk, docs, kept); !s.ok()) return s;
  if (doc_cursor.pos() != docs_end) {
    return Corrupt(std::string("the docs section ends at ")
                       .append(Num(doc_cursor.pos()))
                       .append(", the checksum is at ")
                       .append(Num(docs_end)));
  }
  return Status::Ok();
}

}  // namespace

Status VerifyChecksum(std::string_view bytes) { return VerifyChecksumBy(bytes, nullptr); }

Result<std::span<const uint32_t>> SignaturesInPlace(std::string_view bytes) {
  if constexpr (!kLittleHost) {
    return Status::InvalidArgument(Error("signatures cannot be used in place on a big-endian host"));
  }
  Result<TableHeader> header = PeekWhole(bytes);
  if (!header.ok()) return header.status();
  return InPlace(bytes, *header);
}

Result<DecodedTable> DecodeFrom(std::string_view bytes) {
  Result<TableHeader> header = PeekWhole(bytes);
  if (!header.ok()) return header.status();
  if (Status s = VerifyChecksum(bytes); !s.ok()) return s;
  const TableHeader& h = *header;

  DecodedTable out{h.params, SignatureTable(h.params.num_perm)};
  std::vector<DocRecord> docs;
  if (Status s = ReadSections(bytes, h, {}, &out.table.files, &docs, nullptr); !s.ok()) return s;
  out.table.Resize(docs.size());
  out.table.docs = std::move(docs);
  const char* matrix = bytes.data() + h.signatures_offset;
  if (!out.table.docs.empty()) {
    uint32_t* values = out.table.MutableSignature(0);
    const size_t count = h.signatures_size() / 4;
    if constexpr (kLittleHost) {
      std::memcpy(values, matrix, count * 4);
    } else {
      for (size_t i = 0; i < count; ++i) values[i] = Load<uint32_t>(matrix + 4 * i);
    }
  }
  return out;
}

Result<DecodedRecords> DecodeRecords(std::string_view bytes, const std::function<void(size_t)>& hashed) {
  return DecodeRecordsWith(bytes, {.keep = nullptr, .hashed = hashed, .read = nullptr, .checksum = true});
}

Result<DecodedRecords> DecodeRecordsWith(std::string_view bytes, const RecordWalk& walk) {
  if constexpr (!kLittleHost) {
    return Status::InvalidArgument(Error("signatures cannot be used in place on a big-endian host"));
  }
  Result<TableHeader> header = PeekWhole(bytes);
  if (!header.ok()) return header.status();
  const TableHeader& h = *header;
  Result<std::span<const uint32_t>> signatures = InPlace(bytes, h);
  if (!signatures.ok()) return signatures.status();
  if (walk.checksum) {
    if (Status s = VerifyChecksumBy(bytes, walk.hashed); !s.ok()) return s;
  }
  DecodedRecords out{.params = h.params, .files = {}, .docs = {}, .signatures = *signatures, .kept = {}};
  if (Status s = ReadSections(bytes, h, walk, &out.files, &out.docs, &out.kept); !s.ok()) return s;
  return out;
}

bool TableFileChecksumMatches(const std::string& path, size_t size) {
  if (size < kTableHeaderSize + kChecksumSize) return false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) != size) return false;
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  std::string buffer(size_t{256} << 10, '\0');
  const size_t body = size - kChecksumSize;
  Hasher64 hasher;
  hasher.Reset(0);
  for (size_t done = kTableHeaderSize; done < body;) {
    const size_t n = std::min(buffer.size(), body - done);
    if (!ReadAt(fd, done, buffer.data(), n)) return false;
    hasher.Update(buffer.data(), n);
    done += n;
  }
  char header[kTableHeaderSize + kChecksumSize];
  if (!ReadAt(fd, 0, header, kTableHeaderSize) || !ReadAt(fd, body, header + kTableHeaderSize, kChecksumSize)) {
    return false;
  }
  const uint64_t stored = DecodeFixed64(header + kTableHeaderSize);
  return TableChecksum(hasher, std::string_view(header, kTableHeaderSize)) == stored;
}

}  // namespace neardup
