#include "neardup/word_diff.h"

#include <dtl/dtl.hpp>

#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>

namespace neardup {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::vector<std::string_view> SplitWords(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsSpace(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !IsSpace(text[i])) ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

}  // namespace

std::vector<DiffRun> WordDiff(std::string_view a, std::string_view b) {
  const std::vector<std::string_view> wa = SplitWords(a);
  const std::vector<std::string_view> wb = SplitWords(b);
  // The diff compares integers: each distinct word gets a number.
  std::unordered_map<std::string_view, int> ids;
  std::vector<std::string_view> words_by_id;
  auto number = [&](const std::vector<std::string_view>& words) {
    std::vector<int> seq;
    seq.reserve(words.size());
    for (const std::string_view w : words) {
      const auto [it, added] = ids.emplace(w, static_cast<int>(words_by_id.size()));
      if (added) words_by_id.push_back(w);
      seq.push_back(it->second);
    }
    return seq;
  };
  const std::vector<int> sa = number(wa);
  const std::vector<int> sb = number(wb);

  dtl::Diff<int> diff(sa, sb, /*deletesFirst=*/true);
  diff.compose();
  std::vector<DiffRun> runs;
  for (const auto& [elem, info] : diff.getSes().getSequence()) {
    const DiffRun::Kind kind = info.type == dtl::SES_ADD      ? DiffRun::Kind::kAdded
                               : info.type == dtl::SES_DELETE ? DiffRun::Kind::kRemoved
                                                              : DiffRun::Kind::kSame;
    const std::string_view word = words_by_id[static_cast<size_t>(elem)];
    if (runs.empty() || runs.back().kind != kind) {
      runs.push_back({kind, std::string(word), 1});
    } else {
      runs.back().text.push_back(' ');
      runs.back().text.append(word);
      ++runs.back().words;
    }
  }
  return runs;
}

}  // namespace neardup
