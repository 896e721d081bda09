#include "distributed/stage_filter.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "base/coding.h"
#include "base/mapped_file.h"
#include "distributed/byte_shares.h"
#include "distributed/format/dropped_list.h"
#include "distributed/format/shard_meta.h"
#include "distributed/shards.h"
#include "distributed/stage_bucket.h"
#include "distributed/stage_marks.h"
#include "distributed/task_frame.h"
#include "distributed/work_folder.h"
#include "neardup/quote.h"
#include "neardup/scan.h"
#include "scan/annotate_dir.h"
#include "scan/kept_dir.h"
#include "scan/run.h"
#include "sign/table_codec.h"
#include "walk/hashing_file_system.h"
#include "walk/kept_folder.h"

namespace neardup {

namespace {

namespace fs = std::filesystem;

std::string Hex(uint64_t v) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(v));
  return hex;
}

// Shard t's files and documents as the pass needs them, the inputs DIR is
// checked against, and the listing its sign task walked.
struct ShardSources {
  KeptSources sources;
  std::vector<std::string> inputs;
  uint64_t listing = 0;
  bool continues_first = false;  // its first file continues an earlier shard's range
  bool continued_last = false;   // a later shard continues its last file
  uint64_t first_begin = 0;      // ShardMeta::first_begin and last_end
  uint64_t last_end = 0;
  std::vector<FileSeen> seen;  // ShardMeta::seen: what its sign task saw of each file
  // The last file's ranges and their hashes as signed, this shard's then
  // the later shards' (JoinSplitFiles()), when later shards continue it.
  struct Range {
    uint64_t begin = 0;
    uint64_t end = 0;
    uint64_t hash = 0;  // FileSeen::raw_hash: 0 unknown
  };
  std::vector<Range> last_ranges;
};

Result<ShardSources> LoadShard(const WorkFolder& folder, const Options& o, StageTask t) {
  const std::string path = folder.File(StageKind::kSign, t.task, "table");
  Result<MappedFile> mapped = MappedFile::Open(path);
  if (!mapped.ok()) return mapped.status();
  // The signatures are not read: each chunk is let go once hashed.
  mapped->Advise(MappedFile::Access::kSequential);
  size_t released = 0;
  Result<DecodedRecords> part = DecodeRecords(mapped->bytes(), [&](size_t hashed) {
    mapped->Release(released, hashed - released);
    released = hashed;
  });
  if (!part.ok()) return Damaged(path, part.status().message());
  if (!(part->params == SignatureParams::From(o))) {
    return Status::InvalidArgument(ShellQuoted(path) + ": signed with other parameters");
  }
  const std::string meta_path = folder.File(StageKind::kSign, t.task, "meta");
  Result<std::string> bytes = ReadWholeFile(meta_path);
  if (!bytes.ok()) return bytes.status();
  Result<ShardMeta> meta = DecodeShardMeta(*bytes);
  if (!meta.ok()) return Damaged(meta_path, meta.status().message());
  const FileEnds ends = EndsOf(part->files);
  if (Status s = CheckShardMeta(*meta, t.task, t.tasks, ends, part->docs.size()); !s.ok()) {
    return Damaged(meta_path, s.message());
  }
  const bool continues_first = ContinuesFirst(*meta, ends);
  const bool continued_last = ContinuedLast(*meta, ends);
  // A kept path reaches a write: it must be a path below DIR, and the tail
  // of its file's path that KeptPathOf() makes of it (the checksum catches
  // damage, not a rewritten path).
  for (size_t k = 0; k < part->files.size(); ++k) {
    const std::string& kept = meta->kept_paths[k];
    if (Status s = CheckKeptPath(kept); !s.ok()) return Damaged(meta_path, s.message());
    if (!IsTailOf(kept, part->files[k].path)) {
      return Damaged(meta_path, "kept path " + ShellQuoted(kept) + " is not the tail of its file's path " +
                                    ShellQuoted(part->files[k].path));
    }
  }
  for (size_t k = 0; k < part->files.size(); ++k) part->files[k].root = meta->roots[k];
  for (size_t d = 0; d < part->docs.size(); ++d) part->docs[d].line_hash = meta->line_hashes[d];
  ShardSources out;
  out.sources = KeptSourcesOf(std::move(part->files), part->docs, meta->problems, std::move(meta->kept_paths));
  out.sources.inputs = meta->inputs;
  out.inputs = std::move(meta->inputs);
  out.listing = meta->listing;
  out.continues_first = continues_first;
  out.continued_last = continued_last;
  out.first_begin = meta->first_begin;
  out.last_end = meta->last_end;
  out.seen = std::move(meta->seen);
  return out;
}

// Metadata is not content: a file of the shard whose stat is no longer the
// one its sign task saw (the hard links of an earlier filter run or of
// --kept-dir change the ctime; touch, the mtime), but whose size is, and
// whose bytes hash as they did when signed (FileSeen::raw_hash), gets the
// stat seen now, so that WriteKeptDir's check (the stat before and after it
// reads the file) compares with it. A file the sign tasks split, which this
// task writes (its first range is this shard's), is proven range by range,
// each against the hash its shard's sign task recorded (last_ranges). What
// is not proven is left to that check, which refuses it.
void ProveUnchanged(FileSystem& fs, ShardSources* shard) {
  KeptSources& src = shard->sources;
  const size_t n = src.files.size();
  if (shard->seen.size() != n) return;
  for (size_t k = 0; k < n; ++k) {
    InputFile& f = src.files[k];
    if (f.reference) continue;
    std::vector<ShardSources::Range> ranges = {{.begin = 0, .end = f.size, .hash = shard->seen[k].raw_hash}};
    if (k + 1 == n && shard->continued_last) ranges = shard->last_ranges;
    // The ranges must cover the file, in order, each with its hash.
    uint64_t covered = 0;
    for (const ShardSources::Range& r : ranges) {
      if (r.begin != covered || r.end < r.begin || r.hash == 0) covered = UINT64_MAX;
      if (covered != UINT64_MAX) covered = r.end;
    }
    if (ranges.empty() || covered != f.size) continue;
    Result<FileStat> now = fs.Stat(f.path);
    if (!now.ok() || now->size != f.size) continue;
    if (now->mtime_ns == f.mtime_ns && now->ctime_ns == f.ctime_ns && now->dev == f.identity.dev &&
        now->ino == f.identity.ino) {
      continue;
    }
    const FileIdentity identity{.dev = now->dev, .ino = now->ino, .stream = false};
    bool same = true;
    for (const ShardSources::Range& r : ranges) {
      Result<std::unique_ptr<ByteReader>> in = fs.OpenExpected(f.path, identity);
      if (!in.ok()) {
        same = false;
        break;
      }
      std::unique_ptr<ByteReader> part =
          r.begin == 0 && r.end == f.size ? std::move(*in) : RangeReader(std::move(*in), r.begin, r.end);
      const std::optional<uint64_t> h = HashOfAllBytes(*part, r.end - r.begin);
      if (!h || *h != r.hash) {
        same = false;
        break;
      }
    }
    if (!same) continue;
    f.mtime_ns = now->mtime_ns;
    f.ctime_ns = now->ctime_ns;
    f.identity = identity;
  }
}

// The dropped documents of shard t (local ids), from the report's list,
// checked against the shard and the options.
Result<std::vector<DocId>> LoadDropped(const WorkFolder& folder, const Options& o, StageTask t,
                                       const ShardSources& shard) {
  const std::string path = folder.File(StageKind::kReport, t.task, "dropped");
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return Status::InvalidArgument(ShellQuoted(path) + ": missing: run `neardup stage report` over " +
                                   ShellQuoted(folder.root()) + " first, with the same options");
  }
  Result<std::string> bytes = ReadWholeFile(path);
  if (!bytes.ok()) return bytes.status();
  Result<DroppedList> list = DecodeDroppedList(*bytes);
  if (!list.ok() && list.status().message().ends_with("another format version")) {
    return Status::InvalidArgument(ShellQuoted(path) +
                                   ": written by another version of neardup: run `neardup stage report` over " +
                                   ShellQuoted(folder.root()) + " again");
  }
  if (!list.ok()) return Damaged(path, list.status().message());
  if (list->task.task != t.task || list->task.tasks != t.tasks || list->docs != shard.sources.docs.size()) {
    return Damaged(path, "made for another shard");
  }
  if (list->listing != shard.listing) {
    return Status::InvalidArgument(ShellQuoted(path) +
                                   ": made from other sign tasks: run `neardup stage report` again");
  }
  if (list->fingerprint != DroppedFingerprint(o)) {
    return Status::InvalidArgument(ShellQuoted(path) +
                                   ": made with other options (signature, banding, threshold, "
                                   "verification, --keep or --cluster-by): give stage filter the report's");
  }
  if (!list->clash.name.empty()) return RefuseNameClash(list->clash);
  if (list->deferred) return Damaged(path, "its ids are not written yet");
  return std::vector<DocId>(list->ids.begin(), list->ids.end());
}

// A file split between shards (byte_shares.h) is written whole by the task
// of the shard that holds its first range, and by no other: one writer a
// file, under a temporary name renamed into place, as for every file. So:
//  - this shard's first file, when it continues an earlier shard's range,
//    is left to that shard's task (marked not to write or remove here), and
//    its dropped documents with it;
//  - this shard's last file, when later shards continue it and its range
//    here is its first, takes their dropped documents (with their lines and
//    line hashes) from their tables, metas and dropped lists, shard after
//    shard, and counts their kept ones. Only those shards' records of one
//    shard at a time are held, and of the file only its dropped documents.
Status JoinSplitFiles(const WorkFolder& folder, const Options& o, StageTask t, ShardSources* shard,
                      std::vector<DocId>* dropped, AnnotateMarks* marks) {
  KeptSources& src = shard->sources;
  const bool owns_last = shard->continued_last && !(shard->continues_first && src.files.size() == 1);
  if (shard->continues_first) {
    src.files.front().reference = true;  // neither written nor removed by this task
    std::erase_if(*dropped, [&](DocId d) { return src.docs[d].file == 0; });
  }
  if (!owns_last) return Status::Ok();
  const uint32_t last = static_cast<uint32_t>(src.files.size() - 1);
  src.kept_elsewhere.assign(src.files.size(), 0);
  // This shard's range of the file: from 0 (a file that starts here) to last_end.
  const uint64_t own_hash = shard->seen.size() > last ? shard->seen[last].raw_hash : 0;
  shard->last_ranges = {{.begin = 0, .end = shard->last_end, .hash = own_hash}};
  for (uint32_t s = t.task + 1; s < t.tasks; ++s) {
    const StageTask other{.task = s, .tasks = t.tasks};
    Result<ShardSources> next = LoadShard(folder, o, other);
    if (!next.ok()) return next.status();
    if (next->sources.files.empty()) continue;  // a share inside one line
    const std::string meta_path = folder.File(StageKind::kSign, s, "meta");
    if (next->listing != shard->listing) {
      return Damaged(meta_path, "another listing than shard " + std::to_string(t.task));
    }
    if (!next->continues_first || next->sources.files.front().path != src.files[last].path) {
      return Damaged(meta_path, "does not continue shard " + std::to_string(t.task) + "'s last file");
    }
    Result<std::vector<DocId>> theirs = LoadDropped(folder, o, other, *next);
    if (!theirs.ok()) return theirs.status();
    if (marks != nullptr) {  // every document of the file is marked, not only the dropped ones
      const ShardDocs docs{.docs = next->sources.docs, .listing = next->listing, .file_of = [last](uint32_t f) {
                             return f == 0 ? int64_t{last} : int64_t{-1};
                           }};
      if (Status added = AddShardMarks(folder, o, other, docs, marks); !added.ok()) return added;
    }
    std::vector<uint8_t> is_dropped(next->sources.docs.size(), 0);
    for (const DocId d : *theirs) is_dropped[d] = 1;
    for (size_t d = 0; d < next->sources.docs.size(); ++d) {
      KeptSources::Doc doc = next->sources.docs[d];
      if (doc.file != 0) break;  // the file's documents come first
      if (is_dropped[d] == 0) {
        if (WritableKind(doc.kind)) ++src.kept_elsewhere[last];
        continue;
      }
      doc.file = last;
      dropped->push_back(static_cast<DocId>(src.docs.size()));
      src.docs.push_back(doc);
    }
    if (next->sources.unread[0] != 0) src.unread[last] = 1;
    const bool ends_here = !next->continued_last || next->sources.files.size() > 1;
    shard->last_ranges.push_back({.begin = next->first_begin,
                                  .end = ends_here ? src.files[last].size : next->last_end,
                                  .hash = next->seen.empty() ? 0 : next->seen[0].raw_hash});
    if (ends_here) break;
  }
  return Status::Ok();
}

// Removes, after the pass, what an earlier run of this task placed for the
// files this run did not write because they changed since signed or could
// not be read whole: a clean run would not have them, and their bytes are
// no longer vouched for. (A file not written for another reason, a failed
// write, keeps what an earlier run placed.) Through `kept`: only a regular
// file below DIR, no link followed.
Status RemoveChanged(const KeptFolder& kept, const KeptSources& src, const std::vector<uint32_t>& changed) {
  for (const uint32_t f : changed) {
    if (src.files[f].reference) continue;
    if (Status s = kept.RemoveFile(src.kept_paths[f]); !s.ok()) return s;
  }
  return Status::Ok();
}

// Removes the temporary files a run of this task killed while placing left
// beside its files in DIR (".NAME.neardup-...", output_file.h): those of the
// names of this shard's files alone, which no other task writes (the report
// refuses names shared between shards). The files themselves are left: a
// task run again replaces each at once. A folder's names are listed through
// its path (reading names only); each is removed through `kept`, which
// follows no link and removes only a regular file below DIR.
Status RemoveTemporaries(const KeptFolder& kept, const KeptSources& src) {
  std::map<std::string, std::set<std::string>> names;  // by folder below DIR ("" for DIR)
  for (size_t f = 0; f < src.files.size(); ++f) {
    const std::string& rel = src.kept_paths[f];
    if (src.files[f].reference || !CheckKeptPath(rel).ok()) continue;  // the pass refuses the path
    const size_t slash = rel.rfind('/');
    names[slash == std::string::npos ? "" : rel.substr(0, slash)].insert(
        slash == std::string::npos ? rel : rel.substr(slash + 1));
  }
  constexpr std::string_view kTemp = ".neardup-";
  std::error_code ec;
  for (const auto& [folder, in_folder] : names) {
    std::vector<std::string> left;
    const fs::path path = folder.empty() ? fs::path(kept.path()) : fs::path(kept.path()) / folder;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      const size_t at = name.rfind(kTemp);
      if (name.size() < 2 || name[0] != '.' || at == std::string::npos || at < 2) continue;
      if (in_folder.count(name.substr(1, at - 1)) != 0) left.push_back(folder.empty() ? name : folder + "/" + name);
    }
    for (const std::string& rel : left) {
      if (Status s = kept.RemoveFile(rel); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

// Begins or joins DIR (named `flag`) for the filter tasks of `folder` (see
// stage_filter.h), recording `text` (what the tasks write there), and
// removes the temporaries of this shard's files a task killed left there
// (through `kept`, DIR opened: never through a symbolic link).
Status ClaimDir(const WorkFolder& folder, const std::string& dir, const std::string& flag, const std::string& text,
                const KeptSources& src, const KeptFolder& kept) {
  std::error_code ec;
  struct stat st {};
  if (::fstat(kept.fd(), &st) != 0) return Status::IoError(flag + " " + ShellQuoted(dir) + ": cannot stat");
  const std::string stamps = folder.Dir(StageKind::kFilter);
  fs::create_directories(stamps, ec);
  if (ec) return Status::IoError(ShellQuoted(stamps) + ": cannot create: " + ec.message());
  const std::string stamp = stamps + "/" + std::to_string(st.st_dev) + "-" + std::to_string(st.st_ino) + ".dir";
  auto stamped = [&]() -> Result<bool> {
    if (!fs::exists(stamp, ec)) return false;
    Result<std::string> had = ReadWholeFile(stamp);
    if (!had.ok()) return had.status();
    return *had == text;
  };
  Result<bool> begun = stamped();
  if (!begun.ok()) return begun.status();
  if (!*begun) {
    // A task that begins DIR writes the stamp before anything else, so DIR
    // found not empty is either begun by a task that ran meanwhile (the
    // stamp is there now) or foreign.
    if (!fs::is_empty(dir, ec) || ec) {
      begun = stamped();
      if (!begun.ok()) return begun.status();
      if (!*begun) {
        return Status::InvalidArgument(flag + " " + ShellQuoted(dir) + " is not empty and no filter task over " +
                                       ShellQuoted(folder.root()) +
                                       " with these options began it; name a new or empty folder");
      }
    } else if (Status s = WriteAtomically(stamp, text); !s.ok()) {
      return s;
    }
  }
  return RemoveTemporaries(kept, src);
}

// Whether shard t's list is there, deferred (a report in pairs mode wrote
// it), and made with these options from these sign tasks: a list of other
// options or tasks is not completed here but refused (LoadDropped()), as a
// complete one is.
bool Deferred(const WorkFolder& folder, const Options& o, StageTask t) {
  Result<std::string> bytes = ReadWholeFile(folder.File(StageKind::kReport, t.task, "dropped"));
  if (!bytes.ok()) return false;
  Result<DroppedList> list = DecodeDroppedList(*bytes);
  if (!list.ok() || !list->deferred || list->fingerprint != DroppedFingerprint(o) || !list->clash.name.empty()) {
    return false;
  }
  Result<std::string> meta_bytes = ReadWholeFile(folder.File(StageKind::kSign, t.task, "meta"));
  if (!meta_bytes.ok()) return false;
  Result<ShardMeta> meta = DecodeShardMeta(*meta_bytes);
  return meta.ok() && meta->listing == list->listing;
}

// Writes the dropped lists complete when shard t's is deferred: one task
// at a time (an exclusive flock on report/.lists.lock), the first that
// finds it deferred; the others then find it complete.
Status UnderListsLock(const WorkFolder& folder, const std::function<Status()>& locked) {
  const std::string lock_path = folder.Dir(StageKind::kReport) + "/.lists.lock";
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IoError(ShellQuoted(lock_path) + ": cannot open: " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) return Status::IoError(ShellQuoted(lock_path) + ": cannot lock: " + std::strerror(errno));
  }
  return locked();
}

// The options of the report's work done again by a filter task.
Options ReportOptions(const Options& o) {
  Options report = o;
  report.kept_dir.clear();
  report.kept_copy = false;
  return report;
}

Status CompleteDeferredLists(const WorkFolder& folder, const Options& o, StageTask t, const RunContext& ctx) {
  if (!Deferred(folder, o, t)) return Status::Ok();
  return UnderListsLock(folder, [&] {
    if (!Deferred(folder, o, t)) return Status::Ok();
    return WriteDroppedListsNow(ReportOptions(o), folder.root(), ctx);
  });
}

// With --annotate-dir: writes the mark lists (with the dropped lists) when
// shard t's is missing or not of these options and sign tasks, one task
// at a time, the first that finds it so (stage_marks.h).
Status CompleteMarks(const WorkFolder& folder, const Options& o, StageTask t, const RunContext& ctx) {
  if (o.annotate_dir.empty()) return Status::Ok();
  const std::string meta_path = folder.File(StageKind::kSign, t.task, "meta");
  Result<std::string> meta_bytes = ReadWholeFile(meta_path);
  if (!meta_bytes.ok()) return meta_bytes.status();
  Result<ShardMeta> meta = DecodeShardMeta(*meta_bytes);
  if (!meta.ok()) return Damaged(meta_path, meta.status().message());
  if (MarksCurrent(folder, o, t, meta->listing)) return Status::Ok();
  // Only over a report of these options and sign tasks: else its list is
  // refused (LoadDropped()), never replaced with this task's options.
  Result<std::string> bytes = ReadWholeFile(folder.File(StageKind::kReport, t.task, "dropped"));
  if (!bytes.ok()) return Status::Ok();
  Result<DroppedList> list = DecodeDroppedList(*bytes);
  if (!list.ok() || list->fingerprint != DroppedFingerprint(o) || list->listing != meta->listing ||
      !list->clash.name.empty()) {
    return Status::Ok();
  }
  return UnderListsLock(folder, [&] {
    if (MarksCurrent(folder, o, t, meta->listing)) return Status::Ok();
    return WriteMarkListsNow(ReportOptions(o), folder.root(), ctx);
  });
}

// One folder a filter task writes, --kept-dir or (`annotate`)
// --annotate-dir, opened and claimed (ClaimDir()).
Result<KeptFolder> OpenClaimed(const WorkFolder& folder, const Options& o, bool annotate, const KeptSources& src) {
  const std::string& dir = annotate ? o.annotate_dir : o.kept_dir;
  const std::string flag = annotate ? "--annotate-dir" : "--kept-dir";
  Result<KeptFolder> opened = KeptFolder::Open(dir, flag);
  if (!opened.ok()) return opened.status();
  const std::string text =
      annotate ? "neardup annotate " + Hex(DroppedFingerprint(o)) + " " + Hex(Checksum64(o.annotate_prefix)) + "\n"
               : "neardup filter " + Hex(DroppedFingerprint(o)) + "\n";
  if (Status s = ClaimDir(folder, dir, flag, text, src, *opened); !s.ok()) return s;
  return opened;
}

// Writes the task's folders (--kept-dir, --annotate-dir) from its shard.
Result<FilterOutcome> WriteFolders(const Run& run, const WorkFolder& folder, ShardSources& shard,
                                   const std::vector<DocId>& dropped, const AnnotateMarks& marks) {
  const Options& o = run.options();
  std::optional<KeptFolder> kept;
  std::optional<KeptFolder> annotated;
  for (const bool annotate : {false, true}) {
    if ((annotate ? o.annotate_dir : o.kept_dir).empty()) continue;
    Result<KeptFolder> opened = OpenClaimed(folder, o, annotate, shard.sources);
    if (!opened.ok()) return opened.status();
    (annotate ? annotated : kept).emplace(std::move(*opened));
  }
  ProveUnchanged(run.fs(), &shard);
  FilterOutcome out;
  for (const bool annotate : {false, true}) {
    const std::optional<KeptFolder>& dir = annotate ? annotated : kept;
    if (!dir) continue;
    const double start = run.seconds();
    KeptWritten written =
        annotate ? WriteAnnotateDir(run, shard.sources, marks, *dir) : WriteKeptDir(run, shard.sources, dropped, *dir);
    if (run.Cancelled()) return Status::Cancelled("interrupted");
    if (Status s = RemoveChanged(*dir, shard.sources, written.changed); !s.ok()) return s;
    KeptStats& stats = annotate ? out.annotated : out.stats;
    stats = written.stats;
    stats.seconds = run.seconds() - start;
    for (Status& p : written.problems) out.problems.push_back(std::move(p));
  }
  return out;
}

}  // namespace

uint64_t DroppedFingerprint(const Options& o) {
  std::string bytes;
  PutFixed64(&bytes, BucketFingerprint(o));
  for (const double v : {o.threshold, o.exact_margin}) PutDouble(&bytes, v);
  for (const int v : {static_cast<int>(o.verify), static_cast<int>(o.keep), static_cast<int>(o.cluster_by)}) {
    PutFixed8(&bytes, static_cast<uint8_t>(v));
  }
  return Checksum64(bytes);
}

Result<FilterOutcome> RunFilterTask(const Options& o, const std::string& work, StageTask t, const RunContext& ctx) {
  if (Status s = CheckTaskIndex(t); !s.ok()) return s;
  if (o.kept_dir.empty() && o.annotate_dir.empty()) {
    return Status::InvalidArgument("stage filter needs --kept-dir DIR or --annotate-dir DIR, the folder it writes");
  }
  Result<std::unique_ptr<Run>> decided = Run::Decide(o, ctx);
  if (!decided.ok()) return decided.status();
  const Run& run = **decided;
  const WorkFolder folder(work);
  if (Status s = CheckShardParams(folder, o); !s.ok()) return s;
  Result<uint32_t> shards = folder.FinishedTasks(StageKind::kSign, SignFingerprint(o));
  if (!shards.ok()) return shards.status();
  if (*shards != t.tasks) {
    return Status::InvalidArgument(ShellQuoted(folder.Dir(StageKind::kSign)) + " holds " + std::to_string(*shards) +
                                   " shards: run " + std::to_string(*shards) + " filter tasks (--tasks " +
                                   std::to_string(*shards) + "), one per sign task");
  }
  if (Status s = CompleteMarks(folder, o, t, ctx); !s.ok()) return s;
  if (Status s = CompleteDeferredLists(folder, o, t, ctx); !s.ok()) return s;
  Result<ShardSources> shard = LoadShard(folder, o, t);
  if (!shard.ok()) return shard.status();
  Result<std::vector<DocId>> dropped = LoadDropped(folder, o, t, *shard);
  if (!dropped.ok()) return dropped.status();
  AnnotateMarks marks;
  const bool annotate = !o.annotate_dir.empty();
  if (annotate) {
    marks.files.resize(shard->sources.files.size());
    const ShardDocs docs{
        .docs = shard->sources.docs, .listing = shard->listing, .file_of = [](uint32_t f) { return int64_t{f}; }};
    if (Status s = AddShardMarks(folder, o, t, docs, &marks); !s.ok()) return s;
  }
  if (Status s = JoinSplitFiles(folder, o, t, &*shard, &*dropped, annotate ? &marks : nullptr); !s.ok()) return s;
  // The folders against the shard's inputs, as scan checks them against its PATHs.
  Options placed = o;
  placed.paths = shard->inputs;
  placed.listed_paths.clear();
  placed.against.clear();
  if (Status s = CheckKeptDirPlace(placed); !s.ok()) return s;
  return WriteFolders(run, folder, *shard, *dropped, marks);
}

Status RefuseNameClash(const NameClash& clash) {
  return Status::InvalidArgument(ShellQuoted(clash.first) + " and " + ShellQuoted(clash.second) + " both go to " +
                                 ShellQuoted(clash.name) +
                                 " below --kept-dir: the stage report refuses to let the filter tasks write either "
                                 "(nothing is written); sign again with PATHs whose files' paths below them differ "
                                 "(their common parent folder, for example)");
}

Status WriteDroppedLists(const WorkFolder& folder, const Options& o, const std::vector<ShardSpan>& shards,
                         const std::vector<uint64_t>& dropped, const NameClash& clash, bool deferred) {
  const std::string dir = folder.Dir(StageKind::kReport);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IoError(ShellQuoted(dir) + ": cannot create: " + ec.message());
  const uint64_t fingerprint = DroppedFingerprint(o);
  assert(!deferred || dropped.empty());
  // The last shard's first: a filter task that finds its own list complete
  // finds those of the later shards, whose split files it may write, complete too.
  size_t end = dropped.size();
  for (uint32_t s = static_cast<uint32_t>(shards.size()); s-- > 0;) {
    const ShardSpan& span = shards[s];
    DroppedList list{.task = {.task = s, .tasks = static_cast<uint32_t>(shards.size())},
                     .fingerprint = fingerprint,
                     .listing = span.listing,
                     .docs = span.docs,
                     .clash = clash,
                     .deferred = deferred,
                     .ids = {}};
    size_t begin = end;
    while (begin > 0 && ShardOf(dropped[begin - 1]) == s) --begin;
    for (size_t k = begin; k < end; ++k) {
      assert(LocalOf(dropped[k]) < span.docs);
      list.ids.push_back(LocalOf(dropped[k]));
    }
    end = begin;
    if (Status st = WriteAtomically(folder.File(StageKind::kReport, s, "dropped"), EncodeDroppedList(list)); !st.ok()) {
      return st;
    }
  }
  assert(end == 0);
  return Status::Ok();
}

}  // namespace neardup
