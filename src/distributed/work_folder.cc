#include "distributed/work_folder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "base/hash.h"
#include "neardup/quote.h"

namespace neardup {

namespace {

// What a marker's fingerprint stands for, as its messages name it.
constexpr const char* kOptionsKinds =
    "signature, banding, mode, relation (--relation, --max-ratio, --min-contained, --min-jaccard, --min-ratio), or "
    "what a document is: --input, --min-words, --max-filesize, --text-key, --id-key, --max-line";

namespace fs = std::filesystem;

std::string Errno(const std::string& path, const char* what) {
  return ShellQuoted(path).append(": ").append(what).append(": ").append(std::strerror(errno));
}

// The text a marker's CHECK covers: "neardup KIND I N FINGERPRINT".
std::string MarkerBody(StageKind kind, StageTask t, uint64_t fingerprint) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fingerprint));
  return std::string("neardup ")
      .append(ToString(kind))
      .append(" ")
      .append(std::to_string(t.task))
      .append(" ")
      .append(std::to_string(t.tasks))
      .append(" ")
      .append(hex);
}

// The task number of a marker's file name "I.done", or nothing.
std::optional<uint64_t> TaskOfName(const std::string& name) {
  const std::string stem = name.substr(0, name.size() - 5);
  if (stem.empty() || stem.size() > 8 || (stem.size() > 1 && stem[0] == '0')) return std::nullopt;
  uint64_t task = 0;
  for (const char c : stem) {
    if (c < '0' || c > '9') return std::nullopt;
    task = task * 10 + static_cast<uint64_t>(c - '0');
  }
  return task;
}

// The marker at `path` (named "I.done"), checked whole and against its name.
Result<Marker> ReadMarker(const std::string& path, const std::string& name, StageKind kind) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  Result<Marker> m = ParseMarker(*text, kind);
  if (!m.ok()) return Damaged(path, m.status().message());
  if (TaskOfName(name) != std::optional<uint64_t>(m->task.task)) return Damaged(path, "another task's marker");
  return m;
}

// Ok when `done` holds every task below `tasks`; else InvalidArgument
// "DIR: N of M KIND tasks missing: 1, 4" (the first kListedTasks, then
// "... and K more").
Status NoneMissing(const std::string& dir, StageKind kind, const std::map<uint64_t, Marker>& done, uint64_t tasks) {
  std::string missing;
  uint64_t n_missing = 0;
  for (uint64_t t = 0; t < tasks; ++t) {
    if (done.count(t) != 0) continue;
    if (++n_missing <= kListedTasks) missing.append(missing.empty() ? "" : ", ").append(std::to_string(t));
  }
  if (n_missing > kListedTasks)
    missing.append(", ... and ").append(std::to_string(n_missing - kListedTasks)).append(" more");
  if (n_missing == 0) return Status::Ok();
  return Status::InvalidArgument(ShellQuoted(dir)
                                     .append(": ")
                                     .append(std::to_string(n_missing))
                                     .append(" of ")
                                     .append(std::to_string(tasks))
                                     .append(" ")
                                     .append(ToString(kind))
                                     .append(" tasks missing: ")
                                     .append(missing));
}

}  // namespace

Status Damaged(std::string_view path, std::string_view what) {
  return Status::Corrupt(ShellQuoted(path).append(": ").append(what).append(": run again in an empty work folder"));
}

Result<Marker> ParseMarker(std::string_view text, StageKind kind) {
  const Status bad = Status::Corrupt("not a completion marker");
  if (text.size() > 128) return bad;
  const std::string copy(text);
  char stage[16] = {};
  unsigned long long task = 0, tasks = 0, fp = 0;
  if (std::sscanf(copy.c_str(), "neardup %15s %llu %llu %llx", stage, &task, &tasks, &fp) != 4) return bad;
  if (std::string_view(stage) != ToString(kind) || tasks == 0 || tasks > kMaxTasks || task >= tasks) return bad;
  const Marker m{.kind = kind,
                 .task = {.task = static_cast<uint32_t>(task), .tasks = static_cast<uint32_t>(tasks)},
                 .fingerprint = fp};
  // Canonical and whole: the checksum right, no sign, no leading zeros, nothing after.
  if (text != WorkFolder::MarkerText(kind, m.task, fp)) return bad;
  return m;
}

const char* ToString(StageKind kind) {
  switch (kind) {
    case StageKind::kSign:
      return "sign";
    case StageKind::kBucket:
      return "bucket";
    case StageKind::kVerify:
      return "verify";
    case StageKind::kReport:
      return "report";
    case StageKind::kFilter:
      return "filter";
  }
  return "?";
}

std::string WorkFolder::Dir(StageKind kind) const { return std::string(root_).append("/").append(ToString(kind)); }

std::string WorkFolder::File(StageKind kind, uint32_t task, std::string_view suffix) const {
  return Dir(kind).append("/").append(std::to_string(task)).append(".").append(suffix);
}

Status WorkFolder::Create() const {
  for (StageKind kind : {StageKind::kSign, StageKind::kBucket, StageKind::kVerify}) {
    std::error_code ec;
    fs::create_directories(Dir(kind), ec);
    if (ec) return Status::IoError(ShellQuoted(Dir(kind)).append(": cannot create: ").append(ec.message()));
  }
  return Status::Ok();
}

std::string WorkFolder::MarkerText(StageKind kind, StageTask t, uint64_t fingerprint) {
  std::string body = MarkerBody(kind, t, fingerprint);
  char check[18];
  std::snprintf(check, sizeof check, " %016llx",
                static_cast<unsigned long long>(HashBytes(body.data(), body.size(), 0)));
  return body.append(check).append("\n");
}

Result<bool> WorkFolder::Done(StageKind kind, StageTask t, uint64_t fingerprint) const {
  const std::string path = File(kind, t.task, "done");
  std::error_code ec;
  if (!fs::exists(path, ec)) return false;
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  if (*text == MarkerText(kind, t, fingerprint)) return true;
  Result<Marker> m = ParseMarker(*text, kind);
  if (!m.ok() || m->task.task != t.task) return Damaged(path, m.ok() ? "another task's marker" : m.status().message());
  if (m->task.tasks != t.tasks) {
    return Status::InvalidArgument(ShellQuoted(path)
                                       .append(": made by a run of ")
                                       .append(std::to_string(m->task.tasks))
                                       .append(" ")
                                       .append(ToString(kind))
                                       .append(m->task.tasks == 1 ? " task, not " : " tasks, not ")
                                       .append(std::to_string(t.tasks))
                                       .append(": use an empty work folder"));
  }
  return Status::InvalidArgument(ShellQuoted(path).append(
      std::string(": made with other options (").append(kOptionsKinds).append("): use an empty work folder")));
}

Status WorkFolder::SameRun(StageKind kind, StageTask t, uint64_t fingerprint) const {
  std::error_code ec;
  for (fs::directory_iterator it(Dir(kind), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.ends_with(".done") || name.starts_with(".")) continue;
    Result<Marker> m = ReadMarker(it->path().string(), name, kind);
    if (!m.ok()) return m.status();
    if (m->task.tasks != t.tasks) {
      return Status::InvalidArgument(ShellQuoted(it->path().string())
                                         .append(": made by a run of ")
                                         .append(std::to_string(m->task.tasks))
                                         .append(m->task.tasks == 1 ? " task, not " : " tasks, not ")
                                         .append(std::to_string(t.tasks))
                                         .append(": use an empty work folder"));
    }
    if (m->fingerprint != fingerprint) {
      return Status::InvalidArgument(ShellQuoted(it->path().string())
                                         .append(std::string(": made with other options (")
                                                     .append(kOptionsKinds)
                                                     .append("): use an empty work folder")));
    }
  }
  return Status::Ok();
}

std::vector<uint32_t> WorkFolder::Marked(StageKind kind) const {
  std::vector<uint32_t> tasks;
  std::error_code ec;
  for (fs::directory_iterator it(Dir(kind), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.ends_with(".done")) continue;
    const std::optional<uint64_t> task = TaskOfName(name);
    if (task && *task < kMaxTasks) tasks.push_back(static_cast<uint32_t>(*task));
  }
  std::sort(tasks.begin(), tasks.end());
  return tasks;
}

void WorkFolder::RemoveTemporaries(StageKind kind, uint32_t task) const {
  const std::string prefix = std::string(".").append(std::to_string(task)).append(".");
  std::error_code ec;
  for (fs::directory_iterator it(Dir(kind), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with(prefix)) fs::remove(it->path(), ec);
  }
}

Result<uint32_t> WorkFolder::FinishedTasks(StageKind kind, uint64_t fingerprint) const {
  const std::string dir = Dir(kind);
  std::map<uint64_t, Marker> done;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.ends_with(".done") || name.starts_with(".")) continue;
    Result<Marker> m = ReadMarker(it->path().string(), name, kind);
    if (!m.ok()) return m.status();
    done[m->task.task] = *m;
  }
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return Status::IoError(ShellQuoted(dir).append(": ").append(ec.message()));
  }
  if (done.empty()) {
    return Status::InvalidArgument(ShellQuoted(dir)
                                       .append(": no ")
                                       .append(ToString(kind))
                                       .append(" task has finished (run `neardup stage ")
                                       .append(ToString(kind))
                                       .append("` first)"));
  }
  const uint64_t tasks = done.begin()->second.task.tasks;
  for (const auto& [task, m] : done) {
    if (m.task.tasks != tasks) {
      return Status::InvalidArgument(ShellQuoted(dir)
                                         .append(": markers of runs of ")
                                         .append(std::to_string(tasks))
                                         .append(" and ")
                                         .append(std::to_string(m.task.tasks))
                                         .append(" tasks: use an empty work folder"));
    }
    if (m.fingerprint != fingerprint) {
      return Status::InvalidArgument(
          ShellQuoted(std::string(dir).append("/").append(std::to_string(task)).append(".done"))
              .append(": made with other options (")
              .append(kOptionsKinds)
              .append(") than these"));
    }
  }
  if (Status s = NoneMissing(dir, kind, done, tasks); !s.ok()) return s;
  return static_cast<uint32_t>(tasks);
}

Status WriteAtomically(const std::string& path, std::string_view bytes) {
  const fs::path target(path);
  const std::string name =
      std::string(".").append(target.filename().string()).append(".tmp-").append(std::to_string(::getpid()));
  const std::string temp = (target.parent_path() / name).string();
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return Status::IoError(Errno(path, "cannot create"));
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status s = Status::IoError(Errno(path, "cannot write"));
      ::close(fd);
      ::unlink(temp.c_str());
      return s;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    Status s = Status::IoError(Errno(path, "cannot sync"));
    ::unlink(temp.c_str());
    return s;
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    Status s = Status::IoError(Errno(path, "cannot rename into place"));
    ::unlink(temp.c_str());
    return s;
  }
  return Status::Ok();
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_.c_str());
  }
}

Status AtomicFileWriter::Open(const std::string& path) {
  const fs::path target(path);
  path_ = path;
  temp_ = (target.parent_path() /
           std::string(".").append(target.filename().string()).append(".tmp-").append(std::to_string(::getpid())))
              .string();
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) return Status::IoError(Errno(path_, "cannot create"));
  buffer_.reserve(kBuffer);
  return Status::Ok();
}

void AtomicFileWriter::Append(std::string_view bytes) {
  if (buffer_.size() + bytes.size() > kBuffer) Flush();
  if (bytes.size() > kBuffer) {
    Write(bytes);  // straight from the caller's bytes: no copy
    return;
  }
  buffer_.append(bytes);
}

void AtomicFileWriter::Flush() {
  Write(buffer_);
  buffer_.clear();
}

void AtomicFileWriter::Write(std::string_view bytes) {
#ifdef __linux__
  // Starts the write-back of what is written every kWriteBehind bytes, so
  // that Commit()'s fsync finds little left to write: the disk works while
  // the writer goes on.
  if (written_ - flushed_ >= kWriteBehind && fd_ >= 0) {
    (void)::sync_file_range(fd_, static_cast<off_t>(flushed_), static_cast<off_t>(written_ - flushed_),
                            SYNC_FILE_RANGE_WRITE);
    flushed_ = written_;
  }
  written_ += bytes.size();
#endif
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0 && error_.ok() && fd_ >= 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = Status::IoError(Errno(path_, "cannot write"));
      break;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

void AtomicFileWriter::WriteAt(uint64_t offset, std::string_view bytes) {
  Flush();
  while (!bytes.empty() && error_.ok() && fd_ >= 0) {
    const ssize_t n = ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = Status::IoError(Errno(path_, "cannot write"));
      break;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
  }
}

Status AtomicFileWriter::Commit() {
  if (fd_ < 0) return error_.ok() ? Status::IoError(ShellQuoted(path_) + ": not open") : error_;
  Flush();
  const int fd = fd_;
  fd_ = -1;
  if (error_.ok() && (::fsync(fd) != 0)) error_ = Status::IoError(Errno(path_, "cannot sync"));
  if (::close(fd) != 0 && error_.ok()) error_ = Status::IoError(Errno(path_, "cannot sync"));
  if (error_.ok() && ::rename(temp_.c_str(), path_.c_str()) != 0) {
    error_ = Status::IoError(Errno(path_, "cannot rename into place"));
  }
  if (!error_.ok()) ::unlink(temp_.c_str());
  return error_;
}

Result<std::string> ReadWholeFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError(Errno(path, "cannot open"));
  // Read straight into a string of the file's size and one byte more, so
  // that the read which finds the end needs no larger string (growing it
  // would copy the whole file); grown only if the file grew.
  struct stat st {};
  std::string out(::fstat(fd, &st) == 0 && st.st_size > 0 ? static_cast<size_t>(st.st_size) + 1 : 0, '\0');
  size_t have = 0;
  for (;;) {
    if (have == out.size()) out.resize(out.size() + (1 << 16));
    const ssize_t n = ::read(fd, out.data() + have, out.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status s = Status::IoError(Errno(path, "cannot read"));
      ::close(fd);
      return s;
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(have);
  return out;
}

}  // namespace neardup
