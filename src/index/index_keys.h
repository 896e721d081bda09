// IndexKeys: the key an --index entry is stored under, for a file as walked.
//
// A file's key is its PATH argument (a PATH, an --against path or a listed
// path: the longest one its walked path starts with) made absolute and
// canonical, joined with the rest of its path as walked. So `grow`,
// `grow/`, `./grow`, `grow/../grow` and `/abs/grow` give the same keys, and
// the output keeps the names as the user spelled them. A PATH or --against
// argument is canonicalized whole (symbolic links resolved, as realpath(3);
// the part that does not exist is normalized); a listed path (--files-from,
// possibly millions) through its directory (resolved once per directory),
// its last component kept. Links below the argument are not resolved: the
// walk lists each file once, under one path, so keys of distinct files differ.
//
// Thread safety: const after construction.
//
//   IndexKeys keys(options);
//   std::string key = keys.KeyOf("./grow/a.txt");  // "/home/me/grow/a.txt"
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "neardup/options.h"

namespace neardup {

class IndexKeys {
 public:
  IndexKeys() = default;
  // Canonicalizes the run's arguments (against the current directory).
  explicit IndexKeys(const Options& options);

  // The key of a file walked as `path` (a path under one of the run's
  // arguments); a path under none is made absolute and normalized.
  std::string KeyOf(const std::string& path) const;
  // Whether the entry keyed `key` is under one of the run's arguments: a
  // file a walk of them can meet.
  bool Covers(const std::string& key) const;

 private:
  std::unordered_map<std::string, std::string> canonical_;  // argument as spelled -> canonical
  std::unordered_set<std::string> roots_;                   // the canonical arguments
};

}  // namespace neardup
