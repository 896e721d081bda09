#include "sign/sign.h"

#include <mutex>
#include <string>

#include "neardup/quote.h"
#include "sign/document.h"
#include "sign/sign_internal.h"

namespace neardup {

namespace {

bool Compressed(const std::string& path) { return path.ends_with(".gz") || path.ends_with(".zst"); }

// Reads and signs text file `i` into row i of the table (from ctx.fs,
// keeping a stream's copy when ctx.keep_streams). Returns the problem, if
// any, and fills `sk`.
// With `bitmap`, the file's SetBitmap goes to out->bitmaps[i].
Status SignTextFile(const SignContext& ctx, DocumentReader& reader, SetBitmapBuilder* bitmap, size_t i,
                    SignedCorpus* out, DocumentSketch* sk) {
  const InputFile& f = out->table.files[i];
  DocRecord& r = out->table.docs[i];
  r.name = f.path;
  r.file = static_cast<uint32_t>(i);
  r.size = f.size;
  r.mtime_ns = f.mtime_ns;
  r.reference = f.reference;
  StreamCopy* copy = nullptr;
  if (ctx.keep_streams && f.identity.stream) {
    out->stream_copies[i] = std::make_unique<StreamCopy>();
    copy = out->stream_copies[i].get();
  }
  Result<std::unique_ptr<ByteReader>> in = OpenForSigning(ctx.fs, f, copy, ctx.options);
  if (!in.ok()) return in.status();
  // A compressed file's text is larger than the file: its bitmap's level is
  // guessed from four times its size (a wrong guess only loosens the bound).
  if (bitmap != nullptr) bitmap->Begin(f.identity.stream ? 0 : Compressed(f.path) ? 4 * f.size : f.size);
  reader.set_bitmap(bitmap);
  if (!f.identity.stream) reader.expect_bytes(Compressed(f.path) ? 4 * f.size : f.size);
  Status s = reader.ReadStream(**in, out->table.MutableSignature(static_cast<DocId>(i)), nullptr, sk);
  if (f.identity.stream) r.size = sk->bytes;
  if (!s.ok() && ctx.options.strip != Strip::kNone && s.message().starts_with("--strip ")) {
    return Status::Corrupt(ShellQuoted(f.path) + ": " + s.message());  // the document could not be stripped
  }
  if (!s.ok()) return s;
  if (bitmap != nullptr && sk->kind == DocumentSketch::Kind::kOk) out->bitmaps[i] = bitmap->Finish(sk->bytes);
  // Before the size check: reading stopped at the limit.
  if (sk->kind == DocumentSketch::Kind::kTooLarge && ctx.options.max_filesize == 0) {
    return Status::InvalidArgument(ShellQuoted(f.path) + ": skipped, more than --max-line " +
                                   std::to_string(ctx.options.max_line) +
                                   " bytes, the most --strip holds whole (give a larger --max-filesize)");
  }
  if (sk->kind == DocumentSketch::Kind::kTooLarge) {
    return Status::InvalidArgument(ShellQuoted(f.path) + ": skipped, more than --max-filesize " +
                                   std::to_string(ctx.options.max_filesize) + " bytes once decompressed");
  }
  // A plain file that no longer has the size it had when walked changed
  // under us: its signature mixes two versions, so it is left out. (A
  // stream document had no size to compare; a compressed file's size is
  // not its text's.)
  if (sk->kind != DocumentSketch::Kind::kBinary && !f.identity.stream && !Compressed(f.path) && sk->bytes != f.size) {
    return Status::Changed(ShellQuoted(f.path) + ": changed size during the run (" + std::to_string(f.size) +
                           " bytes when listed, " + std::to_string(sk->bytes) + " read)");
  }
  return Status::Ok();
}

// How many of `files`, the first in walk order, get bitmaps: with
// SignContext::set_bitmaps, those within its first ctx.bitmap_text bytes.
size_t FilesWithBitmaps(const SignContext& ctx, const std::vector<InputFile>& files) {
  if (!ctx.set_bitmaps) return 0;
  size_t with_bitmap = 0;
  for (uint64_t bytes = 0; with_bitmap < files.size(); ++with_bitmap) {
    bytes += files[with_bitmap].size;
    if (bytes > ctx.bitmap_text) break;
  }
  return with_bitmap;
}

// Rows a signing worker backs in one call (PrefaultForWrite) when it comes
// to the first of them: 1 MiB of a 128-value matrix.
constexpr size_t kBackedRows = 2048;

// File `i`'s problem `s`, or its counts, into *out (and (*per_file)[i]).
// REQUIRES: the caller holds the lock that guards out->problems and out->counts.
void TakeOutcome(const Status& s, const DocumentSketch& sk, size_t i, SignedCorpus* out,
                 std::vector<SignCounts>* per_file) {
  if (!s.ok()) {
    const bool too_large = sk.kind == DocumentSketch::Kind::kTooLarge;
    out->problems.push_back({.file = static_cast<uint32_t>(i),
                             .line = 0,
                             .status = s,
                             .kind = too_large ? InputProblem::Kind::kTooLarge : InputProblem::Kind::kUnreadable});
    return;
  }
  const SignCounts read{
      .bytes = sk.bytes, .invalid_utf8 = sk.replaced, .transcoded = sk.transcoded ? 1u : 0u, .duplicate_ids = 0};
  out->counts += read;
  if (per_file != nullptr) (*per_file)[i] += read;
}

}  // namespace

void SignTextFiles(const SignContext& ctx, SignedCorpus* out, std::vector<SignCounts>* per_file,
                   const std::function<void(size_t i, bool ok)>& file_done) {
  const Options& options = ctx.options;
  const Workers& workers = ctx.workers;
  SignProgress& progress = ctx.progress;
  const size_t n = out->table.files.size();
  // The rows are written by the workers that sign them, which back their
  // pages kBackedRows at a time: the calling thread does not touch the
  // whole matrix first, in series, before any file is read.
  out->table.ResizeUnwritten(n);
  std::vector<uint8_t> begun(n, 0);  // by file: its row was written (a cancelled run starts not all)
  std::mutex mu;                     // guards out->problems and out->counts
  std::vector<std::unique_ptr<DocumentReader>> readers(static_cast<size_t>(workers.threads));
  std::vector<std::unique_ptr<SetBitmapBuilder>> bitmaps(static_cast<size_t>(workers.threads));
  const size_t with_bitmap = FilesWithBitmaps(ctx, out->table.files);
  if (ctx.set_bitmaps) out->bitmaps.resize(n);
  ParallelFor(workers, n, [&](int w, size_t i) {
    auto& reader = readers[static_cast<size_t>(w)];
    if (reader == nullptr) {
      reader = std::make_unique<DocumentReader>(options, ctx.minhasher);
      reader->set_count_shingles(ctx.count_shingles);
    }
    auto& bitmap = bitmaps[static_cast<size_t>(w)];
    const bool with = i < with_bitmap && (ctx.bitmap_gate == nullptr || ctx.bitmap_gate->Wanted());
    if (with && bitmap == nullptr) bitmap = std::make_unique<SetBitmapBuilder>();
    if (i % kBackedRows == 0) out->table.BackRows(static_cast<DocId>(i), static_cast<DocId>(i + kBackedRows));
    ctx.minhasher.Init(out->table.MutableSignature(static_cast<DocId>(i)));  // unset until signed
    begun[i] = 1;
    DocumentSketch sk;
    const Status s = SignTextFile(ctx, *reader, with ? bitmap.get() : nullptr, i, out, &sk);
    DocRecord& r = out->table.docs[i];
    if (s.ok()) {
      r.kind = KindOf(sk);
      r.content = sk.content;
      r.shingles = sk.shingles;
      if (ctx.bitmap_gate != nullptr && r.kind == DocKind::kOk) {
        const SignatureView sig = out->table.signature(static_cast<DocId>(i));
        ctx.bitmap_gate->Signed({sig.data(), sig.size()}, sk.bytes);
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      TakeOutcome(s, sk, i, out, per_file);
    }
    progress.bytes += sk.bytes;
    ++progress.inputs_done;
    ++progress.documents;
    if (file_done) file_done(i, s.ok());
  });
  for (size_t i = 0; i < n; ++i) {
    if (begun[i] == 0) ctx.minhasher.Init(out->table.MutableSignature(static_cast<DocId>(i)));
  }
}

DocKind KindOf(const DocumentSketch& sk) {
  switch (sk.kind) {
    case DocumentSketch::Kind::kOk:
      return DocKind::kOk;
    case DocumentSketch::Kind::kEmpty:
      return DocKind::kEmpty;
    case DocumentSketch::Kind::kTooShort:
      return DocKind::kTooShort;
    case DocumentSketch::Kind::kBinary:
      return DocKind::kBinary;
    case DocumentSketch::Kind::kTooLarge:
      return DocKind::kFailed;
  }
  return DocKind::kFailed;
}

SignedCorpus SignShare(const SignContext& ctx, std::vector<InputFile> files, const std::vector<uint64_t>* line_base) {
  SignedCorpus out{.table = SignatureTable(ctx.options.num_perm),
                   .stream_copies = {},
                   .problems = {},
                   .counts = {},
                   .unnamed_unsigned = {},
                   .named_unsigned = {},
                   .bitmaps = {}};
  out.table.files = std::move(files);
  out.stream_copies.resize(out.table.files.size());
  if (ctx.options.input == InputFormat::kText) {
    SignTextFiles(ctx, &out, nullptr);
  } else {
    SignJsonlFiles(ctx, &out, line_base, nullptr);
  }
  return out;
}

SignedCorpus Sign(const SignContext& ctx, std::vector<InputFile> files) {
  SignContext whole_run = ctx;  // the run's documents: the unsigned are counted, not kept (sign.h)
  whole_run.compact_unsigned = true;
  SignedCorpus out = SignShare(whole_run, std::move(files));
  if (RowsAreDocuments(ctx.options.input)) RenameDuplicateIds(&out);
  return out;
}

}  // namespace neardup
