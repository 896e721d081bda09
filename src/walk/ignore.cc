#include "walk/ignore.h"

#include <utility>

#include "walk/glob.h"

namespace neardup {
namespace {

// One line of an ignore file without its trailing spaces, unless the last
// is escaped ("a\ " keeps "a\ ", which GlobMatch() reads as "a ").
std::string_view TrimTrailingSpaces(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) {
    if (line.size() >= 2 && line[line.size() - 2] == '\\') break;
    line.remove_suffix(1);
  }
  return line;
}

}  // namespace

IgnoreFile IgnoreFile::Parse(std::string_view text, std::string dir) {
  IgnoreFile file;
  file.dir_ = std::move(dir);
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    line = TrimTrailingSpaces(line);
    if (line.empty() || line.front() == '#') continue;
    Pattern p;
    if (line.front() == '!') {
      p.negated = true;
      line.remove_prefix(1);
    } else if (line.starts_with("\\!") || line.starts_with("\\#")) {
      line.remove_prefix(1);
    }
    if (!line.empty() && line.back() == '/') {
      p.dir_only = true;
      line.remove_suffix(1);
    }
    if (line.empty()) continue;
    // A '/' at the start or in the middle anchors the pattern at dir_.
    p.anchored = line.find('/') != std::string_view::npos;
    if (line.front() == '/') line.remove_prefix(1);
    if (line.empty()) continue;
    p.glob = std::string(line);
    file.patterns_.push_back(std::move(p));
  }
  return file;
}

std::optional<bool> IgnoreFile::Match(std::string_view relative_path, bool is_dir) const {
  if (patterns_.empty()) return std::nullopt;
  std::string_view below = relative_path;
  if (!dir_.empty()) {
    if (below.size() <= dir_.size() || !below.starts_with(dir_) || below[dir_.size()] != '/') return std::nullopt;
    below.remove_prefix(dir_.size() + 1);
  }
  const size_t slash = below.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? below : below.substr(slash + 1);
  for (auto p = patterns_.rbegin(); p != patterns_.rend(); ++p) {
    if (p->dir_only && !is_dir) continue;
    if (GlobMatch(p->glob, p->anchored ? below : name)) return !p->negated;
  }
  return std::nullopt;
}

IgnoreRules::IgnoreRules(std::shared_ptr<const IgnoreRules> parent, IgnoreFile ignore, IgnoreFile gitignore)
    : parent_(std::move(parent)), ignore_(std::move(ignore)), gitignore_(std::move(gitignore)) {}

bool IgnoreRules::Ignored(std::string_view relative_path, bool is_dir,
                          const std::vector<IgnoreFile>& explicit_files) const {
  for (const IgnoreRules* r = this; r != nullptr; r = r->parent_.get()) {
    if (const std::optional<bool> m = r->ignore_.Match(relative_path, is_dir)) return *m;
  }
  for (const IgnoreRules* r = this; r != nullptr; r = r->parent_.get()) {
    if (const std::optional<bool> m = r->gitignore_.Match(relative_path, is_dir)) return *m;
  }
  for (auto f = explicit_files.rbegin(); f != explicit_files.rend(); ++f) {
    if (const std::optional<bool> m = f->Match(relative_path, is_dir)) return *m;
  }
  return false;
}

}  // namespace neardup
