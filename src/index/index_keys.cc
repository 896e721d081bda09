#include "index/index_keys.h"

#include <filesystem>
#include <system_error>

namespace neardup {

namespace {

namespace fs = std::filesystem;

// `p` absolute and normalized, without a trailing slash (but "/").
std::string Normalized(const fs::path& p) {
  std::error_code ec;
  std::string s = fs::absolute(p, ec).lexically_normal().string();
  if (ec) s = p.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// `p` absolute and canonical: links resolved where it exists.
std::string Canonical(const std::string& p) {
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? Normalized(p) : Normalized(c);
}

// "dir" + "rest" -> "dir/rest"; "/" + "rest" -> "/rest"; "dir" + "" -> "dir".
std::string JoinKey(const std::string& dir, std::string_view rest) {
  while (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
  if (rest.empty()) return dir;
  std::string out = dir;
  if (out.back() != '/') out += '/';
  out.append(rest);
  return out;
}

}  // namespace

IndexKeys::IndexKeys(const Options& options) {
  for (const auto* list : {&options.paths, &options.against}) {
    for (const std::string& p : *list) {
      if (!p.empty() && canonical_.count(p) == 0) canonical_.emplace(p, Canonical(p));
    }
  }
  std::unordered_map<std::string, std::string> dirs;  // directory as spelled -> canonical
  for (const std::string& p : options.listed_paths) {
    if (p.empty() || canonical_.count(p) != 0) continue;
    const fs::path spelled(p);
    const std::string name = spelled.filename().string();
    if (name.empty() || name == "." || name == "..") {
      canonical_.emplace(p, Canonical(p));
      continue;
    }
    const std::string dir = spelled.parent_path().string();
    auto it = dirs.find(dir);
    if (it == dirs.end()) it = dirs.emplace(dir, Canonical(dir.empty() ? "." : dir)).first;
    canonical_.emplace(p, JoinKey(it->second, name));
  }
  for (const auto& [spelled, canonical] : canonical_) roots_.insert(canonical);
}

std::string IndexKeys::KeyOf(const std::string& path) const {
  // The longest argument the path starts with: the path itself, then each
  // prefix ending before a '/' (an argument may be spelled with its slash).
  if (const auto it = canonical_.find(path); it != canonical_.end()) return it->second;
  for (size_t slash = path.rfind('/'); slash != std::string::npos && slash > 0; slash = path.rfind('/', slash - 1)) {
    for (const size_t len : {slash + 1, slash}) {
      if (const auto it = canonical_.find(path.substr(0, len)); it != canonical_.end()) {
        return JoinKey(it->second, std::string_view(path).substr(len));
      }
    }
  }
  if (const auto it = canonical_.find("/"); it != canonical_.end() && path.starts_with('/')) return JoinKey("/", path);
  return Normalized(path);
}

bool IndexKeys::Covers(const std::string& key) const {
  // The key itself, then each prefix ending before a '/'.
  for (size_t end = key.size(); end > 0;) {
    if (roots_.count(key.substr(0, end)) != 0) return true;
    const size_t slash = key.rfind('/', end - 1);
    if (slash == std::string::npos) return false;
    if (slash == 0) return roots_.count("/") != 0;
    end = slash;
  }
  return false;
}

}  // namespace neardup
