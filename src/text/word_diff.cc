#include "neardup/word_diff.h"

#include <cstddef>
#include <dtl/dtl.hpp>
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

// The first `n` words of a run of words joined by single spaces.
std::string_view FirstWords(std::string_view text, uint64_t n) {
  size_t at = 0;
  for (uint64_t i = 0; i < n; ++i) {
    at = text.find(' ', i == 0 ? 0 : at + 1);
    if (at == std::string_view::npos) return text;
  }
  return text.substr(0, at);
}

// The last `n` words of a run of words joined by single spaces.
std::string_view LastWords(std::string_view text, uint64_t n) {
  size_t at = text.size();
  for (uint64_t i = 0; i < n; ++i) {
    if (at == 0) return text;
    at = text.rfind(' ', at - 1);
    if (at == std::string_view::npos) return text;
  }
  return text.substr(at + 1);
}

FoldedRun::Kind FoldedKind(DiffRun::Kind kind) {
  switch (kind) {
    case DiffRun::Kind::kSame:
      return FoldedRun::Kind::kSame;
    case DiffRun::Kind::kRemoved:
      return FoldedRun::Kind::kRemoved;
    case DiffRun::Kind::kAdded:
      return FoldedRun::Kind::kAdded;
  }
  return FoldedRun::Kind::kSame;
}

}  // namespace

std::vector<FoldedRun> FoldDiff(const std::vector<DiffRun>& runs) {
  std::vector<FoldedRun> out;
  out.reserve(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    const DiffRun& run = runs[i];
    const bool first = i == 0;
    const bool last = i + 1 == runs.size();
    const uint64_t keep = (first ? 0 : kContextWords) + (last ? 0 : kContextWords);
    if (run.kind != DiffRun::Kind::kSame || run.words < keep + kMinSkipped) {
      out.push_back({FoldedKind(run.kind), run.text, run.words});
      continue;
    }
    if (!first)
      out.push_back({FoldedRun::Kind::kSame, std::string(FirstWords(run.text, kContextWords)), kContextWords});
    out.push_back({FoldedRun::Kind::kSkipped, std::string(), run.words - keep});
    if (!last) out.push_back({FoldedRun::Kind::kSame, std::string(LastWords(run.text, kContextWords)), kContextWords});
  }
  return out;
}

std::vector<DiffRun> WordDiff(std::string_view a, std::string_view b) {
  const std::vector<std::string_view> wa = SplitWords(a);
  const std::vector<std::string_view> wb = SplitWords(b);
  // The diff compares integers: each distinct word gets a number.
  std::unordered_map<std::string_view, int> ids;
  ids.reserve(wa.size() + wb.size());
  std::vector<std::string_view> words_by_id;
  words_by_id.reserve(wa.size() + wb.size());
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
