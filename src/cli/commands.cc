#include "cli/commands.h"

#include <fcntl.h>
#include <limits.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "cli/completions.h"
#include "cli/man_page.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/signals.h"
#include "neardup/explain.h"
#include "neardup/index.h"
#include "neardup/quote.h"
#include "neardup/review.h"
#include "neardup/scan.h"
#include "neardup/writers.h"

namespace neardup::cli {

namespace {

// Longest path accepted in a list, in bytes (PATH_MAX counts the final NUL:
// no longer path can be opened).
constexpr size_t kMaxListedPath = PATH_MAX - 1;

// One list of paths being read: the entry being gathered and what ends it.
class PathListReader {
 public:
  // `name`: the list's name in errors; `out` must outlive the reader.
  PathListReader(std::string name, char sep, std::vector<std::string>* out)
      : name_(std::move(name)), sep_(sep), what_(sep == '\n' ? "line " : "entry "), out_(out) {}

  // Takes the bytes [p, end) of the list.
  Status Take(const char* p, const char* const end) {
    while (p < end) {
      const char* stop = static_cast<const char*>(std::memchr(p, sep_, static_cast<size_t>(end - p)));
      const char* const piece_end = stop != nullptr ? stop : end;
      // One byte more than the limit may be a CR before the newline.
      if (path_.size() + static_cast<size_t>(piece_end - p) > kMaxListedPath + 1) return TooLong();
      path_.append(p, piece_end);
      if (stop == nullptr) break;
      if (Status s = Finish(); !s.ok()) return s;
      p = stop + 1;
    }
    return Status::Ok();
  }

  // The end of the list: ends a last entry with no separator after it.
  Status End() { return path_.empty() ? Status::Ok() : Finish(); }

 private:
  Status TooLong() const {
    return Status::InvalidArgument(ShellQuoted(name_) + ": " + what_ + std::to_string(entry_) + " is longer than " +
                                   std::to_string(kMaxListedPath) + " bytes, not a path");
  }

  // Ends the current entry.
  Status Finish() {
    if (sep_ == '\n' && !path_.empty() && path_.back() == '\r') path_.pop_back();
    if (path_.size() > kMaxListedPath) return TooLong();
    if (!path_.empty()) {
      out_->push_back(std::move(path_));
    } else if (sep_ == '\0') {
      return Status::InvalidArgument(ShellQuoted(name_) + ": " + what_ + std::to_string(entry_) +
                                     " is an empty file name");
    }
    path_.clear();
    ++entry_;
    return Status::Ok();
  }

  const std::string name_;
  const char sep_;
  const std::string what_;
  std::vector<std::string>* const out_;
  std::string path_;
  uint64_t entry_ = 1;
};

// Reads a list of paths separated by `sep` from FILE or stdin ("-"), in
// blocks, so that memory is bounded by the paths kept: an entry longer than
// kMaxListedPath is an error (`--files-from /dev/zero` stops at once), as is
// an empty entry in a NUL-separated list (`--files0-from /dev/zero`; as du
// and wc do). Empty lines of a newline-separated list are skipped, and a
// line's final CR is dropped.
Status ReadPathList(const std::string& file, char sep, std::vector<std::string>* out) {
  const std::string name = file == "-" ? "stdin" : file;
  int fd = STDIN_FILENO;
  if (file != "-") {
    fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return Status::IoError(file + ": cannot open list of paths: " + std::strerror(errno));
  }
  struct FdCloser {
    int fd;
    ~FdCloser() {
      if (fd != STDIN_FILENO) ::close(fd);
    }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument(ShellQuoted(name) + ": is a directory, not a list of paths");
  }
  PathListReader reader(name, sep, out);
  char block[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, block, sizeof block);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IoError(ShellQuoted(name) + ": cannot read list of paths: " + std::strerror(errno));
    }
    if (n == 0) break;
    if (Status s = reader.Take(block, block + n); !s.ok()) return s;
  }
  return reader.End();
}

// The start of the process (static initialization runs before main).
const std::chrono::steady_clock::time_point kProcessStart = std::chrono::steady_clock::now();

double SecondsSinceStart() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - kProcessStart).count();
}

// The summary line without the index's counts and the time: what a kept
// result keeps of it (KeepResult).
std::string SummaryBody(const Report& r) {
  const Stats& s = r.stats;
  std::string line = Counted(s.documents, "document") + " (" + ShownSize(s.bytes) + "), " + std::to_string(s.empty) +
                     " empty, " + std::to_string(s.skipped()) + " skipped, " + std::to_string(s.unreadable) +
                     " unreadable";
  if (s.exact_duplicates > 0) line += ", " + Counted(s.exact_duplicates, "exact copy", "exact copies");
  if (s.malformed_lines > 0) line += ", " + Counted(s.malformed_lines, "malformed line");
  if (s.duplicate_ids > 0) line += ", " + std::to_string(s.duplicate_ids) + " with an id not unique";
  if (s.invalid_utf8 > 0) line += ", " + std::to_string(s.invalid_utf8) + " invalid UTF-8 replaced";
  if (s.transcoded > 0) line += ", " + std::to_string(s.transcoded) + " transcoded from UTF-16";
  line += "; " + Counted(s.candidates, "candidate pair") + ", ";
  if (r.params.mode == Mode::kPairs) {
    line += Counted(r.pairs.size(), "pair") + " reported";
  } else {
    line += Counted(r.clusters.size(), "cluster") + " of " + Counted(r.clustered(), "document") + ", " +
            std::to_string(r.removable.size()) + " removable (" + ShownSize(r.removable_bytes()) + ")";
  }
  if (r.kept.used) {
    line += "; kept: " + Counted(r.kept.files, "file") + ", " + Counted(r.kept.documents, "document") + " written, " +
            std::to_string(r.kept.dropped) + " left out";
    if (r.kept.failed > 0) line += ", " + Counted(r.kept.failed, "file") + " not written";
  }
  if (r.annotated.used) {
    line += "; annotated: " + Counted(r.annotated.files, "file") + ", " + Counted(r.annotated.documents, "document") +
            " written";
    if (r.annotated.failed > 0) line += ", " + Counted(r.annotated.failed, "file") + " not written";
  }
  return line;
}

// The summary line; `seconds`: the whole run's.
std::string Summary(const Report& r, double seconds) {
  std::string line;
  if (r.index.given_again) {
    line = r.index.given_again->summary + "; index: the output of a run over these " +
           Counted(r.index.listing.files, "file") + ", none changed since, given again";
  } else {
    line = SummaryBody(r);
    if (r.index.used) {
      line += "; index: " + std::to_string(r.index.reused) + " reused, " + std::to_string(r.index.signed_now) +
              " signed, " + std::to_string(r.index.removed) + " removed";
    }
  }
  char secs[32];
  std::snprintf(secs, sizeof secs, "; %.2f s", seconds);
  return line + secs;
}

std::string SkipDetail(const Stats& s) {
  std::string d;
  auto add = [&](uint64_t n, const char* what) {
    if (n == 0) return;
    if (!d.empty()) d += ", ";
    d += std::to_string(n) + " " + what;
  };
  add(s.hidden, "hidden");
  add(s.glob - std::min(s.glob, s.ignored), "excluded by --glob");
  add(s.ignored, "ignored (.ignore, .gitignore, --ignore-file)");
  add(s.too_large, "over --max-filesize");
  add(s.binary, "binary");
  add(s.too_short, "under --min-words");
  return d;
}

}  // namespace

Status ReadPathLists(const CliOptions& cli, std::vector<std::string>* out) {
  for (const auto& f : cli.files_from) {
    if (Status s = ReadPathList(f, '\n', out); !s.ok()) return s;
  }
  for (const auto& f : cli.files0_from) {
    if (Status s = ReadPathList(f, '\0', out); !s.ok()) return s;
  }
  return Status::Ok();
}

namespace {

// The kind of a problem with one line of a JSONL file: "PATH:LINE: missing
// key "text" (keys: ...)" is of kind `missing key "text"`; "" for a problem
// with no line number.
std::string LineProblemKind(const std::string& message) {
  for (size_t at = message.find(": "); at != std::string::npos; at = message.find(": ", at + 1)) {
    size_t digits = at;
    while (digits > 0 && message[digits - 1] >= '0' && message[digits - 1] <= '9') --digits;
    if (digits == at || digits == 0 || message[digits - 1] != ':') continue;
    const std::string rest = message.substr(at + 2);
    return rest.substr(0, rest.find(" ("));
  }
  return "";
}

// The problems as warnings. Below -v, at most kShownPerKind lines of one kind
// of JSONL line problem, then one line with the count of the others.
void LogProblems(const std::vector<Status>& problems, int verbosity) {
  constexpr uint64_t kShownPerKind = 5;
  std::vector<std::pair<std::string, uint64_t>> kinds;  // in order of first appearance
  for (const Status& p : problems) {
    const std::string kind = verbosity > 0 ? "" : LineProblemKind(p.message());
    if (!kind.empty()) {
      auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == kind; });
      if (it == kinds.end()) it = kinds.insert(kinds.end(), {kind, 0});
      if (++it->second > kShownPerKind) continue;
    }
    spdlog::warn("{}", p.message());
  }
  for (const auto& [kind, count] : kinds) {
    if (count <= kShownPerKind) continue;
    const uint64_t more = count - kShownPerKind;
    spdlog::warn("{} more {} with: {} (-v lists them all)", more, more == 1 ? "line" : "lines", kind);
  }
}

// The problems and notices of a run as warnings; its parameters at -v.
void LogWhatTheRunMet(const Report& report, int verbosity) {
  LogProblems(report.problems, verbosity);
  for (const std::string& s : report.skipped) spdlog::info("skipped {}", s);
  for (const std::string& n : report.notices) spdlog::warn("{}", n);
  if (report.stats.special > 0) {
    spdlog::info("{} (fifos, sockets, devices) found while walking {} not read",
                 Counted(report.stats.special, "special file"), report.stats.special == 1 ? "was" : "were");
  }
  if (report.kept.used) spdlog::info("--kept-dir written in {:.3f} s", report.kept.seconds);
  const Params& pa = report.params;
  spdlog::info("{} {}-shingles, {} permutations, {} bands x {} rows, threshold {}, verify {}, seed {}",
               ToString(pa.shingle), pa.ngram, pa.num_perm, pa.bands, pa.rows, pa.threshold, ToString(pa.verify),
               pa.seed);
  if (report.stats.reread > 0) spdlog::info("{} read again to verify", Counted(report.stats.reread, "document"));
  if (report.index.bitmaps_read > 0) {
    spdlog::info("{} of reused documents read from the index", Counted(report.index.bitmaps_read, "bitmap"));
  }
}

// A document asked for and not read (an unreadable file, a malformed JSONL
// line, an id that is not unique) or a --kept-dir or --annotate-dir file not written is an error, after everything else
// was written; else 0 when something was reported, 1 when nothing was.
ExitCode ExitCodeOf(const Report& report) {
  if (report.index.given_again) return report.index.given_again->exit_code == 0 ? ExitCode::kFound : ExitCode::kNothing;
  const bool lost = report.stats.unreadable > 0 || report.stats.malformed_lines > 0 || report.stats.duplicate_ids > 0 ||
                    report.kept.failed > 0 || report.annotated.failed > 0;
  const bool any = report.params.mode == Mode::kPairs ? !report.pairs.empty() : !report.clusters.empty();
  return lost ? ExitCode::kError : any ? ExitCode::kFound : ExitCode::kNothing;
}

// At -q, where warnings are not shown: the one line that says why the run
// exits 2 (ExitCodeOf), its first problem and how many others there are.
std::string QuietReason(const Report& report) {
  if (report.problems.empty()) return Summary(report, SecondsSinceStart());
  std::string line = report.problems.front().message();
  const size_t more = report.problems.size() - 1;
  if (more > 0) line += " (and " + Counted(more, "more problem") + ": drop -q to see them)";
  return line;
}

// With --index: records the run's exit in the index, and whether its whole
// output was delivered, that is written whole into a regular file, or empty
// of pairs and clusters (which clears the pending marks of what a run of the
// index's --new job covered).
// A run that delivered ends here, with its exit status, signals blocked from
// before the record: a terminating signal arriving meanwhile dies with the
// process, so that no exit status says "failed" (128 + N) of an output the
// index counts as delivered.
void RecordExit(const Options& options, const Report& report, ExitCode code, bool delivered) {
  if (!report.index.used) return;
  std::optional<SignalBlocker> quiet;
  if (delivered) quiet.emplace();
  if (Status s =
          RecordRunExit(options.index, report.index.run, static_cast<int>(code), delivered, report.index.new_job);
      !s.ok()) {
    spdlog::warn("{}", s.message());
  }
  if (delivered) std::exit(static_cast<int>(code));
}

}  // namespace

namespace {

// Writes the report to `out` in cli.format (the review page for html) and
// commits it. The first failure: the pairs' own, the commit's, or, with
// --new, a stdout closed before the whole output was written.
Status WriteOutput(const CliOptions& cli, const Options& options, const Report& report, Output& out,
                   ProgressLine* progress) {
  if (report.index.given_again) {
    const std::string& bytes = report.index.given_again->output;
    out.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return out.Commit();
  }
  if (progress != nullptr) {
    progress->Show(cli.format == OutputFormat::kHtml ? "writing the review page (reading the documents shown again)"
                                                     : "writing the output");
  }
  if (cli.format == OutputFormat::kHtml) {
    // The review page reads the documents shown again, for their word diffs.
    const auto shown = [progress](uint64_t done, uint64_t total) {
      if (progress == nullptr) return;
      progress->Tick("writing the review page, " + std::to_string(done) + "/" + Counted(total, "group") +
                     " read again (" + std::to_string(done * 100 / std::max<uint64_t>(total, 1)) + "%)");
    };
    // Each batch of groups rendered as it comes: the review is never held whole.
    HtmlReview page(report, options.threads);
    Status rendered = Status::Ok();
    const Review facts = BuildReviewInBatches(
        report, options, kDefaultMaxWords,
        [&page, &rendered](std::vector<ReviewGroup>& batch) {
          if (rendered.ok()) rendered = page.Add(batch);
        },
        shown);
    if (rendered.ok()) rendered = page.Write(facts, out.stream());
    if (!rendered.ok()) {
      if (progress != nullptr) progress->Clear();
      return rendered;  // the output is not committed: nothing is written half
    }
  } else {
    if (progress != nullptr) {
      out.set_on_written([progress](uint64_t bytes) { progress->Tick("writing the output, " + ShownSize(bytes)); });
    }
    WriteReport(report, cli.format, out.stream(), cli.terminator);
  }
  Status written = report.pairs.status();
  if (Status s = out.Commit(); written.ok()) written = s;
  out.set_on_written(nullptr);
  if (progress != nullptr) progress->Clear();
  if (written.ok() && out.closed() && options.new_only) {
    // --new: what the reader did not take is reported again by the next run.
    written =
        Status::IoError("stdout: closed before the whole output was written (" + std::string(std::strerror(EPIPE)) +
                        "); the next --new run reports these documents again");
  }
  return written;
}

// --index: an output is delivered once it lies whole in a regular file;
// one sent to a pipe, a terminal or a device is not (docs/index.md),
// unless it reports nothing: then no reader can miss anything. False
// without --index or after a failed write; an error when `out` cannot say
// what it wrote to.
Result<bool> Delivered(const Report& report, Output& out) {
  if (!report.index.used || out.closed()) return false;
  const bool nothing = report.index.given_again             ? report.index.given_again->exit_code == 1
                       : report.params.mode == Mode::kPairs ? report.pairs.empty()
                                                            : report.clusters.empty();
  Result<bool> file = out.InRegularFile();
  if (!file.ok()) return file.status();
  return *file || nothing;
}

// The summary line on stderr (unless -q), then the --new warnings: a run
// that is not the index's --new job, or an output not delivered.
void LogSummary(const CliOptions& cli, const Options& options, const Report& report, bool delivered) {
  if (cli.verbosity >= 0) {
    std::string line = "neardup: " + Summary(report, SecondsSinceStart());
    const std::string detail = SkipDetail(report.stats);
    if (!detail.empty()) line += " (skipped: " + detail + ")";
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  if (!report.index.other_job.empty()) {
    spdlog::warn(
        "--new: this run's paths or options are not those of the index's --new runs ({}): it leaves the "
        "pending marks to them; give it its own --index FILE",
        report.index.other_job);
  } else if (options.new_only && options.against.empty() && !delivered) {
    spdlog::warn(
        "--new: the output went to a pipe, a terminal or a device, not to a regular file: no one can say "
        "it was read, so the next --new run reports these documents again (give -o FILE, or redirect "
        "stdout to a file, to deliver them)");
  }
}

// With `key` (ResultKeyOf): keeps the output of a run that had no problem
// and wrote it whole, so that a run with the same key over the same
// unchanged files gives it again (index.h). A failure is a warning.
void KeepOutput(const std::string& key, const Options& options, const Report& report, const Output& out,
                ExitCode code) {
  if (key.empty() || report.index.given_again || !report.index.used || !report.problems.empty() ||
      !report.notices.empty() || out.closed() || (code != ExitCode::kFound && code != ExitCode::kNothing)) {
    return;
  }
  const std::string* bytes = out.captured();
  if (bytes == nullptr) return;  // more than kMaxKeptOutputBytes
  const StoredResult kept{.listing = report.index.listing,
                          .started_ns = report.index.started_ns,
                          .exit_code = code == ExitCode::kFound ? 0 : 1,
                          .summary = SummaryBody(report),
                          .output = *bytes};
  if (Status s = KeepResult(options.index, key, kept); !s.ok()) spdlog::warn("{}", s.message());
}

}  // namespace

ExitCode WriteResults(const CliOptions& cli, const Options& options, const Result<Report>& result, Output& out,
                      ProgressLine* progress, const std::string& result_key) {
  if (!result.ok()) {
    spdlog::error("{}", result.status().message());
    return ExitCode::kError;
  }
  const Report& report = *result;
  LogWhatTheRunMet(report, cli.verbosity);

  Status written = WriteOutput(cli, options, report, out, progress);
  bool delivered = false;
  if (written.ok()) {
    Result<bool> d = Delivered(report, out);
    if (d.ok()) {
      delivered = *d;
    } else {
      written = d.status();
    }
  }
  if (!written.ok()) {
    spdlog::error("{}", written.message());
    RecordExit(options, report, ExitCode::kError, /*delivered=*/false);
    return ExitCode::kError;
  }
  LogSummary(cli, options, report, delivered);
  const ExitCode code = ExitCodeOf(report);
  KeepOutput(result_key, options, report, out, code);
  if (code == ExitCode::kError && cli.verbosity < 0) spdlog::error("{}", QuietReason(report));
  RecordExit(options, report, code, delivered);
  return code;
}

ExitCode RunIndexInfo(const std::string& file, std::ostream& out) {
  Result<IndexInfo> info = ReadIndexInfo(file, 10);
  if (!info.ok()) {
    spdlog::error("{}", info.status().message());
    return ExitCode::kError;
  }
  out << "index " << file << " (schema " << info->schema_version << ")\n";
  for (const auto& [name, value] : info->params) out << "  " << name << " " << value << "\n";
  out << "  files " << info->files << ", documents " << info->documents << ", " << info->file_bytes << " bytes";
  if (info->documents > 0) out << " (" << info->file_bytes / info->documents << " per document)";
  out << "\n  --new: " << Counted(info->pending, "file") << " pending; marks are cleared only by a --new run over "
      << (info->new_job.description.empty() ? "the paths and options of the first one to deliver"
                                            : info->new_job.description + " (and the same other options)")
      << " that reported nothing, or whose output went whole into a regular file (-o FILE, or stdout redirected to "
         "one), not into a pipe or a terminal";
  out << "\nlast runs (newest first):\n";
  for (const IndexRun& r : info->runs) {
    out << "  #" << r.id << " " << r.started << " .. " << (r.ended.empty() ? "(did not finish)" : r.ended) << ": "
        << Counted(r.documents, "document") << ", " << r.reused << " reused, " << r.signed_now << " signed, "
        << r.removed << " removed, exit " << (r.exit_status < 0 ? std::string("?") : std::to_string(r.exit_status))
        << (r.delivered == 1   ? ", delivered"
            : r.delivered == 0 ? ", not delivered"
                               : ", delivery unknown")
        << "; " << r.options << "\n";
  }
  return ExitCode::kFound;
}

ExitCode RunIndexCheck(const std::string& file, std::ostream& out) {
  Result<std::vector<std::string>> problems = CheckIndex(file);
  if (!problems.ok()) {
    spdlog::error("{}", problems.status().message());
    return ExitCode::kError;
  }
  for (const std::string& p : *problems) spdlog::error("{}: {}", ShellQuoted(file), p);
  if (!problems->empty()) return ExitCode::kError;
  out << file << ": ok\n";
  return ExitCode::kFound;
}

ExitCode RunScan(const CliOptions& cli) {
  // Check and open the output first: a bad -o path fails before the work,
  // not after, and -o never names an input. (Reading the path lists is part
  // of the work: it may wait on stdin; the listed paths are checked after.)
  if (Status s = CheckOutputTarget(cli.scan, cli.output); !s.ok()) {
    spdlog::error("{}", s.message());
    return ExitCode::kError;
  }
  Result<std::unique_ptr<Output>> out = Output::Open(cli.output);
  if (!out.ok()) {
    spdlog::error("{}", out.status().message());
    return ExitCode::kError;
  }

  Options options = cli.scan;
  Status listed = ReadPathLists(cli, &options.listed_paths);
  if (listed.ok()) listed = CheckOutputTarget(options, cli.output);
  if (!listed.ok()) {
    spdlog::error("{}", listed.message());
    return ExitCode::kError;
  }

  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  ProgressLine progress(cli.progress.value_or(terminal), terminal);
  RunContext ctx;
  // With --index, the output is kept under this key (index.h), and given
  // again by a run with the same key over the same unchanged files.
  // Not -f json nor the review page: they carry the run's own counts (the
  // index's reused and signed, the files skipped).
  if (cli.format != OutputFormat::kJson && cli.format != OutputFormat::kHtml) {
    ctx.result_key = ResultKeyOf(options, std::string("-f ") + NameOf(cli.format) + " terminator " +
                                              std::to_string(static_cast<int>(cli.terminator)));
  }
  if (!ctx.result_key.empty()) (*out)->Capture(kMaxKeptOutputBytes);
  Stage last_stage = Stage::kWalking;
  ctx.progress = [&progress, &last_stage](const Progress& p) {
    if (p.stage != last_stage) {
      progress.Clear();
      spdlog::debug("{} after {:.2f} s ({} documents, {} bytes read)", ToString(p.stage), p.seconds, p.documents,
                    p.bytes);
      last_stage = p.stage;
    }
    progress.Update(p);
  };
  Result<Report> result = FindDuplicates(options, ctx);
  progress.Clear();
  return WriteResults(cli, options, result, **out, &progress, ctx.result_key);
}

namespace {

// params --contains: the strata, their bandings and the probability at each ratio.
void WriteContainmentParams(const ParamsExplanation& e, double max_ratio, std::ostream& out) {
  char line[200];
  std::snprintf(line, sizeof line,
                "containment C(A, B) = |A & B| / |A| >= %.4g, num_perm %d, size ratios |B|/|A| up to %.4g\n",
                e.threshold, e.num_perm, max_ratio);
  out << line
      << "documents grouped by distinct shingles into strata [2^(k/2), 2^((k+1)/2)); C >= t iff J >= t/(1+ratio-t)\n\n"
         "  strata apart  ratios         least J  bands x rows\n";
  for (const StrataParams& s : e.strata) {
    std::snprintf(line, sizeof line, "  %12d  %5.4g to %-5.4g  %.4f  %d x %d\n", s.distance, s.min_ratio, s.max_ratio,
                  s.jaccard, s.banding.bands, s.banding.rows);
    out << line;
  }
  out << "\n  ratio  P(candidate) contained at C = t\n";
  for (const RatioPoint& point : e.ratio_curve) {
    std::snprintf(line, sizeof line, "  %5.4g  %.4f%s\n", point.ratio, point.probability,
                  point.ratio > max_ratio ? "  (beyond the cap: out of reach)" : "");
    out << line;
  }
}

}  // namespace

ExitCode RunParams(const Options& options, std::ostream& out) {
  const ParamsExplanation e = ExplainParams(options);
  if (options.contains) {
    WriteContainmentParams(e, options.max_ratio, out);
    return ExitCode::kFound;
  }
  const Banding& b = e.banding;
  char line[160];
  std::snprintf(line, sizeof line, "threshold %.4g, num_perm %d: bands %d x rows %d (%d of %d permutations in LSH)\n",
                e.threshold, e.num_perm, b.bands, b.rows, b.bands * b.rows, e.num_perm);
  out << line;
  std::snprintf(line, sizeof line, "approximate LSH threshold (1/b)^(1/r) = %.4f\n", e.approximate_threshold);
  out << line << "\n  similarity  P(candidate) = 1-(1-s^r)^b\n";
  for (const CurvePoint& point : e.curve) {
    std::snprintf(line, sizeof line, "  %10.1f  %.4f\n", point.similarity, point.probability);
    out << line;
  }
  const double p = e.threshold_probability;
  std::snprintf(line, sizeof line,
                "\nat the threshold s = %.4g: %.4f of the pairs become candidates; %.2f%% are missed\n", e.threshold, p,
                (1.0 - p) * 100.0);
  out << line;
  return ExitCode::kFound;
}

ExitCode RunCompletions(const std::string& shell, std::ostream& out) {
  out << CompletionScript(shell);
  return ExitCode::kFound;
}

ExitCode RunManPage(std::ostream& out) {
  out << ManPage();
  return ExitCode::kFound;
}

}  // namespace neardup::cli
