// Fuzz harness: globs and a path -> GlobSet::Compile, Matches, GlobMatch.
//
// The input is split at NUL bytes: every part but the last is a glob (at most
// 8), the last is the path; an input without NUL is both a glob and the path.
// Nothing may crash or take more than polynomial time (run the fuzzer with
// -timeout), and these must hold for any path:
//   - the path with every special character escaped matches it;
//   - `*` matches exactly the paths without '/', `**` every path;
//   - Matches() is the last matching glob's verdict, as GlobMatch() sees it
//     (the matching rules of glob.h, restated with the public GlobMatch).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harnesses.h"
#include "walk/glob.h"

namespace neardup::fuzz {
namespace {

constexpr size_t kMaxGlobs = 8;

std::string Escape(std::string_view path) {
  std::string out;
  for (const char c : path) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\' || c == '!') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

// What GlobSet::Matches should say, from glob.h's rules and GlobMatch.
bool ExpectedMatch(const std::vector<std::string>& globs, std::string_view path) {
  if (globs.empty()) return true;
  const size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  bool any_include = false;
  std::optional<bool> last;
  for (const std::string& glob : globs) {
    std::string_view pattern = glob;
    const bool exclude = pattern.starts_with('!');
    if (exclude) pattern.remove_prefix(1);
    any_include = any_include || !exclude;
    const bool anchored = pattern.starts_with('/');
    if (anchored) pattern.remove_prefix(1);
    const bool basename_only = !anchored && pattern.find('/') == std::string_view::npos;
    if (GlobMatch(pattern, basename_only ? name : path)) last = !exclude;
  }
  return last.value_or(!any_include);
}

bool Run(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t nul = input.find('\0', start);
    if (nul == std::string_view::npos || parts.size() == kMaxGlobs) {
      parts.emplace_back(input.substr(start));
      break;
    }
    parts.emplace_back(input.substr(start, nul - start));
    start = nul + 1;
  }
  const std::string path = parts.back();
  if (parts.size() > 1) parts.pop_back();
  const std::vector<std::string>& globs = parts;

  // Raw patterns, malformed or not, never crash GlobMatch.
  for (const std::string& glob : globs) (void)GlobMatch(glob, path);
  NEARDUP_FUZZ_CHECK(GlobMatch(Escape(path), path));
  NEARDUP_FUZZ_CHECK(GlobMatch("*", path) == (path.find('/') == std::string::npos));
  NEARDUP_FUZZ_CHECK(GlobMatch("**", path));

  Result<GlobSet> set = GlobSet::Compile(globs);
  if (!set.ok()) {
    NEARDUP_FUZZ_CHECK(set.status().code() == Status::Code::kInvalidArgument);
    return true;
  }
  NEARDUP_FUZZ_CHECK(set->Matches(path) == ExpectedMatch(globs, path));
  (void)set->ExcludesDirectory(path);
  return true;
}

}  // namespace

int GlobFuzz(const uint8_t* data, size_t size) {
  Run(data, size);
  return 0;
}

}  // namespace neardup::fuzz

#ifndef NEARDUP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return neardup::fuzz::GlobFuzz(data, size); }
#endif
