// Status and Result<T>: the core library's only error currency.
//
// A Status is either OK or carries a code and a message that names what failed
// (usually a path) and why. The core never throws and never prints: expected
// failures (a file that cannot be read, a malformed JSONL line) travel as values
// and the front end decides what to say. Result<T> holds a T or a non-OK Status.
//
// Thread safety: values; copy freely between threads.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace neardup {

class [[nodiscard]] Status {
 public:
  enum class Code {
    kOk = 0,
    kInvalidArgument,  // options out of range, bad pattern
    kNotFound,         // a path that does not exist
    kIoError,          // open/read/stat failed
    kCorrupt,          // malformed input data (JSONL line, compressed stream)
    kChanged,          // a file changed or vanished during the run
    kCancelled,        // the run was interrupted
    kInternal,
  };

  Status() = default;  // OK

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) { return Status(Code::kInvalidArgument, std::move(msg)); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status IoError(std::string msg) { return Status(Code::kIoError, std::move(msg)); }
  static Status Corrupt(std::string msg) { return Status(Code::kCorrupt, std::move(msg)); }
  static Status Changed(std::string msg) { return Status(Code::kChanged, std::move(msg)); }
  static Status Cancelled(std::string msg) { return Status(Code::kCancelled, std::move(msg)); }
  static Status Internal(std::string msg) { return Status(Code::kInternal, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  // The message alone, e.g. "docs/a.txt: Permission denied".
  const std::string& message() const { return message_; }

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// Holds either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    assert(!status_.ok());
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  // REQUIRES: ok()
  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace neardup
