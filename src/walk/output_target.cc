// CheckOutputTarget (neardup/output_target.h): -o must never name an input, lie in a
// scanned folder or be the --index file. Paths are compared canonical (links
// resolved, `..` gone), so `docs/../docs/a.txt`, an absolute path or a link
// to a scanned folder are caught as well as the spelling given.

#include "neardup/output_target.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "neardup/quote.h"

namespace neardup {

namespace {

namespace fs = std::filesystem;

// `path` absolute, every link resolved as far as it exists (the rest kept as
// written, normalized); empty when that fails.
fs::path Resolved(const std::string& path) {
  std::error_code ec;
  fs::path out = fs::weakly_canonical(fs::path(path), ec);
  return ec ? fs::path() : out;
}

// Whether `file` lies below the folder `dir` (both canonical).
bool Below(const fs::path& file, const fs::path& dir) {
  const auto [d, f] = std::mismatch(dir.begin(), dir.end(), file.begin(), file.end());
  return d == dir.end() && f != file.end();
}

// The -o target refused for the input `input` (a PATH, listed or --against
// argument), or Ok.
Status AgainstInput(const std::string& output, const fs::path& target, const std::string& input) {
  const fs::path in = Resolved(input);
  if (in.empty()) return Status::Ok();  // a missing input is the walk's to report
  if (in == target) {
    return Status::InvalidArgument("-o " + ShellQuoted(output) + " is the input " + ShellQuoted(input) +
                                   ", which the output would replace; write it outside the scanned paths");
  }
  std::error_code ec;
  if (Below(target, in) && fs::is_directory(in, ec)) {
    return Status::InvalidArgument("-o " + ShellQuoted(output) + " is inside the scanned folder " + ShellQuoted(input) +
                                   ", where a scan would read it as a document; write it outside the scanned folders");
  }
  return Status::Ok();
}

}  // namespace

Status CheckOutputTarget(const Options& options, const std::string& output) {
  if (output.empty() || output == "-") return Status::Ok();
  const fs::path target = Resolved(output);
  if (target.empty()) return Status::Ok();  // Output::Open reports what is wrong with it
  std::error_code ec;
  const fs::file_status st = fs::status(target, ec);
  // A device, FIFO or socket is written in place and never read as a
  // document found in a folder; a directory is refused by the front end.
  if (fs::exists(st) && !fs::is_regular_file(st)) return Status::Ok();
  if (!options.kept_dir.empty()) {
    const fs::path kept = Resolved(options.kept_dir);
    if (kept == target || Below(target, kept)) {
      return Status::InvalidArgument("-o " + ShellQuoted(output) + " is inside --kept-dir " +
                                     ShellQuoted(options.kept_dir) +
                                     ", which holds only the kept documents; write it elsewhere");
    }
  }
  if (!options.annotate_dir.empty()) {
    const fs::path annotated = Resolved(options.annotate_dir);
    if (annotated == target || Below(target, annotated)) {
      return Status::InvalidArgument("-o " + ShellQuoted(output) + " is inside --annotate-dir " +
                                     ShellQuoted(options.annotate_dir) +
                                     ", which holds only the corpus; write it elsewhere");
    }
  }
  if (!options.index.empty() && Resolved(options.index) == target) {
    return Status::InvalidArgument("-o " + ShellQuoted(output) +
                                   " is the --index file, which the output would replace; "
                                   "write it to another file");
  }
  for (const std::vector<std::string>* list : {&options.paths, &options.listed_paths, &options.against}) {
    for (const std::string& input : *list) {
      if (Status s = AgainstInput(output, target, input); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

namespace {

// The --kept-dir `dir` (canonical `target`) refused for the input `input`, or Ok.
Status KeptAgainstInput(const std::string& flag, const std::string& dir, const fs::path& target,
                        const std::string& input) {
  struct stat st {};
  if (input == "-" || (::stat(input.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {
    return Status::InvalidArgument(flag + " cannot write what is read from the stream " + ShellQuoted(input) +
                                   ", which can be read once only; save it to a file and scan that");
  }
  const fs::path in = Resolved(input);
  if (in.empty()) return Status::Ok();  // a missing input is the walk's to report
  if (in == target || Below(target, in)) {
    return Status::InvalidArgument(flag + " " + ShellQuoted(dir) + " is inside the input " + ShellQuoted(input) +
                                   ", where the next scan would read it; write it outside the scanned paths");
  }
  if (Below(in, target)) {
    return Status::InvalidArgument(flag + " " + ShellQuoted(dir) + " holds the input " + ShellQuoted(input) +
                                   ", which its kept copy could replace; write it outside the scanned paths");
  }
  return Status::Ok();
}

// CheckKeptDirPlace() for `dir`, named `flag` in messages.
Status CheckDirPlace(const Options& options, const std::string& dir, const std::string& flag) {
  if (dir.empty()) return Status::Ok();
  // DIR is opened without following a link at it (kept_folder.h): refused now, before any work.
  std::string named = dir;
  while (named.size() > 1 && named.back() == '/') named.pop_back();
  struct stat link {};
  if (::lstat(named.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    return Status::InvalidArgument(flag + " " + ShellQuoted(dir) + " is a symbolic link; name the folder it points to");
  }
  const fs::path target = Resolved(dir);
  if (target.empty()) {
    return Status::InvalidArgument(flag + " " + ShellQuoted(dir) +
                                   ": cannot resolve the path; name a new or empty folder");
  }
  for (const std::vector<std::string>* list : {&options.paths, &options.listed_paths, &options.against}) {
    for (const std::string& input : *list) {
      if (Status s = KeptAgainstInput(flag, dir, target, input); !s.ok()) return s;
    }
  }
  if (!options.index.empty()) {
    const fs::path index = Resolved(options.index);
    if (index == target || Below(index, target)) {
      return Status::InvalidArgument(flag + " " + ShellQuoted(dir) + " would hold the --index file " +
                                     ShellQuoted(options.index) + "; keep the index outside the folder written");
    }
  }
  std::error_code ec;
  const fs::file_status st = fs::status(target, ec);
  if (fs::exists(st) && !fs::is_directory(st)) {
    return Status::InvalidArgument(flag + " " + ShellQuoted(dir) +
                                   " exists and is not a folder; name a new or empty folder");
  }
  return Status::Ok();
}

// CheckKeptDir() for `dir`, named `flag` in messages.
Status CheckDir(const Options& options, const std::string& dir, const std::string& flag) {
  if (Status s = CheckDirPlace(options, dir, flag); !s.ok() || dir.empty()) return s;
  const fs::path target = Resolved(dir);
  std::error_code ec;
  if (!fs::exists(target, ec)) return Status::Ok();
  if (!fs::is_empty(target, ec) || ec) {
    return Status::InvalidArgument(flag + " " + ShellQuoted(dir) +
                                   " is not empty; name a new or empty folder (or move its contents away first)");
  }
  return Status::Ok();
}

// --annotate-dir and --kept-dir, when both are given, are two separate folders.
Status CheckApart(const Options& options) {
  if (options.kept_dir.empty() || options.annotate_dir.empty()) return Status::Ok();
  const fs::path kept = Resolved(options.kept_dir);
  const fs::path annotated = Resolved(options.annotate_dir);
  if (kept == annotated || Below(kept, annotated) || Below(annotated, kept)) {
    return Status::InvalidArgument("--annotate-dir " + ShellQuoted(options.annotate_dir) + " and --kept-dir " +
                                   ShellQuoted(options.kept_dir) + " overlap; name two separate folders");
  }
  return Status::Ok();
}

}  // namespace

Status CheckKeptDirPlace(const Options& options) {
  if (Status s = CheckDirPlace(options, options.kept_dir, "--kept-dir"); !s.ok()) return s;
  if (Status s = CheckDirPlace(options, options.annotate_dir, "--annotate-dir"); !s.ok()) return s;
  return CheckApart(options);
}

Status CheckKeptDir(const Options& options) {
  if (Status s = CheckDir(options, options.kept_dir, "--kept-dir"); !s.ok()) return s;
  if (Status s = CheckDir(options, options.annotate_dir, "--annotate-dir"); !s.ok()) return s;
  return CheckApart(options);
}

}  // namespace neardup
