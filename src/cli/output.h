// Output: where the records go, stdout or the target of -o.
//
// -o behaves as `sort -o` and `cp` users expect:
//  - a symbolic link is followed (to its final target, even a dangling one),
//    and the target is replaced, never the link;
//  - a regular file (or a new one) is written to a hidden temporary file in
//    the target's folder and renamed over the target on Commit(): an
//    interrupted or failed run leaves the old file untouched and no temporary
//    file behind (the signal handler removes it, see signals.h). The new
//    file keeps the old one's mode, and its owner and group where the
//    process may set them; a new file gets 0666 minus the umask. A hard link
//    is replaced for the name given only: the other names keep the old data;
//  - anything else that exists (a device such as /dev/null, a FIFO) is
//    opened and written in place: no temporary file, no rename. A FIFO
//    waits for a reader, as `echo > fifo` does. A directory is an error.
//
// Whole records only: each write on stream() must hold whole records (the
// writers hand over blocks of them). The buffer is flushed only between
// such writes, and a signal waits for a flush to finish, so stdout, a FIFO
// or a device never receives half a record. A closed stdout (`| head`) is
// not an error: the rest of the output is dropped.
#pragma once

#include <sys/types.h>

#include <cerrno>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

#include "neardup/status.h"

namespace neardup::cli {

// Buffered writes to a file descriptor, remembering the first error. Each
// sputn() is a unit that is never split across two flushes: the buffer is
// flushed before a unit that does not fit, and a unit larger than the buffer
// is written directly, in one write() loop.
class FdStreambuf : public std::streambuf {
 public:
  explicit FdStreambuf(int fd) : fd_(fd) { setp(buf_, buf_ + sizeof buf_); }
  ~FdStreambuf() override { sync(); }
  FdStreambuf(const FdStreambuf&) = delete;
  FdStreambuf& operator=(const FdStreambuf&) = delete;
  int error() const { return error_; }  // errno of the first failed write, or 0
  // Called after each write() of buffered units with the bytes written so
  // far (for a moving counter), outside the signal deferral. May be empty.
  void set_on_written(std::function<void(uint64_t bytes)> on_written) { on_written_ = std::move(on_written); }
  // Keeps a copy of what is written from now on, up to `most` bytes; past
  // them the copy is dropped (captured() then says none).
  void Capture(size_t most) {
    capture_most_ = most;
    capturing_ = true;
    captured_.clear();
  }
  // The copy, when every byte written since Capture() is in it.
  const std::string* captured() const { return capturing_ ? &captured_ : nullptr; }

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool Flush();
  // Writes [data, data+size) completely (WriteWhole), then tells
  // on_written_.
  bool WriteAll(const char* data, size_t size);
  // Writes [data, data+size) completely, deferring signals meanwhile.
  bool WriteWhole(const char* data, size_t size);
  int fd_;
  int error_ = 0;
  uint64_t written_ = 0;
  std::function<void(uint64_t)> on_written_;
  bool capturing_ = false;
  size_t capture_most_ = 0;
  std::string captured_;
  char buf_[1 << 16];
};

class Output {
 public:
  // `path` empty or "-": stdout. Otherwise resolves symbolic links and opens
  // the target as described above. REQUIRES: InstallSignalHandlers() ran.
  static Result<std::unique_ptr<Output>> Open(const std::string& path);
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  std::ostream& stream() { return stream_; }
  // Told the bytes written so far as they go out (FdStreambuf::set_on_written).
  void set_on_written(std::function<void(uint64_t bytes)> on_written) { buf_.set_on_written(std::move(on_written)); }
  // FdStreambuf::Capture() and captured(): a copy of the output, bounded.
  void Capture(size_t most) { buf_.Capture(most); }
  const std::string* captured() const { return buf_.captured(); }
  // Flushes; for a replaced file, syncs it and renames it over the target.
  // A closed stdout (EPIPE: the reader of `| head` is gone) is not an error
  // here: what it did not take is dropped, and closed() says so (a --new run
  // makes it one: its output was not delivered).
  Status Commit();
  // After Commit(): whether stdout's reader was gone (EPIPE) before
  // everything was written, so the output was not delivered whole.
  bool closed() const { return target_.empty() && buf_.error() == EPIPE; }
  // After a successful Commit(): whether the whole output now lies in a
  // regular file, on its device: -o FILE renamed into place (synced by
  // Commit), or stdout redirected to a regular file (`>`, `>>`), synced
  // here. False for a pipe, a terminal, a socket, a device or a FIFO: what
  // went there may still wait unread in a buffer its reader never empties.
  // An error when syncing stdout fails (its data may be lost).
  Result<bool> InRegularFile();

 private:
  // fd: where records go; target: the resolved -o path (empty for stdout);
  // temp: the temporary file renamed over it (empty when written in place).
  Output(int fd, std::string target, std::string temp);
  int fd_;
  std::string target_;
  std::string temp_;
  FdStreambuf buf_;
  std::ostream stream_;
  bool done_ = false;  // committed, or given up
};

// The hidden temporary name for `target` in its folder, with "XXXXXX" for
// mkstemp: ".BASE.neardup-XXXXXX", BASE cut (at a UTF-8 character boundary)
// so that the name fits in NAME_MAX (255) bytes.
std::string TemporaryName(const std::string& target);

}  // namespace neardup::cli
