// Output: where the records go, stdout or a file written atomically.
//
// A file target is written to a temporary file in the same folder and renamed
// over the target on Commit(): an interrupted or failed run leaves the old
// file untouched and no temporary file behind (the signal handler removes it;
// see InstallSignalHandlers). A closed stdout (`| head`) is noticed, not fatal.
#pragma once

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

#include "neardup/status.h"

namespace neardup::cli {

// Buffered writes to a file descriptor, remembering the first error.
class FdStreambuf : public std::streambuf {
 public:
  explicit FdStreambuf(int fd) : fd_(fd) { setp(buf_, buf_ + sizeof buf_); }
  ~FdStreambuf() override { sync(); }
  int error() const { return error_; }  // errno of the first failed write, or 0

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool Flush();
  int fd_;
  int error_ = 0;
  char buf_[1 << 16];
};

class Output {
 public:
  // `path` empty: stdout. Otherwise creates a temporary file beside `path`.
  static Result<std::unique_ptr<Output>> Open(const std::string& path);
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  std::ostream& stream() { return stream_; }
  // Flushes; for a file, syncs it and renames it over the target.
  // A closed stdout (EPIPE) is reported by broken_pipe(), not as an error.
  Status Commit();
  bool broken_pipe() const;

 private:
  Output(int fd, std::string target, std::string temp);
  int fd_;
  std::string target_;
  std::string temp_;
  FdStreambuf buf_;
  std::ostream stream_;
  bool committed_ = false;
};

// SIGINT and SIGTERM: remove the temporary output file, clear the progress
// line, and exit with 128 + the signal number. SIGPIPE is ignored (writes to
// a closed pipe fail with EPIPE instead).
void InstallSignalHandlers();

}  // namespace neardup::cli
