#include "index/index_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "index/index_rows.h"
#include "index/index_schema.h"
#include "neardup/quote.h"

namespace neardup {

namespace {

// Who holds the lock, from the `lock` row. The holder writes it just after
// taking the lock (and creating the schema of a new index), so it is given
// a moment to appear.
std::string Holder(const std::string& path) {
  for (int attempt = 0; attempt < 40; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    bool fresh = false;
    Result<Db> db = OpenDb(path, /*write=*/false, /*create=*/nullptr, &fresh);
    if (!db.ok()) continue;
    Stmt st(db->get(), "SELECT pid, host, started FROM lock WHERE id = 1");
    if (!st.ok() || st.Step() != SQLITE_ROW) continue;
    return std::string("pid ")
        .append(std::to_string(st.Int(0)))
        .append(" on ")
        .append(OneLine(st.Text(1)))
        .append(" since ")
        .append(st.Text(2));
  }
  return "another process";
}

// Opens `path` for the lock: a regular file of one name. The descriptor, or
// -1 with the error in *error.
int OpenForLock(const std::string& path, Status* error) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0) {
    const int e = errno;
    if (e == EACCES || e == EROFS || e == EPERM || e == ETXTBSY) {
      *error = Status::IoError(ShellQuoted(path) + ": the index is read-only (" + std::strerror(e) + ")");
    } else if (e == EISDIR) {
      *error = Status::InvalidArgument(ShellQuoted(path) + ": not a neardup index (a directory)");
    } else {
      *error = Status::IoError(ShellQuoted(path) + ": cannot open the index: " + std::strerror(e));
    }
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    *error = Status::InvalidArgument(ShellQuoted(path) + ": not a neardup index (not a regular file)");
  } else {
    *error = CheckOneName(path, st);
  }
  if (error->ok()) return fd;
  ::close(fd);
  return -1;
}

}  // namespace

Result<int> TakeLock(const std::string& path, const IndexOpenOptions& options) {
  Status error;
  const int fd = OpenForLock(path, &error);
  if (fd < 0) return error;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int64_t>(options.lock_wait * 1000));
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) {
      Status s = Status::IoError(ShellQuoted(path) + ": cannot lock the index: " + std::strerror(errno));
      ::close(fd);
      return s;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      std::string msg = ShellQuoted(path) + ": in use by " + Holder(path);
      msg += options.lock_wait > 0 ? " (waited " + std::to_string(static_cast<int64_t>(options.lock_wait)) + " s)"
                                   : "; give --lock-wait SECONDS to wait for it";
      ::close(fd);
      return Status::IoError(msg);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return fd;
}

Status WriteHolder(sqlite3* h, const std::string& path) {
  Stmt lock(h, "INSERT OR REPLACE INTO lock(id, pid, host, started) VALUES(1, ?, ?, ?)");
  lock.Bind(1, static_cast<int64_t>(::getpid()));
  lock.Bind(2, HostName());
  lock.Bind(3, NowUtc());
  if (int rc = lock.Step(); rc != SQLITE_DONE) return SqlError(h, path, rc);
  return Status::Ok();
}

std::string HostName() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "?";
  return buf;
}

}  // namespace neardup
