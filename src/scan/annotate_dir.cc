#include "scan/annotate_dir.h"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "base/parallel.h"
#include "neardup/quote.h"
#include "text/document_source.h"
#include "walk/output_file.h"
#include "walk/parquet_write.h"

namespace neardup {

namespace {

constexpr size_t kChunkBytes = size_t{1} << 20;

std::string Number(double x) {
  char buf[32];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

// Appends `s` as a JSON string (quoted; bytes >= 0x80 as they are).
void AppendJson(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  *out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      *out += '\\';
      *out += ch;
    } else if (c < 0x20) {
      *out += "\\u00";
      *out += kHex[c >> 4];
      *out += kHex[c & 15];
    } else {
      *out += ch;
    }
  }
  *out += '"';
}

// The top-level keys of the JSON object `line` (as written: escapes kept).
std::vector<std::string_view> TopLevelKeys(std::string_view line) {
  std::vector<std::string_view> keys;
  int depth = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (c != '"') continue;
    const size_t start = i + 1;
    for (++i; i < line.size() && line[i] != '"'; ++i) {
      if (line[i] == '\\') ++i;
    }
    if (i >= line.size()) break;
    size_t next = i + 1;
    while (next < line.size() && (line[next] == ' ' || line[next] == '\t')) ++next;
    if (depth == 1 && next < line.size() && line[next] == ':') keys.push_back(line.substr(start, i - start));
  }
  return keys;
}

struct Names {
  std::string quoted[4];  // "P+field" as JSON strings, in kMarkFields order
  std::string inside[4];  // the same without the quotes
};

Names NamesOf(const std::string& prefix) {
  Names n;
  for (size_t k = 0; k < 4; ++k) {
    AppendJson(prefix + kMarkFields[k], &n.quoted[k]);
    n.inside[k] = n.quoted[k].substr(1, n.quoted[k].size() - 2);
  }
  return n;
}

struct Context {
  const Run& run;
  const KeptSources& sources;
  const AnnotateMarks& marks;
  const Names& names;
};

// Copies a JSONL file's lines, each document's line with its fields added.
class LineMarker {
 public:
  LineMarker(const Context& ctx, const AnnotateMarks::File& file, const std::string& path, OutputFile& out)
      : ctx_(ctx), file_(file), path_(path), out_(out) {}

  Status Copy(ByteReader& in) {
    std::unique_ptr<char[]> buf(new char[kChunkBytes]);
    for (;;) {
      Result<size_t> got = in.Read(buf.get(), kChunkBytes);
      if (!got.ok())
        return Status::Changed(ShellQuoted(path_) + ": cannot be read again (" + got.status().message() + ")");
      if (*got == 0) break;
      if (ctx_.run.Cancelled()) return Status::Cancelled("interrupted");
      if (Status s = Feed(std::string_view(buf.get(), *got)); !s.ok()) return s;
    }
    if (in_doc_) return EndDoc("");
    return Status::Ok();
  }

 private:
  Status Feed(std::string_view chunk) {
    size_t p = 0;
    while (p < chunk.size()) {
      if (at_start_) {
        while (run_ < file_.docs.size() && file_.docs[run_].second < line_) ++run_;
        in_doc_ = run_ < file_.docs.size() && file_.docs[run_].first <= line_;
        at_start_ = false;
      }
      const char* nl = static_cast<const char*>(std::memchr(chunk.data() + p, '\n', chunk.size() - p));
      const size_t end = nl == nullptr ? chunk.size() : static_cast<size_t>(nl - chunk.data());
      if (in_doc_) {
        text_.append(chunk.substr(p, end - p));
      } else if (Status s = out_.Write(chunk.substr(p, end - p + (nl != nullptr ? 1 : 0))); !s.ok()) {
        return s;
      }
      p = end + (nl != nullptr ? 1 : 0);
      if (nl == nullptr) break;
      if (in_doc_) {
        if (Status s = EndDoc("\n"); !s.ok()) return s;
      }
      ++line_;
      at_start_ = true;
    }
    return Status::Ok();
  }

  // Writes the document's line in text_ with its fields, then `end`.
  Status EndDoc(std::string_view end) {
    in_doc_ = false;
    const std::string text = std::move(text_);
    text_.clear();
    std::string_view line(text);
    std::string_view cr;
    if (!line.empty() && line.back() == '\r') {
      cr = "\r";
      line.remove_suffix(1);
    }
    size_t close = line.find_last_not_of(" \t");
    if (close == std::string_view::npos || line[close] != '}') return Write({line, cr, end});
    for (const std::string_view key : TopLevelKeys(line)) {
      for (const std::string& name : ctx_.names.inside) {
        if (key == name) {
          return Status::InvalidArgument(ShellQuoted(path_) + ":" + std::to_string(line_) + ": has a field \"" + name +
                                         "\" already; give --annotate-prefix to name the added fields");
        }
      }
    }
    const size_t before = line.find_last_not_of(" \t\r\n", close == 0 ? 0 : close - 1);
    const bool empty = before != std::string_view::npos && line[before] == '{';
    fields_.clear();
    while (mark_ < file_.marks.size() && file_.marks[mark_].line < line_) ++mark_;
    AppendFields(mark_ < file_.marks.size() && file_.marks[mark_].line == line_ ? file_.marks[mark_] : LineMark{},
                 empty);
    return Write({line.substr(0, close), fields_, line.substr(close), cr, end});
  }

  void AppendFields(const LineMark& m, bool empty) {
    const Names& n = ctx_.names;
    fields_.append(empty ? "" : ",").append(n.quoted[0]).append(":");
    fields_.append(m.clustered ? std::to_string(m.cluster) : "null");
    fields_.append(",").append(n.quoted[1]).append(":");
    if (m.duplicate) {
      AppendJson(ctx_.marks.names[m.name], &fields_);
    } else {
      fields_.append("null");
    }
    fields_.append(",").append(n.quoted[2]).append(":").append(m.duplicate && m.scored ? Number(m.score) : "null");
    fields_.append(",").append(n.quoted[3]).append(":").append(m.kept ? "true" : "false");
  }

  Status Write(std::initializer_list<std::string_view> pieces) {
    return out_.Write(std::span<const std::string_view>(pieces.begin(), pieces.size()));
  }

  const Context& ctx_;
  const AnnotateMarks::File& file_;
  const std::string& path_;
  OutputFile& out_;
  size_t run_ = 0;
  size_t mark_ = 0;
  uint64_t line_ = 1;
  bool at_start_ = true;
  bool in_doc_ = false;
  std::string text_;
  std::string fields_;
};

unsigned ModeOf(const InputFile& file) {
  struct stat st {};
  return ::stat(file.path.c_str(), &st) == 0 ? st.st_mode & 0777 : 0644;
}

Status WriteJsonl(const Context& ctx, const KeptFolder& dir, uint32_t f) {
  const InputFile& file = ctx.sources.files[f];
  FileSystem& fs = ctx.run.fs();
  if (Status s = CheckUnchanged(fs, file); !s.ok()) return s;
  Result<std::unique_ptr<ByteReader>> in = OpenAgain(fs, file, nullptr, ctx.run.options());
  if (!in.ok()) {
    return Status::Changed(ShellQuoted(file.path) + ": cannot be read again (" + in.status().message() + ")");
  }
  Result<KeptPlace> place = dir.Place(ctx.sources.kept_paths[f], file.path);
  if (!place.ok()) return place.status();
  Result<std::unique_ptr<OutputFile>> out = OutputFile::Create(std::move(*place), 1, ModeOf(file));
  if (!out.ok()) return out.status();
  LineMarker marker(ctx, ctx.marks.files[f], file.path, **out);
  if (Status s = marker.Copy(**in); !s.ok()) return s;
  if (Status s = CheckUnchanged(fs, file); !s.ok()) return s;
  return (*out)->Commit();
}

Status WriteParquetFile(const Context& ctx, const KeptFolder& dir, uint32_t f) {
  const InputFile& file = ctx.sources.files[f];
  FileSystem& fs = ctx.run.fs();
  if (Status s = CheckUnchanged(fs, file); !s.ok()) return s;
  ParquetRewrite what;
  what.path = file.path;
  what.expected = file.identity;
  what.annotate = true;
  what.prefix = ctx.run.options().annotate_prefix;
  for (const LineMark& m : ctx.marks.files[f].marks) {
    if (!m.clustered) continue;
    what.marks.push_back({.row = m.line,
                          .cluster = m.cluster,
                          .duplicate_of = m.duplicate ? ctx.marks.names[m.name] : std::string(),
                          .score = m.score,
                          .scored = m.duplicate && m.scored,
                          .kept = m.kept});
  }
  Result<KeptPlace> place = dir.Place(ctx.sources.kept_paths[f], file.path);
  if (!place.ok()) return place.status();
  return WriteParquet(what, std::move(*place), ModeOf(file), [&] { return CheckUnchanged(fs, file); });
}

}  // namespace

void AnnotateMarks::AddLine(uint32_t f, uint64_t line) {
  File& file = files[f];
  ++file.documents;
  if (!file.docs.empty() && file.docs.back().second + 1 == line) {
    file.docs.back().second = line;
  } else {
    file.docs.push_back({line, line});
  }
}

AnnotateMarks DocumentLines(const KeptSources& sources) {
  AnnotateMarks marks;
  marks.files.resize(sources.files.size());
  for (const KeptSources::Doc& doc : sources.docs) {
    if (WritableKind(doc.kind) && doc.file < marks.files.size()) marks.AddLine(doc.file, doc.line);
  }
  return marks;
}

KeptWritten WriteAnnotateDir(const Run& run, const KeptSources& sources, const AnnotateMarks& marks,
                             const KeptFolder& dir) {
  const Options& o = run.options();
  KeptWritten out;
  out.stats.used = true;
  std::vector<uint32_t> jobs;
  std::set<std::string> targets;
  for (uint32_t f = 0; f < sources.files.size(); ++f) {
    const InputFile& file = sources.files[f];
    if (file.reference) continue;
    Status s = sources.unread[f] != 0 || file.identity.stream
                   ? Status::Changed(ShellQuoted(file.path) + ": could not be read whole; not written")
                   : CheckKeptPath(sources.kept_paths[f]);
    if (s.ok() && !targets.insert(sources.kept_paths[f]).second) {
      s = Status::InvalidArgument(ShellQuoted(file.path) + ": another input goes to the same place; not written");
    }
    if (!s.ok()) {
      if (s.code() == Status::Code::kChanged) out.changed.push_back(f);
      out.problems.push_back(std::move(s));
      continue;
    }
    jobs.push_back(f);
  }
  const Names names = NamesOf(o.annotate_prefix);
  const Context ctx{run, sources, marks, names};
  std::vector<Status> results(jobs.size());
  ParallelFor(run.workers(), jobs.size(), [&](int, size_t j) {
    const uint32_t f = jobs[j];
    results[j] = o.input == InputFormat::kParquet ? WriteParquetFile(ctx, dir, f) : WriteJsonl(ctx, dir, f);
  });
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (results[j].ok()) {
      ++out.stats.files;
      out.stats.documents += marks.files[jobs[j]].documents;
    } else {
      if (results[j].code() == Status::Code::kChanged) out.changed.push_back(jobs[j]);
      out.problems.push_back(std::move(results[j]));
    }
  }
  std::sort(out.changed.begin(), out.changed.end());
  out.stats.failed = out.problems.size();
  return out;
}

KeptWritten WriteAnnotateDir(const Run& run, const KeptSources& sources, const Report& report,
                             const std::vector<Cluster>& clusters, const std::vector<Removal>& removable,
                             const std::vector<DocId>& dropped) {
  Result<KeptFolder> dir = KeptFolder::Open(run.options().annotate_dir, "--annotate-dir");
  if (!dir.ok()) {  // no file is written
    KeptWritten out;
    out.stats.used = true;
    out.stats.dropped = dropped.size();
    out.problems.push_back(dir.status());
    for (const InputFile& file : sources.files) out.stats.failed += file.reference ? 0 : 1;
    return out;
  }
  AnnotateMarks marks = DocumentLines(sources);
  // Each document's mark, by DocId, then placed in its file (a file's
  // DocIds ascend with its lines).
  std::vector<std::pair<DocId, LineMark>> by_doc;
  for (const Cluster& c : clusters) {
    const bool has_duplicates = c.members.size() > 1;
    if (has_duplicates) marks.names.push_back(report.docs[c.keep].name);
    for (const DocId d : c.members) {
      if (d >= sources.docs.size()) continue;
      by_doc.push_back({d,
                        {.line = sources.docs[d].line,
                         .cluster = c.id,
                         .name = has_duplicates ? static_cast<uint32_t>(marks.names.size() - 1) : 0,
                         .score = 0,
                         .clustered = true,
                         .duplicate = d != c.keep,
                         .scored = false,
                         .kept = true}});
    }
  }
  std::sort(by_doc.begin(), by_doc.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  auto mark_of = [&](DocId d) -> LineMark* {
    auto it = std::lower_bound(by_doc.begin(), by_doc.end(), d, [](const auto& m, DocId x) { return m.first < x; });
    return it != by_doc.end() && it->first == d ? &it->second : nullptr;
  };
  for (const Removal& r : removable) {
    if (LineMark* m = mark_of(r.doc); m != nullptr) {
      m->score = r.jaccard >= 0 ? r.jaccard : r.estimate;
      m->scored = true;
    }
  }
  for (const DocId d : dropped) {
    if (LineMark* m = mark_of(d); m != nullptr) m->kept = false;
  }
  for (const auto& [d, m] : by_doc) {
    if (WritableKind(sources.docs[d].kind)) marks.files[sources.docs[d].file].marks.push_back(m);
  }
  KeptWritten out = WriteAnnotateDir(run, sources, marks, *dir);
  out.stats.dropped = dropped.size();
  return out;
}

}  // namespace neardup
