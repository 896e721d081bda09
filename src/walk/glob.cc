// Glob matching without exponential backtracking.
//
// A pattern and a path are both split at '/' into components. Within one
// component, `*` is matched with the classic greedy algorithm that remembers
// only the last star: on a mismatch it lets that star swallow one more
// character and retries. This is correct because every other token matches a
// fixed, position-determined span, and it costs O(pattern * text) at worst.
// `**` components are handled the same way one level up, with whole
// components as the units, so `a/**/b/**/c` is also polynomial.
//
// `?` and classes match one UTF-8 character (a lone invalid byte counts as one
// character); `*` never crosses '/'. `**` that is not a whole component (as in
// `a**b`) is an ordinary `*`, as in ripgrep's globset.

#include "walk/glob.h"

#include <cstdint>
#include <optional>
#include <utility>

#include "base/utf8.h"

namespace neardup {
namespace {

constexpr size_t kNpos = std::string_view::npos;

// One decoded character: a code point for well-formed UTF-8, or a value above
// U+10FFFF for a stray byte (so it only ever equals the same stray byte).
struct Char {
  uint32_t value;
  size_t length;  // bytes
};

Char DecodeChar(std::string_view s, size_t pos) {
  const Utf8Char c = DecodeUtf8Char(s, pos);
  if (c.status != Utf8Status::kValid) return {0x110000u + static_cast<unsigned char>(s[pos]), 1};
  return {c.code_point, c.length};
}

// Parses the class starting at pattern[pos] == '['. Returns the index just
// past the closing ']' and whether `c` is in the class (when `c` is given), or
// nullopt with `*error` set when the class is malformed.
std::optional<size_t> ParseClass(std::string_view pattern, size_t pos, const Char* c, bool* matched,
                                 std::string* error) {
  size_t i = pos + 1;
  bool negated = false;
  if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) {
    negated = true;
    ++i;
  }
  bool in_class = false;
  bool first = true;
  while (true) {
    if (i >= pattern.size()) {
      if (error != nullptr) *error = "unclosed character class";
      return std::nullopt;
    }
    if (pattern[i] == ']' && !first) break;  // a ']' first is a literal
    first = false;
    // One item: a character (maybe escaped), optionally "-" and a second one.
    if (pattern[i] == '\\') {
      if (++i >= pattern.size()) {
        if (error != nullptr) *error = "unclosed character class";
        return std::nullopt;
      }
    }
    const Char low = DecodeChar(pattern, i);
    i += low.length;
    Char high = low;
    if (i + 1 < pattern.size() && pattern[i] == '-' && pattern[i + 1] != ']') {
      ++i;
      if (pattern[i] == '\\' && ++i >= pattern.size()) {
        if (error != nullptr) *error = "unclosed character class";
        return std::nullopt;
      }
      high = DecodeChar(pattern, i);
      i += high.length;
      if (high.value < low.value) {
        if (error != nullptr) *error = "invalid range in character class";
        return std::nullopt;
      }
    }
    if (c != nullptr && c->value >= low.value && c->value <= high.value) in_class = true;
  }
  if (matched != nullptr) *matched = (in_class != negated) && c != nullptr && c->value != '/';
  return i + 1;
}

// Tries the single token at pattern[*p] (not '*') against text[*t]. On a
// match advances both and returns true. A malformed token never matches.
bool MatchToken(std::string_view pattern, size_t* p, std::string_view text, size_t* t) {
  const char pc = pattern[*p];
  if (pc == '?') {
    const Char c = DecodeChar(text, *t);
    *p += 1;
    *t += c.length;
    return true;
  }
  if (pc == '[') {
    const Char c = DecodeChar(text, *t);
    bool matched = false;
    const std::optional<size_t> end = ParseClass(pattern, *p, &c, &matched, nullptr);
    if (!end || !matched) return false;
    *p = *end;
    *t += c.length;
    return true;
  }
  size_t literal = *p;
  if (pc == '\\') {
    if (*p + 1 >= pattern.size()) return false;
    literal = *p + 1;
  }
  if (pattern[literal] != text[*t]) return false;
  *p = literal + 1;
  *t += 1;
  return true;
}

// Matches one component (no '/') of a pattern against one of a path.
bool MatchComponent(std::string_view pattern, std::string_view text) {
  size_t p = 0;
  size_t t = 0;
  size_t star_p = kNpos;  // pattern index just after the last star
  size_t star_t = 0;      // text index that star's run ends at
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      while (p < pattern.size() && pattern[p] == '*') ++p;
      star_p = p;
      star_t = t;
      continue;
    }
    if (p < pattern.size() && MatchToken(pattern, &p, text, &t)) continue;
    if (star_p == kNpos) return false;
    // Let the last star take one more byte and retry after it. Stepping by
    // byte is enough: a token cannot match in the middle of a character.
    ++star_t;
    p = star_p;
    t = star_t;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

// Components are [begin, end) spans of a string, separated by '/'. A position
// past the string's size means "no more components".
size_t ComponentEnd(std::string_view s, size_t begin) {
  const size_t slash = s.find('/', begin);
  return slash == kNpos ? s.size() : slash;
}

bool IsDoubleStar(std::string_view s, size_t begin, size_t end) {
  return end - begin == 2 && s[begin] == '*' && s[begin + 1] == '*';
}

// Returns an error message for a malformed component, or nullopt.
std::optional<std::string> CheckComponent(std::string_view component) {
  for (size_t i = 0; i < component.size(); ++i) {
    if (component[i] == '\\') {
      if (i + 1 >= component.size()) return "a '\\' must be followed by a character";
      ++i;
    } else if (component[i] == '[') {
      std::string error;
      const std::optional<size_t> end = ParseClass(component, i, nullptr, nullptr, &error);
      if (!end) return error;
      i = *end - 1;
    }
  }
  return std::nullopt;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text) {
  // Greedy matching over components; `**` plays the role of the star. A `**`
  // that ends the pattern must take at least one component (`a/**` matches
  // what is inside a, not a itself), as in ripgrep and .gitignore.
  size_t p = 0;
  size_t t = 0;
  size_t star_p = kNpos;  // pattern position just after the last `**`
  size_t star_t = 0;      // text position where that `**`'s run ends
  while (t <= text.size()) {
    const size_t t_end = ComponentEnd(text, t);
    if (p <= pattern.size()) {
      const size_t p_end = ComponentEnd(pattern, p);
      if (IsDoubleStar(pattern, p, p_end)) {
        if (p_end == pattern.size()) return true;  // trailing `**`, >= 1 component left
        p = p_end + 1;
        star_p = p;
        star_t = t;
        continue;
      }
      if (MatchComponent(pattern.substr(p, p_end - p), text.substr(t, t_end - t))) {
        p = p_end + 1;
        t = t_end + 1;
        continue;
      }
    }
    if (star_p == kNpos) return false;
    star_t = ComponentEnd(text, star_t) + 1;
    p = star_p;
    t = star_t;
  }
  // The path is used up: what is left of the pattern must be inner `**`s.
  while (p <= pattern.size()) {
    const size_t p_end = ComponentEnd(pattern, p);
    if (!IsDoubleStar(pattern, p, p_end) || p_end == pattern.size()) return false;
    p = p_end + 1;
  }
  return true;
}

Result<GlobSet> GlobSet::Compile(const std::vector<std::string>& globs) {
  GlobSet set;
  for (const std::string& glob : globs) {
    Glob compiled;
    std::string_view pattern = glob;
    if (!pattern.empty() && pattern.front() == '!') {
      compiled.exclude = true;
      pattern.remove_prefix(1);
    }
    // A leading '/' anchors the glob at the top, as in .gitignore.
    const bool anchored = !pattern.empty() && pattern.front() == '/';
    if (anchored) pattern.remove_prefix(1);
    if (pattern.empty()) {
      return Status::InvalidArgument("invalid glob '" + glob + "': empty pattern");
    }
    size_t begin = 0;
    while (begin <= pattern.size()) {
      const size_t end = ComponentEnd(pattern, begin);
      if (std::optional<std::string> error = CheckComponent(pattern.substr(begin, end - begin))) {
        return Status::InvalidArgument("invalid glob '" + glob + "': " + *error);
      }
      begin = end + 1;
    }
    compiled.pattern = std::string(pattern);
    compiled.basename_only = !anchored && pattern.find('/') == kNpos;
    set.any_include_ = set.any_include_ || !compiled.exclude;
    set.globs_.push_back(std::move(compiled));
  }
  return set;
}

std::optional<bool> GlobSet::LastMatch(std::string_view relative_path) const {
  const size_t slash = relative_path.rfind('/');
  const std::string_view name = slash == kNpos ? relative_path : relative_path.substr(slash + 1);
  for (auto it = globs_.rbegin(); it != globs_.rend(); ++it) {
    if (GlobMatch(it->pattern, it->basename_only ? name : relative_path)) return !it->exclude;
  }
  return std::nullopt;
}

bool GlobSet::Matches(std::string_view relative_path) const {
  if (globs_.empty()) return true;
  return LastMatch(relative_path).value_or(!any_include_);
}

bool GlobSet::ExcludesDirectory(std::string_view relative_dir) const {
  return LastMatch(relative_dir) == std::optional<bool>(false);
}

}  // namespace neardup
