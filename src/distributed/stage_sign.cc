#include "distributed/stage_sign.h"

#include <algorithm>
#include <filesystem>

#include "base/coding.h"
#include "base/hash.h"
#include "base/mapped_file.h"
#include "base/parallel.h"
#include "base/sorted_runs.h"
#include "distributed/byte_shares.h"
#include "distributed/format/shard_bitmaps.h"
#include "distributed/shard_writer.h"
#include "distributed/task_frame.h"
#include "lsh/band_key.h"
#include "neardup/quote.h"
#include "scan/kept_dir.h"
#include "scan/phases.h"
#include "scan/run.h"
#include "sign/sign_internal.h"
#include "sign/table_codec.h"
#include "walk/hashing_file_system.h"

namespace neardup {

namespace {

// Where shard t's files start among the walked ones, and what was walked.
struct ShareOrigin {
  uint64_t first_file = 0;
  uint64_t listing = 0;      // ListingFingerprint() of the whole walk
  uint64_t first_begin = 0;  // ShardMeta::first_begin, last_end
  uint64_t last_end = 0;
};

// The inputs stage filter checks --kept-dir against (ShardMeta::inputs).
std::vector<std::string> InputsOf(const Options& o, const std::vector<InputFile>& files) {
  std::vector<std::string> out = o.paths;
  out.insert(out.end(), o.against.begin(), o.against.end());
  const size_t first_listed = o.paths.size();
  std::vector<uint8_t> seen(o.listed_paths.size(), 0);
  for (const InputFile& f : files) {
    if (f.root < first_listed || f.root - first_listed >= o.listed_paths.size()) continue;
    if (seen[f.root - first_listed]++ == 0) out.push_back(o.listed_paths[f.root - first_listed]);
  }
  return out;
}

// What signing a share gives besides the documents (which went to the
// ShardWriter).
struct SignedShare {
  SignCounts counts;
  std::vector<InputProblem> problems;  // `file` is local to the share
};

// Text files signed per chunk of this many (a row each, sized up front); a
// JSONL file's documents are handed to the writer a block at a time.
constexpr size_t kChunkFiles = 16384;

// How a share is read: its files through `fs` (which reads only each file's
// byte range, byte_shares.h), file i's JSONL lines numbered from
// line_base[i] + 1.
struct ShareReading {
  ShareOrigin origin;
  FileSystem& fs;
  const std::vector<uint64_t>& line_base;
};

// Where a share's documents go as they are signed, in DocId order: the
// table and band keys, and (when the run builds them, WantsBitmaps()) the
// bitmaps of the first kBitmapTextBudget bytes of text of the share, as
// Sign() keeps those of a run's (SignContext::bitmap_text).
struct ShardSinks {
  ShardWriter& writer;
  ShardBitmapsWriter* bitmaps;  // null: none built
  uint64_t text = 0;            // bytes of text (DocRecord::size) taken so far

  // Counts `docs`' text (what Budget() asks for next).
  void CountText(std::span<const DocRecord> docs) {
    for (const DocRecord& d : docs) text += d.size;
  }
  // Takes `built`, one a document of `docs` (or none).
  void AddBitmaps(size_t docs, std::span<const SetBitmap> built) {
    if (bitmaps == nullptr) return;
    for (size_t k = 0; k < docs; ++k) bitmaps->Add(k < built.size() ? built[k] : SetBitmap());
  }
  // Asks `ctx` for the bitmaps of what is left of the budget.
  void Budget(SignContext* ctx) const {
    ctx->set_bitmaps = bitmaps != nullptr && text <= kBitmapTextBudget;
    ctx->bitmap_text = ctx->set_bitmaps ? kBitmapTextBudget - text : 0;
  }
};

// A signed chunk's hand-over to the sinks (ShardWriter::Take, the bitmaps),
// on a thread of its own while the workers sign the next chunk, so that no
// core waits for the writer between chunks; one at a time, in DocId order.
class ChunkTaker {
 public:
  explicit ChunkTaker(ShardSinks& sinks) : sinks_(sinks) {}
  // Waits for the hand-over under way, if any: its status (the first
  // failure of all, then Ok).
  Status Wait() {
    if (task_ != nullptr) {
      task_->Join();
      task_.reset();
    }
    return status_;
  }
  // Hands `chunk` (of the share's files from `first`) over in the
  // background, once the one before is done; the failure of that one (or
  // of any before), and nothing is handed over, when it failed.
  Status Take(SignedCorpus chunk, uint64_t first) {
    if (Status s = Wait(); !s.ok()) return s;
    sinks_.CountText(chunk.table.docs);                            // now: Budget() of the next chunk reads it
    auto held = std::make_shared<SignedCorpus>(std::move(chunk));  // a task's function is copyable
    task_ = std::make_unique<BackgroundTask>([this, held, first] {
      sinks_.AddBitmaps(held->table.docs.size(), held->bitmaps);
      status_ = sinks_.writer.Take(held->table, first);
    });
    return Status::Ok();
  }

 private:
  ShardSinks& sinks_;
  Status status_;
  std::unique_ptr<BackgroundTask> task_;  // last: joined before the rest goes
};

// Signs `files` into `sinks`, a chunk of files at a time and, within a JSONL
// file, a block of documents at a time: what is held is a chunk being
// signed and the one before being written, never the share.
Result<SignedShare> SignShareInto(const Run& run, const std::vector<InputFile>& files, const ShareReading& reading,
                                  ShardSinks& sinks) {
  SignedShare out;
  SignContext ctx = run.Signing(run.workers(), reading.fs);
  ctx.line_hashes = true;  // the shard meta keeps them for a filter task
  uint64_t first = 0;
  Status drained;
  ChunkTaker taker(sinks);
  ctx.drain = [&](std::vector<DocRecord>& docs, std::span<const uint32_t> signatures,
                  std::span<const SetBitmap> bitmaps) {
    if (Status s = taker.Wait(); !s.ok() && drained.ok()) drained = s;
    sinks.CountText(docs);
    sinks.AddBitmaps(docs.size(), bitmaps);
    if (Status s = sinks.writer.Take(docs, signatures, first); !s.ok() && drained.ok()) drained = s;
    return drained.ok();  // a failed write (a full disk) ends the share within its file
  };
  if (reading.line_base.size() != files.size()) return Status::Internal("a share's line bases do not match its files");
  for (first = 0; first < files.size(); first += kChunkFiles) {
    const size_t end = std::min(files.size(), static_cast<size_t>(first) + kChunkFiles);
    const auto from = static_cast<ptrdiff_t>(first);
    const auto to = static_cast<ptrdiff_t>(end);
    const std::vector<uint64_t> line_base(reading.line_base.begin() + from, reading.line_base.begin() + to);
    sinks.Budget(&ctx);
    SignedCorpus chunk = SignShare(ctx, std::vector<InputFile>(files.begin() + from, files.begin() + to), &line_base);
    if (run.Cancelled()) return Status::Cancelled("interrupted");
    if (!drained.ok()) return drained;
    for (InputProblem& p : chunk.problems) {
      p.file += static_cast<uint32_t>(first);
      out.problems.push_back(std::move(p));
    }
    out.counts += chunk.counts;
    // A failed hand-over (a full disk) ends the share here: the chunks after
    // it would be signed for nothing.
    if (Status s = taker.Take(std::move(chunk), first); !s.ok()) return s;
  }
  if (Status s = taker.Wait(); !s.ok()) return s;
  return out;
}

// Removes `path` when it is there: a file a killed run of the task left
// that this run does not write again, which must not outlive it. IoError
// when it cannot.
Status RemoveStale(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (ec) return Status::IoError(ShellQuoted(path) + ": cannot remove: " + ec.message());
  return Status::Ok();
}

// What the task saw of each file of its share (ShardMeta::seen), with the
// hashes `hashing` took of their parts as they were signed, and each file's
// root and path below --kept-dir (ShardMeta::roots, kept_paths). On the
// run's threads, a range of files each: on one, a share of 100k files took
// 40 ms after its last file was signed.
void AddSeen(const Run& run, const std::vector<InputFile>& files, const ShareOrigin& origin,
             const HashingFileSystem& hashing, ShardMeta* meta) {
  const size_t n = files.size();
  meta->seen.resize(n);
  meta->roots.resize(n);
  meta->kept_paths.resize(n);
  constexpr size_t kPerTask = 4096;
  const Workers workers{.threads = run.workers().threads, .tick = {}, .cancel = nullptr};
  ParallelFor(workers, (n + kPerTask - 1) / kPerTask, [&](int, size_t task) {
    for (size_t k = task * kPerTask; k < std::min(n, (task + 1) * kPerTask); ++k) {
      const InputFile& f = files[k];
      const uint64_t begin = k == 0 ? origin.first_begin : 0;
      const uint64_t end = k + 1 == n ? origin.last_end : f.size;
      const RawRead* raw = hashing.Find(f);
      meta->seen[k] = {.size = f.size,
                       .dev = f.identity.dev,
                       .ino = f.identity.ino,
                       .mtime_ns = f.mtime_ns,
                       .raw_hash = raw != nullptr && raw->done && raw->bytes == end - begin ? raw->hash : 0};
      meta->roots[k] = f.root;
      meta->kept_paths[k] = KeptPathOf(run.options(), f);
    }
  });
}

// Signs the frame's shard and writes its table, band keys, bitmaps (when
// the run builds them) and meta, in that order (its marker, last, is the
// caller's).
Status SignAndWriteShard(const Run& run, const TaskFrame& frame, const WalkedCorpus& walked,
                         const ShareReading& reading) {
  const ShareOrigin& origin = reading.origin;
  const Options& o = run.options();
  const uint64_t fingerprint = SignFingerprint(o);
  const std::vector<InputFile>& files = walked.files;
  ShardWriter writer(SignatureParams::From(o), run.banding(), fingerprint);
  if (Status s = writer.Open(files, frame.Path("table"), frame.Path("bands")); !s.ok()) return s;
  std::unique_ptr<ShardBitmapsWriter> bitmaps;
  if (WantsBitmaps(o)) {
    bitmaps = std::make_unique<ShardBitmapsWriter>();
    if (Status s = bitmaps->Open(frame.Path("bitmaps"), fingerprint); !s.ok()) return s;
  } else if (Status s = RemoveStale(frame.Path("bitmaps")); !s.ok()) {
    return s;  // a killed run at another threshold may have left them
  }
  ShardSinks sinks{.writer = writer, .bitmaps = bitmaps.get()};
  // Each file's part is hashed as it is signed (FileSeen::raw_hash).
  HashingFileSystem hashing(reading.fs);
  hashing.Reserve(files.size());  // made once, not grown 17 times over 100k files
  for (const InputFile& f : files) hashing.Slot(f);
  Result<SignedShare> in =
      SignShareInto(run, files, {.origin = origin, .fs = hashing, .line_base = reading.line_base}, sinks);
  if (!in.ok()) return in.status();
  if (Status s = writer.Finish(); !s.ok()) return s;
  if (bitmaps != nullptr) {
    if (bitmaps->documents() != writer.documents()) return Status::Internal("a shard's bitmaps do not match its table");
    if (Status s = bitmaps->Finish(); !s.ok()) return s;
  }
  ShardMeta meta{.task = frame.task(),
                 .first_file = origin.first_file,
                 .first_begin = origin.first_begin,
                 .last_end = origin.last_end,
                 .listing = origin.listing,
                 .counts = in->counts,
                 .problems = std::move(in->problems),
                 .walk = walked.counts,
                 .walk_errors = walked.errors,
                 .roots = {},
                 .kept_paths = {},
                 .line_hashes = writer.line_hashes(),
                 .inputs = InputsOf(o, files),
                 .seen = {}};
  AddSeen(run, files, origin, hashing, &meta);
  return frame.Place("meta", EncodeShardMeta(meta));
}

// Begins sign task t in `folder` (TaskFrame::Begin()): when it is not done,
// the shards signed and the markers there must be of this run. (Whether the
// inputs are still those of the finished shards is known only once walked:
// CheckShardListings.)
Result<TaskFrame> BeginSign(const WorkFolder& folder, const Options& o, StageTask t) {
  Result<TaskFrame> frame = TaskFrame::Begin(folder, StageKind::kSign, t, SignFingerprint(o));
  if (!frame.ok() || frame->done()) return frame;
  if (Status s = CheckShardParams(folder, o); !s.ok()) return s;
  if (Status s = frame->SameRun(); !s.ok()) return s;
  return frame;
}

}  // namespace

Result<TaskRun> RunSignTask(const Options& o, const std::string& work, StageTask t, const RunContext& ctx,
                            std::vector<std::string>* walk_skipped) {
  Result<std::unique_ptr<Run>> decided = Run::Decide(o, ctx);
  if (!decided.ok()) return decided.status();
  const Run& run = **decided;
  const WorkFolder folder(work);
  Result<TaskFrame> frame = BeginSign(folder, o, t);
  if (!frame.ok()) return frame.status();
  // The stages read no index: each task walks the inputs themselves, first,
  // so that a task run again over a changed tree refuses rather than count
  // its old shard done.
  Result<WalkedCorpus> walked = WalkCorpus(o, run.fs());
  if (!walked.ok()) return walked.status();
  if (walk_skipped != nullptr && t.task == 0) *walk_skipped = walked->skipped;
  ShareOrigin origin{.first_file = 0, .listing = ListingFingerprint(walked->files)};
  if (Status s = CheckShardListings(folder, t.tasks, origin.listing, &walked->files); !s.ok()) return s;
  if (frame->done()) {
    // Its own files, as it read them: checked by this task alone, so that a
    // file changed is named once, by the task whose share holds it.
    const std::string path = frame->Path("meta");
    Result<std::string> bytes = ReadWholeFile(path);
    if (!bytes.ok()) return bytes.status();
    Result<ShardMeta> meta = DecodeShardMeta(*bytes);
    if (!meta.ok()) return Damaged(path, meta.status().message());
    if (Status s = CheckShareUnchanged(folder, *meta, walked->files, run.fs()); !s.ok()) return s;
    return TaskRun::kAlreadyDone;
  }
  // Joined before the walk (BeginSign()); what a killed run left is removed
  // only now, when the task signs.
  frame->RemoveTemporaries();
  Result<Share> share = ShareOf(run.fs(), o, std::move(walked->files), t);
  if (!share.ok()) return share.status();
  origin.first_file = share->first_file;
  std::vector<uint64_t> line_base;
  if (!share->files.empty()) {
    origin.first_begin = share->parts.front().begin;
    origin.last_end = share->parts.back().end;
  }
  line_base.reserve(share->parts.size());
  for (const FilePart& part : share->parts) line_base.push_back(part.line_base);
  RangedFileSystem ranged(run.fs(), share->files, share->parts);
  walked->files = std::move(share->files);
  if (Status s = SignAndWriteShard(run, *frame, *walked, {.origin = origin, .fs = ranged, .line_base = line_base});
      !s.ok()) {
    return s;
  }
  return frame->Finish();
}

}  // namespace neardup
