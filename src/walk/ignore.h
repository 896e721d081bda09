// IgnoreFile and IgnoreRules: .gitignore, .ignore and --ignore-file files,
// honoured while walking as ripgrep honours them.
//
// An IgnoreFile is the patterns of one file in gitignore syntax: one pattern
// a line; blank lines and lines starting with '#' are skipped (`\#` is a
// literal '#'); trailing spaces are dropped unless escaped (`\ `); a leading
// '!' re-includes what an earlier pattern excluded (`\!` is a literal '!'); a
// trailing '/' matches directories only; a pattern with a '/' elsewhere is
// anchored at the folder holding the file (a leading '/' only anchors), one
// without matches a name at any depth below it; `*`, `?`, `[...]` and `**`
// are GlobMatch()'s (walk/glob.h). Within one file the last pattern that
// matches decides.
//
// IgnoreRules are the files in force in one directory of a walk: its own
// .ignore and .gitignore, then those of the directories above it, up to the
// PATH argument (files above a PATH argument are not read, as with
// `rg --no-require-git` below a repository's top). A path is decided by the
// .ignore files first, deepest first, then by the .gitignore files, deepest
// first, then by the --ignore-file files (the last given first): the first
// file with a matching pattern decides, as in ripgrep. A directory that is
// ignored is not entered, so nothing below it can be re-included (as in git).
//
//   IgnoreFile f = IgnoreFile::Parse("*.log\n!keep.log\nbuild/\n", "sub");
//   f.Match("sub/x/a.log", false) == true; f.Match("sub/keep.log", false) == false
//
// Thread safety: immutable once built; IgnoreRules are shared between the
// walk's threads through shared_ptr.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neardup {

class IgnoreFile {
 public:
  // The patterns of `text` (the file's bytes); `dir`: the path of the folder
  // holding it relative to the PATH argument, "" for the PATH itself, without
  // a trailing '/'. A pattern GlobMatch() cannot read never matches.
  static IgnoreFile Parse(std::string_view text, std::string dir);

  // true: `relative_path` (relative to the PATH argument, '/'-separated) is
  // ignored; false: re-included by a '!' pattern; nothing: no pattern of this
  // file matches (or the path is not below its folder). `is_dir`: the path is
  // a directory.
  std::optional<bool> Match(std::string_view relative_path, bool is_dir) const;
  bool empty() const { return patterns_.empty(); }

 private:
  struct Pattern {
    std::string glob;
    bool negated = false;
    bool dir_only = false;
    bool anchored = false;  // matched against the whole path below dir_, else the name alone
  };
  std::string dir_;
  std::vector<Pattern> patterns_;
};

class IgnoreRules {
 public:
  // The rules of a directory whose own .ignore and .gitignore are `ignore`
  // and `gitignore` (empty when it has none), below `parent` (null at a PATH
  // argument).
  IgnoreRules(std::shared_ptr<const IgnoreRules> parent, IgnoreFile ignore, IgnoreFile gitignore);
  IgnoreRules(const IgnoreRules&) = delete;
  IgnoreRules& operator=(const IgnoreRules&) = delete;

  // Whether `relative_path` is ignored, by the precedence above, given the
  // --ignore-file files `explicit_files`, in the order given.
  bool Ignored(std::string_view relative_path, bool is_dir, const std::vector<IgnoreFile>& explicit_files) const;

 private:
  std::shared_ptr<const IgnoreRules> parent_;
  IgnoreFile ignore_;
  IgnoreFile gitignore_;
};

}  // namespace neardup
