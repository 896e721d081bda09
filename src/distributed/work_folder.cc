#include "distributed/work_folder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

namespace neardup {

namespace {

namespace fs = std::filesystem;

std::string Errno(const std::string& path, const char* what) {
  return std::string(path).append(": ").append(what).append(": ").append(std::strerror(errno));
}

// The marker's fields: stage, task, tasks, fingerprint.
struct Marker {
  std::string stage;
  uint64_t task = 0, tasks = 0, fingerprint = 0;
};

bool ParseMarker(const std::string& text, Marker* m) {
  char stage[16] = {};
  unsigned long long task = 0, tasks = 0, fp = 0;
  if (std::sscanf(text.c_str(), "neardup %15s %llu %llu %llx", stage, &task, &tasks, &fp) != 4) return false;
  *m = {.stage = stage, .task = task, .tasks = tasks, .fingerprint = fp};
  return true;
}

}  // namespace

const char* ToString(StageKind kind) { return kind == StageKind::kSign ? "sign" : "bucket"; }

std::string WorkFolder::Dir(StageKind kind) const { return std::string(root_).append("/").append(ToString(kind)); }

std::string WorkFolder::File(StageKind kind, uint32_t task, std::string_view suffix) const {
  return Dir(kind).append("/").append(std::to_string(task)).append(".").append(suffix);
}

Status WorkFolder::Create() const {
  for (StageKind kind : {StageKind::kSign, StageKind::kBucket}) {
    std::error_code ec;
    fs::create_directories(Dir(kind), ec);
    if (ec) return Status::IoError(Dir(kind).append(": cannot create: ").append(ec.message()));
  }
  return Status::Ok();
}

std::string WorkFolder::MarkerText(StageKind kind, StageTask t, uint64_t fingerprint) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fingerprint));
  return std::string("neardup ")
      .append(ToString(kind))
      .append(" ")
      .append(std::to_string(t.task))
      .append(" ")
      .append(std::to_string(t.tasks))
      .append(" ")
      .append(hex)
      .append("\n");
}

Result<bool> WorkFolder::Done(StageKind kind, StageTask t, uint64_t fingerprint) const {
  const std::string path = File(kind, t.task, "done");
  std::error_code ec;
  if (!fs::exists(path, ec)) return false;
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  if (*text == MarkerText(kind, t, fingerprint)) return true;
  Marker m;
  if (ParseMarker(*text, &m) && m.tasks != t.tasks) {
    return Status::InvalidArgument(std::string(path).append(": made by a run of ").append(std::to_string(m.tasks))
                                       .append(" ").append(ToString(kind)).append(" tasks, not ")
                                       .append(std::to_string(t.tasks)).append(": use an empty work folder"));
  }
  return Status::InvalidArgument(std::string(path).append(
      ": made with other options (signature, banding or mode): use an empty work folder"));
}

Status WorkFolder::SameRun(StageKind kind, StageTask t, uint64_t fingerprint) const {
  std::error_code ec;
  for (fs::directory_iterator it(Dir(kind), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.ends_with(".done") || name.starts_with(".")) continue;
    Result<std::string> text = ReadWholeFile(it->path().string());
    if (!text.ok()) return text.status();
    Marker m;
    if (!ParseMarker(*text, &m) || m.stage != ToString(kind)) {
      return Status::Corrupt(it->path().string().append(": not a completion marker"));
    }
    if (m.tasks != t.tasks) {
      return Status::InvalidArgument(it->path().string().append(": made by a run of ").append(std::to_string(m.tasks))
                                         .append(" tasks, not ").append(std::to_string(t.tasks))
                                         .append(": use an empty work folder"));
    }
    if (m.fingerprint != fingerprint) {
      return Status::InvalidArgument(it->path().string().append(
          ": made with other options (signature, banding or mode): use an empty work folder"));
    }
  }
  return Status::Ok();
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
    Result<std::string> text = ReadWholeFile(it->path().string());
    if (!text.ok()) return text.status();
    Marker m;
    if (!ParseMarker(*text, &m) || m.stage != ToString(kind)) {
      return Status::Corrupt(it->path().string().append(": not a completion marker"));
    }
    done[m.task] = m;
  }
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return Status::IoError(std::string(dir).append(": ").append(ec.message()));
  }
  if (done.empty()) {
    return Status::InvalidArgument(std::string(dir).append(": no ").append(ToString(kind))
                                       .append(" task has finished (run `neardup stage ").append(ToString(kind))
                                       .append("` first)"));
  }
  const uint64_t tasks = done.begin()->second.tasks;
  for (const auto& [task, m] : done) {
    if (m.tasks != tasks) {
      return Status::InvalidArgument(std::string(dir).append(": markers of runs of ").append(std::to_string(tasks))
                                         .append(" and ").append(std::to_string(m.tasks))
                                         .append(" tasks: use an empty work folder"));
    }
    if (m.fingerprint != fingerprint) {
      return Status::InvalidArgument(
          std::string(dir)
              .append("/")
              .append(std::to_string(task))
              .append(".done: made with other options (signature, banding or mode) than these"));
    }
  }
  std::string missing;
  uint64_t n_missing = 0;
  for (uint64_t t = 0; t < tasks; ++t) {
    if (done.count(t) != 0) continue;
    ++n_missing;
    missing.append(missing.empty() ? "" : ", ").append(std::to_string(t));
  }
  if (n_missing > 0) {
    return Status::InvalidArgument(std::string(dir).append(": ").append(std::to_string(n_missing)).append(" of ")
                                       .append(std::to_string(tasks)).append(" ").append(ToString(kind))
                                       .append(" tasks missing: ").append(missing));
  }
  return static_cast<uint32_t>(tasks);
}

Status WriteAtomically(const std::string& path, std::string_view bytes) {
  const fs::path target(path);
  const std::string name =
      std::string(".").append(target.filename().string()).append(".tmp-").append(std::to_string(::getpid()));
  const std::string temp = (target.parent_path() / name).string();
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return Status::IoError(Errno(temp, "cannot create"));
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status s = Status::IoError(Errno(temp, "cannot write"));
      ::close(fd);
      ::unlink(temp.c_str());
      return s;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    Status s = Status::IoError(Errno(temp, "cannot sync"));
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

Result<std::string> ReadWholeFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError(Errno(path, "cannot open"));
  // Read straight into a string of the file's size (grown if the file grew).
  struct stat st {};
  std::string out(::fstat(fd, &st) == 0 && st.st_size > 0 ? static_cast<size_t>(st.st_size) : 0, '\0');
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
