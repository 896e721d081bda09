// GlobSet: ripgrep-style include/exclude globs over relative paths.
//
// Syntax: `*` any run of characters except '/', `?` one character except '/',
// `**` any run including '/' (as a whole path component: `**/x`, `a/**`,
// `a/**/b`; a trailing `**` needs at least one component, so `a/**` does not
// match "a"; elsewhere `**` is `*`), `[abc]`, `[a-z]`, `[!a]` character
// classes, `\` escapes the next character. `?` and classes match one UTF-8
// character. A glob without '/' matches the file name alone (any depth), as in
// ripgrep and .gitignore. A leading '!' makes a glob exclude.
// A leading '/' anchors a glob at the top (`/a.txt` matches "a.txt" only).
// Matching: the last glob that matches decides; when no glob matches, the path
// is included unless some glob is an include glob (then it is excluded), as in
// ripgrep: `-g '*.txt' -g '!secret.txt'` keeps only the .txt files but one.
//
// Thread safety: Matches() is const and safe from many threads.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/status.h"

namespace neardup {

class GlobSet {
 public:
  // Empty set: everything matches.
  GlobSet() = default;
  // Returns InvalidArgument for a malformed glob (e.g. an unclosed '[').
  static Result<GlobSet> Compile(const std::vector<std::string>& globs);

  // `relative_path` uses '/' separators and has no leading "./".
  bool Matches(std::string_view relative_path) const;
  // Whether a directory found while walking is pruned: the last glob matching
  // its relative path is an exclude (so `!node_modules` or `!build/tmp` skip
  // whole trees, as in ripgrep). Include globs never prune a directory.
  bool ExcludesDirectory(std::string_view relative_dir) const;
  bool empty() const { return globs_.empty(); }
  // true/false: the last glob matching `relative_path` includes/excludes it;
  // nothing: no glob matches (Matches() then says whether any glob includes).
  std::optional<bool> LastMatch(std::string_view relative_path) const;

 private:
  struct Glob {
    std::string pattern;  // without the leading '!'
    bool exclude = false;
    bool basename_only = false;  // no '/' in the pattern, not anchored
  };
  std::vector<Glob> globs_;
  bool any_include_ = false;
};

// Matches one glob pattern (syntax above, no '!') against `text` in full.
bool GlobMatch(std::string_view pattern, std::string_view text);

}  // namespace neardup
