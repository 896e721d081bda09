#include "scan/kept_dir.h"

#include <sys/stat.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "base/hash.h"
#include "neardup/quote.h"
#include "sign/jsonl_doc_reader.h"
#include "text/document_source.h"
#include "walk/output_file.h"
#include "walk/parquet_write.h"

namespace neardup {

namespace {

constexpr size_t kChunkBytes = size_t{1} << 20;

// A dropped document of a JSONL file: its line and what it was when signed.
struct Drop {
  uint64_t line = 0;
  ContentHash content;
  uint32_t line_hash = 0;  // 0: not known, the content hash is checked
};

// One input file to write.
struct Job {
  uint32_t file = 0;
  std::string target;           // its kept path, below DIR
  std::span<const Drop> drops;  // JSONL: by line, ascending
  uint64_t documents = 0;       // documents of the file that are written
  bool may_link = false;        // text: not --kept-copy, and below an input once links are resolved
};

// The input (PATH, listed path or --against path) at position `root`.
const std::string* RootOf(const Options& o, uint32_t root) {
  for (const std::vector<std::string>* list : {&o.paths, &o.listed_paths, &o.against}) {
    if (root < list->size()) return &(*list)[root];
    root -= static_cast<uint32_t>(list->size());
  }
  return nullptr;
}

// `path` below the folder `root` as the walk joined them, or "".
std::string Below(const std::string& path, const std::string& root) {
  if (root.empty() || path.size() <= root.size() || path.compare(0, root.size(), root) != 0) return "";
  if (root.back() == '/') return path.substr(root.size());
  return path[root.size()] == '/' ? path.substr(root.size() + 1) : "";
}

// `rel` without empty and "." components; "" when one is "..".
std::string Clean(const std::string& rel) {
  std::string out;
  size_t start = 0;
  while (start <= rel.size()) {
    size_t end = rel.find('/', start);
    if (end == std::string::npos) end = rel.size();
    const std::string_view c = std::string_view(rel).substr(start, end - start);
    if (c == "..") return "";
    if (!c.empty() && c != ".") out.append(out.empty() ? "" : "/").append(c);
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string KeptPathOf(const Options& o, const InputFile& file) {
  std::string rel;
  if (const std::string* root = RootOf(o, file.root)) rel = Clean(Below(file.path, *root));
  for (const std::vector<std::string>* list : {&o.paths, &o.listed_paths}) {
    for (size_t k = 0; k < list->size() && rel.empty(); ++k) rel = Clean(Below(file.path, (*list)[k]));
  }
  if (rel.empty()) rel = std::filesystem::path(file.path).filename().string();
  return rel;
}

namespace {

bool Writable(DocKind kind) { return WritableKind(kind); }

// The JSONL lines of one file again, all but the dropped ones written to
// `out`; each dropped line checked against its content hash.
class LineFilter {
 public:
  LineFilter(const Run& run, std::span<const Drop> drops, OutputFile& out)
      : run_(run), options_(run.options()), parser_(run.options(), run.minhasher()), drops_(drops), out_(out) {}

  // OK when every line was read and every dropped line is as signed;
  // Changed "PATH:LINE: changed since it was signed" else; IoError (the
  // output's) on a failed write.
  Status Copy(ByteReader& in, const std::string& path) {
    std::unique_ptr<char[]> buf(new char[kChunkBytes]);
    for (;;) {
      Result<size_t> got = in.Read(buf.get(), kChunkBytes);
      if (!got.ok()) {
        return Status::Changed(ShellQuoted(path) + ": cannot be read again (" + got.status().message() + ")");
      }
      if (*got == 0) break;
      if (run_.Cancelled()) return Status::Cancelled("interrupted");
      spans_.clear();
      if (Status s = Feed(std::string_view(buf.get(), *got), path); !s.ok()) return s;
      // The kept spans point into the buffer: written before it is read into again.
      if (Status s = out_.Write(spans_); !s.ok()) return s;
    }
    if (dropping_) {  // a dropped last line without a newline
      if (Status s = EndDrop(path); !s.ok()) return s;
    }
    if (next_ < drops_.size()) {
      return Status::Changed(ShellQuoted(path) + ": changed since it was signed (a line is gone)");
    }
    return Status::Ok();
  }

 private:
  bool DropsAt(uint64_t line) const { return next_ < drops_.size() && drops_[next_].line == line; }

  Status Feed(std::string_view chunk, const std::string& path) {
    size_t p = 0;
    while (p < chunk.size()) {
      if (at_line_start_ && !dropping_ && DropsAt(line_)) dropping_ = true;
      if (dropping_) {
        const char* nl = static_cast<const char*>(std::memchr(chunk.data() + p, '\n', chunk.size() - p));
        const size_t end = nl == nullptr ? chunk.size() : static_cast<size_t>(nl - chunk.data()) + 1;
        // Enough to tell a line over --max-line (never a document) from one within it.
        const uint64_t cap = options_.max_line > UINT64_MAX - 2 ? UINT64_MAX : options_.max_line + 2;
        const uint64_t room = cap - std::min<uint64_t>(text_.size(), cap);
        text_.append(chunk.substr(p, static_cast<size_t>(std::min<uint64_t>(end - p, room))));
        p = end;
        at_line_start_ = nl != nullptr;
        if (nl != nullptr) {
          if (Status s = EndDrop(path); !s.ok()) return s;
          ++line_;
        }
        continue;
      }
      // Kept lines, up to the start of the next dropped one: one write.
      size_t stop = p;
      for (;;) {
        const char* nl = static_cast<const char*>(std::memchr(chunk.data() + stop, '\n', chunk.size() - stop));
        if (nl == nullptr) {
          stop = chunk.size();
          at_line_start_ = false;
          break;
        }
        stop = static_cast<size_t>(nl - chunk.data()) + 1;
        ++line_;
        at_line_start_ = true;
        if (DropsAt(line_) || stop == chunk.size()) break;
      }
      spans_.push_back(chunk.substr(p, stop - p));
      p = stop;
    }
    return Status::Ok();
  }

  // The dropped line in text_ must be the document signed there: its bytes
  // hash as they did, or (not known: from the index) its content hash.
  Status EndDrop(const std::string& path) {
    dropping_ = false;
    std::string_view line(text_);
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const Drop& want = drops_[next_++];
    const bool same =
        line.size() <= options_.max_line &&
        (want.line_hash != 0 ? LineHash(line.data(), line.size()) == want.line_hash : SameContent(line, want));
    text_.clear();
    if (!same) {
      return Status::Changed(ShellQuoted(path) + ":" + std::to_string(want.line) + ": changed since it was signed");
    }
    return Status::Ok();
  }

  bool SameContent(std::string_view line, const Drop& want) {
    bool has = false;
    DocumentSketch sk;
    if (!parser_.Parse(line, &doc_, &has).ok() || !has) return false;
    parser_.reader().ReadText(doc_.text, nullptr, nullptr, &sk);
    return sk.kind == DocumentSketch::Kind::kOk && sk.content == want.content;
  }

  const Run& run_;
  const Options& options_;
  JsonlDocReader parser_;
  std::span<const Drop> drops_;
  OutputFile& out_;
  size_t next_ = 0;    // the next dropped line, in drops_
  uint64_t line_ = 1;  // the line being read
  bool at_line_start_ = true;
  bool dropping_ = false;
  std::vector<std::string_view> spans_;  // kept bytes of the chunk being read, in order
  std::string text_;                     // the dropped line being read (at most max_line + 2 bytes)
  JsonlDoc doc_;
};

Status NotWritten(const Status& why, const std::string& dir) {
  return Status::Changed(why.message() + "; not written to " + ShellQuoted(dir));
}

// The permission bits of the input file (a file of the walk: a real path).
unsigned ModeOf(const InputFile& file) {
  struct stat st {};
  return ::stat(file.path.c_str(), &st) == 0 ? st.st_mode & 0777 : 0644;
}

// Writes one Parquet file of `job` without its dropped rows (parquet_write.h).
// What was signed is what is written: the file's stat key is checked before
// and after (the rows are not hashed again).
Status WriteParquetKept(const Run& run, const KeptFolder& dir, const InputFile& file, const Job& job) {
  if (Status s = CheckUnchanged(run.fs(), file); !s.ok()) return s;
  ParquetRewrite what;
  what.path = file.path;
  what.expected = file.identity;
  what.dropped.reserve(job.drops.size());
  for (const Drop& d : job.drops) what.dropped.push_back(d.line);
  Result<KeptPlace> place = dir.Place(job.target, file.path);
  if (!place.ok()) return place.status();
  return WriteParquet(what, std::move(*place), ModeOf(file), [&] { return CheckUnchanged(run.fs(), file); });
}

// Writes one JSONL file of `job` through a LineFilter.
Status WriteJsonl(const Run& run, const KeptFolder& dir, const InputFile& file, const Job& job, int zstd_threads) {
  if (Status s = CheckUnchanged(run.fs(), file); !s.ok()) return s;
  Result<std::unique_ptr<ByteReader>> in = OpenAgain(run.fs(), file, nullptr, run.options());
  if (!in.ok()) {
    return Status::Changed(ShellQuoted(file.path) + ": cannot be read again (" + in.status().message() + ")");
  }
  Result<KeptPlace> place = dir.Place(job.target, file.path);
  if (!place.ok()) return place.status();
  Result<std::unique_ptr<OutputFile>> out = OutputFile::Create(std::move(*place), zstd_threads, ModeOf(file));
  if (!out.ok()) return out.status();
  LineFilter filter(run, job.drops, **out);
  if (Status s = filter.Copy(**in, file.path); !s.ok()) return s;
  if (Status s = CheckUnchanged(run.fs(), file); !s.ok()) return s;
  return (*out)->Commit();
}

// Places one kept text file.
Status WriteText(const Run& run, const KeptFolder& dir, const InputFile& file, const Job& job) {
  if (Status s = CheckUnchanged(run.fs(), file); !s.ok()) return s;
  const PlacedFrom from{.size = file.size,
                        .mtime_ns = file.mtime_ns,
                        .ctime_ns = file.ctime_ns,
                        .dev = file.identity.dev,
                        .ino = file.identity.ino};
  Result<KeptPlace> place = dir.Place(job.target, file.path);
  if (!place.ok()) return place.status();
  return LinkOrCopy(file.path, from, std::move(*place), job.may_link);
}

// DIR/REL as messages show it.
std::string Shown(const std::string& dir, const std::string& rel) {
  return dir.empty() || dir.back() == '/' ? dir + rel : dir + "/" + rel;
}

// Whether a file lies below (or is) one of the inputs once symbolic links
// are resolved: a file reached through a link from outside them (-L) is
// copied, never linked. Folders are resolved once each.
class InsideInputs {
 public:
  explicit InsideInputs(const std::vector<std::string>& inputs) {
    for (const std::string& in : inputs) {
      std::error_code ec;
      std::filesystem::path p = std::filesystem::canonical(in, ec);
      if (!ec) roots_.push_back(std::move(p));
    }
  }
  bool Holds(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path real;
    const fs::path p(path);
    if (fs::is_symlink(fs::symlink_status(p, ec)) || !p.has_parent_path()) {
      real = fs::canonical(p, ec);
    } else {
      auto [at, added] = folders_.try_emplace(p.parent_path().string());
      if (added) at->second = fs::canonical(p.parent_path(), ec).string();
      if (at->second.empty()) return false;
      real = fs::path(at->second) / p.filename();
    }
    if (ec || real.empty()) return false;
    for (const fs::path& root : roots_) {
      const auto [r, f] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
      if (r == root.end()) return true;
    }
    return false;
  }

 private:
  std::vector<std::filesystem::path> roots_;
  std::map<std::string, std::string> folders_;  // folder as walked -> resolved ("" when not)
};

// The files to write, in file order, each with its dropped lines (views
// into *drops, filled here); a problem for each file left out.
std::vector<Job> Plan(const Options& o, const KeptSources& src, const std::vector<DocId>& dropped,
                      std::vector<Drop>* drops, KeptWritten* written) {
  const size_t n = src.files.size();
  std::vector<uint8_t> is_dropped(src.docs.size(), 0);
  for (DocId d : dropped) is_dropped[d] = 1;
  std::vector<uint64_t> documents(n, 0), writable(n, 0);
  std::vector<uint64_t> first(n, 0);  // per file, then the end: where its drops start
  first.push_back(0);
  for (size_t d = 0; d < src.docs.size(); ++d) {
    const KeptSources::Doc& doc = src.docs[d];
    if (is_dropped[d] != 0) {
      ++first[doc.file + 1];
    } else if (Writable(doc.kind)) {
      ++documents[doc.file];
    }
    if (Writable(doc.kind)) writable[doc.file] = 1;
  }
  for (size_t f = 0; f < src.kept_elsewhere.size() && f < n; ++f) documents[f] += src.kept_elsewhere[f];
  for (size_t f = 0; f < n; ++f) first[f + 1] += first[f];
  drops->assign(dropped.size(), Drop{});
  std::vector<uint64_t> at = first;  // the next free place of each file
  for (DocId d : dropped) {
    const KeptSources::Doc& doc = src.docs[d];
    (*drops)[at[doc.file]++] = {doc.line, doc.content, doc.line_hash};
  }
  std::vector<Job> jobs;
  std::set<std::string> targets;
  InsideInputs inside(src.inputs);
  for (uint32_t f = 0; f < n; ++f) {
    const InputFile& file = src.files[f];
    const bool jsonl = RowsAreDocuments(o.input);
    if (file.reference || (!jsonl && (writable[f] == 0 || first[f + 1] > first[f]))) continue;
    if (src.unread[f] != 0 || file.identity.stream) {
      written->problems.push_back(
          NotWritten(Status::Changed(ShellQuoted(file.path) + ": could not be read whole"), o.kept_dir));
      written->changed.push_back(f);
      continue;
    }
    Job job{.file = f, .target = src.kept_paths[f], .drops = {}, .documents = documents[f]};
    if (Status s = CheckKeptPath(job.target); !s.ok()) {
      written->problems.push_back(
          Status::InvalidArgument(ShellQuoted(file.path) + ": " + s.message() + "; not written"));
      continue;
    }
    if (!targets.insert(job.target).second) {
      written->problems.push_back(Status::InvalidArgument(
          ShellQuoted(file.path) + ": another input goes to " + ShellQuoted(Shown(o.kept_dir, job.target)) +
          "; not written (give PATHs whose files' names below them differ)"));
      continue;
    }
    job.may_link = !jsonl && !o.kept_copy && inside.Holds(file.path);
    job.drops = std::span<const Drop>(drops->data() + first[f], first[f + 1] - first[f]);
    jobs.push_back(std::move(job));
  }
  written->stats.dropped = dropped.size();
  return jobs;
}

}  // namespace

bool WritableKind(DocKind kind) {
  return kind == DocKind::kOk || kind == DocKind::kEmpty || kind == DocKind::kTooShort;
}

KeptSources KeptSourcesOf(std::vector<InputFile> files, const std::vector<DocRecord>& docs,
                          const std::vector<InputProblem>& problems, std::vector<std::string> kept_paths) {
  assert(kept_paths.size() == files.size());
  KeptSources out;
  out.files = std::move(files);
  out.kept_paths = std::move(kept_paths);
  out.docs.reserve(docs.size());
  for (const DocRecord& r : docs) {
    out.docs.push_back(
        {.line = r.line, .content = r.content, .line_hash = r.line_hash, .file = r.file, .kind = r.kind});
  }
  out.unread.assign(out.files.size(), 0);
  for (const InputProblem& p : problems) {
    const bool whole = p.kind == InputProblem::Kind::kUnreadable || p.kind == InputProblem::Kind::kTooLarge;
    if (whole && p.file < out.unread.size()) out.unread[p.file] = 1;
  }
  return out;
}

KeptSources KeptSourcesOf(const Options& options, const SignedCorpus& corpus) {
  std::vector<std::string> kept_paths;
  for (const InputFile& f : corpus.table.files) kept_paths.push_back(KeptPathOf(options, f));
  KeptSources out = KeptSourcesOf(corpus.table.files, corpus.table.docs, corpus.problems, std::move(kept_paths));
  out.inputs = options.paths;
  out.inputs.insert(out.inputs.end(), options.listed_paths.begin(), options.listed_paths.end());
  return out;
}

KeptWritten WriteKeptDir(const Run& run, const KeptSources& sources, const std::vector<DocId>& dropped) {
  Result<KeptFolder> dir = KeptFolder::Open(run.options().kept_dir);
  if (dir.ok()) return WriteKeptDir(run, sources, dropped, *dir);
  KeptWritten out;
  out.stats.used = true;
  std::vector<Drop> drops;
  const std::vector<Job> jobs = Plan(run.options(), sources, dropped, &drops, &out);
  out.problems.push_back(dir.status());
  out.stats.failed = jobs.size() + out.problems.size();
  return out;
}

KeptWritten WriteKeptDir(const Run& run, const KeptSources& sources, const std::vector<DocId>& dropped,
                         const KeptFolder& dir) {
  const Options& o = run.options();
  KeptWritten out;
  out.stats.used = true;
  std::vector<Drop> drops;
  const std::vector<Job> jobs = Plan(o, sources, dropped, &drops, &out);
  // Files in parallel; zstd's workers share what one file at a time leaves.
  const int threads = run.workers().threads;
  const size_t at_once = std::max<size_t>(1, std::min<size_t>(jobs.size(), static_cast<size_t>(threads)));
  const int zstd_threads = std::max(1, threads / static_cast<int>(at_once));
  std::vector<Status> results(jobs.size());
  ParallelFor(run.workers(), jobs.size(), [&](int, size_t j) {
    const InputFile& file = sources.files[jobs[j].file];
    if (o.input == InputFormat::kParquet) {
      results[j] = WriteParquetKept(run, dir, file, jobs[j]);
    } else {
      results[j] = RowsAreDocuments(o.input) ? WriteJsonl(run, dir, file, jobs[j], zstd_threads)
                                             : WriteText(run, dir, file, jobs[j]);
    }
  });
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (results[j].ok()) {
      ++out.stats.files;
      out.stats.documents += jobs[j].documents;
    } else {
      out.problems.push_back(results[j].code() == Status::Code::kChanged ? NotWritten(results[j], o.kept_dir)
                                                                         : results[j]);
      if (results[j].code() == Status::Code::kChanged) out.changed.push_back(jobs[j].file);
    }
  }
  out.stats.failed = out.problems.size();
  return out;
}

}  // namespace neardup
