#include "text/word_diff.h"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "base/hash.h"

namespace neardup {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

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

// The shortest edit script of two sequences of word numbers, exactly as
// dtl's Diff<int>(a, b, /*deletesFirst=*/true).compose() gives it (Wu,
// Manber and Myers' O(NP) algorithm, with dtl's choices: the shorter
// sequence first, ties to the longer one swapped, a path table of at most
// kMaxPathPoints points, past which the script is recorded up to the point
// reached and the rest compared afresh, and each change's deletions before
// its additions). Differences from dtl: a point takes 8 bytes, not 24 (its
// diagonal, hence y, follows from its place in the table), and the table
// grows in blocks, never copied, so a hard pair holds 16 MB at most, where
// dtl held up to 72 MB while doubling its vector.
class EditScript {
 public:
  struct Op {
    DiffRun::Kind kind;
    int word;
  };

  // REQUIRES: a.size() and b.size() below INT32_MAX.
  EditScript(const std::vector<int>& a, const std::vector<int>& b) : swapped_(a.size() >= b.size()) {
    assert(a.size() < INT32_MAX && b.size() < INT32_MAX);
    const std::vector<int>& first = swapped_ ? b : a;  // dtl's A: the shorter, or b on a tie
    const std::vector<int>& second = swapped_ ? a : b;
    size_t x0 = 0, y0 = 0;  // where the part still to compare starts
    for (;;) {
      const Span sa{first.data() + x0, first.size() - x0};
      const Span sb{second.data() + y0, second.size() - y0};
      const int64_t end = Compose(sa, sb);
      const auto [dx, dy] = Record(sa, sb, end);
      if (dx == sa.size && dy == sb.size) break;
      x0 += dx;
      y0 += dy;
    }
    Flush();
  }

  const std::vector<Op>& ops() const { return ops_; }

 private:
  static constexpr size_t kMaxPathPoints = 2000000;  // dtl's MAX_CORDINATES_SIZE
  static constexpr size_t kBlock = size_t{1} << 16;
  struct Span {
    const int* data;
    size_t size;
  };
  struct Point {
    int32_t x, prev;  // prev: the point before on the path, or -1
  };

  size_t points() const { return blocks_.empty() ? 0 : (blocks_.size() - 1) * kBlock + last_; }
  const Point& At(size_t i) const { return blocks_[i / kBlock][i % kBlock]; }
  void Push(Point p) {
    if (blocks_.empty() || last_ == kBlock) {
      // Not value-initialized: each point is written before it is read, and
      // zeroing the block cost more than most diffs.
      blocks_.push_back(std::make_unique_for_overwrite<Point[]>(kBlock));
      last_ = 0;
    }
    blocks_.back()[last_++] = p;
  }

  // dtl's snake: the furthest point on diagonal k, recorded in the table.
  int64_t Snake(Span a, Span b, int64_t k, int64_t above, int64_t below) {
    const int64_t prev =
        above > below ? path_[static_cast<size_t>(k - 1 + offset_)] : path_[static_cast<size_t>(k + 1 + offset_)];
    int64_t y = std::max(above, below);
    int64_t x = y - k;
    while (static_cast<size_t>(x) < a.size && static_cast<size_t>(y) < b.size &&
           a.data[static_cast<size_t>(x)] == b.data[static_cast<size_t>(y)]) {
      ++x;
      ++y;
    }
    path_[static_cast<size_t>(k + offset_)] = static_cast<int64_t>(points());
    Push({static_cast<int32_t>(x), static_cast<int32_t>(prev)});
    return y;
  }

  // dtl's compose loop over `a` and `b`: fills the table until b's end is
  // reached on the diagonal delta or the table is full. Returns the index
  // of the last point on the diagonal delta.
  int64_t Compose(Span a, Span b) {
    const auto m = static_cast<int64_t>(a.size), n = static_cast<int64_t>(b.size);
    const int64_t delta = n - m;
    assert(delta >= 0);
    offset_ = m + 1;
    std::vector<int64_t> fp(static_cast<size_t>(m + n + 3), -1);
    path_.assign(static_cast<size_t>(m + n + 3), -1);
    blocks_.clear();
    last_ = 0;
    round_start_.clear();
    delta_ = delta;
    auto at = [&](int64_t k) -> int64_t& { return fp[static_cast<size_t>(k + offset_)]; };
    int64_t p = -1;
    do {
      ++p;
      round_start_.push_back(points());
      for (int64_t k = -p; k <= delta - 1; ++k) at(k) = Snake(a, b, k, at(k - 1) + 1, at(k + 1));
      for (int64_t k = delta + p; k >= delta + 1; --k) at(k) = Snake(a, b, k, at(k - 1) + 1, at(k + 1));
      at(delta) = Snake(a, b, delta, at(delta - 1) + 1, at(delta + 1));
    } while (at(delta) != n && points() < kMaxPathPoints);
    return path_[static_cast<size_t>(delta + offset_)];
  }

  // The diagonal k = y - x of point `i`: round p of Compose() pushes the
  // diagonals -p .. delta - 1, then delta + p down to delta + 1, then delta
  // (delta >= 0: `a` is the shorter, and a part compared afresh starts on
  // the diagonal delta, so its two rests are as long).
  int64_t DiagonalOf(size_t i) const {
    const auto round = std::upper_bound(round_start_.begin(), round_start_.end(), i) - 1;
    const auto p = static_cast<int64_t>(round - round_start_.begin());
    const auto j = static_cast<int64_t>(i - *round);
    if (j < delta_ + p) return j - p;
    if (j < delta_ + 2 * p) return 2 * delta_ + 2 * p - j;
    return delta_;
  }

  // dtl's recordSequence: the script along the path ending at point `end`.
  // Returns how far into `a` and `b` it reached.
  std::pair<size_t, size_t> Record(Span a, Span b, int64_t end) {
    struct Corner {
      int64_t x, y;
    };
    std::vector<Corner> path;  // from the end back to the start
    for (int64_t r = end; r != -1; r = At(static_cast<size_t>(r)).prev) {
      const int64_t x = At(static_cast<size_t>(r)).x;
      path.push_back({x, x + DiagonalOf(static_cast<size_t>(r))});
    }
    int64_t px = 0, py = 0;
    for (size_t i = path.size(); i-- > 0;) {
      const Corner& v = path[i];
      while (px < v.x || py < v.y) {
        if (v.y - v.x > py - px) {
          Change(swapped_ ? DiffRun::Kind::kRemoved : DiffRun::Kind::kAdded, b.data[py++]);
        } else if (v.y - v.x < py - px) {
          Change(swapped_ ? DiffRun::Kind::kAdded : DiffRun::Kind::kRemoved, a.data[px++]);
        } else {
          Flush();
          ops_.push_back({DiffRun::Kind::kSame, swapped_ ? b.data[py] : a.data[px]});
          ++px;
          ++py;
        }
      }
    }
    return {static_cast<size_t>(px), static_cast<size_t>(py)};
  }

  void Change(DiffRun::Kind kind, int word) {
    (kind == DiffRun::Kind::kRemoved ? removed_ : added_).push_back({kind, word});
  }
  // The change since the last unchanged word: its deletions, then its additions.
  void Flush() {
    ops_.insert(ops_.end(), removed_.begin(), removed_.end());
    ops_.insert(ops_.end(), added_.begin(), added_.end());
    removed_.clear();
    added_.clear();
  }

  const bool swapped_;
  int64_t offset_ = 0;
  std::vector<int64_t> path_;  // by diagonal: the index of its last point, or -1
  std::vector<std::unique_ptr<Point[]>> blocks_;
  size_t last_ = 0;                  // points used in the last block
  std::vector<size_t> round_start_;  // per round p of Compose(): its first point
  int64_t delta_ = 0;                // Compose()'s
  std::vector<Op> ops_, removed_, added_;
};

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

namespace {

// Where the span of a containment's diff begins and ends (indices of runs),
// or {1, 0} when no run matches.
std::pair<size_t, size_t> SpanBounds(const std::vector<DiffRun>& runs) {
  for (const uint64_t least : {kSpanAnchorWords, uint64_t{1}}) {
    size_t first = runs.size(), last = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      if (runs[i].kind != DiffRun::Kind::kSame || runs[i].words < least) continue;
      first = std::min(first, i);
      last = i;
    }
    if (first < runs.size()) return {first, last};
  }
  return {1, 0};
}

// The kind of span run that diff run `i` of `runs` is, for a span [first, last].
SpanRun::Kind SpanKind(DiffRun::Kind kind, bool inside) {
  if (kind == DiffRun::Kind::kAdded) return SpanRun::Kind::kContainedOnly;
  if (!inside) return SpanRun::Kind::kOutside;
  return kind == DiffRun::Kind::kSame ? SpanRun::Kind::kMatched : SpanRun::Kind::kContainerOnly;
}

// `runs` with each long kOutside and kMatched run folded, as FoldDiff folds.
std::vector<SpanRun> FoldSpan(std::vector<SpanRun> runs) {
  std::vector<SpanRun> out;
  out.reserve(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    SpanRun& run = runs[i];
    const bool first = i == 0;
    const bool last = i + 1 == runs.size();
    const uint64_t keep = (first ? 0 : kContextWords) + (last ? 0 : kContextWords);
    const bool foldable = run.kind == SpanRun::Kind::kOutside || run.kind == SpanRun::Kind::kMatched;
    if (!foldable || run.words < keep + kMinSkipped) {
      out.push_back(std::move(run));
      continue;
    }
    const SpanRun::Kind skipped =
        run.kind == SpanRun::Kind::kOutside ? SpanRun::Kind::kOutsideSkipped : SpanRun::Kind::kMatchedSkipped;
    if (!first) out.push_back({run.kind, std::string(FirstWords(run.text, kContextWords)), kContextWords});
    out.push_back({skipped, std::string(), run.words - keep});
    if (!last) out.push_back({run.kind, std::string(LastWords(run.text, kContextWords)), kContextWords});
  }
  return out;
}

}  // namespace

std::vector<SpanRun> MarkSpan(const std::vector<DiffRun>& runs) {
  const auto [first, last] = SpanBounds(runs);
  if (first > last) return {};
  std::vector<SpanRun> joined;
  for (size_t i = 0; i < runs.size(); ++i) {
    const SpanRun::Kind kind = SpanKind(runs[i].kind, i >= first && i <= last);
    if (!joined.empty() && joined.back().kind == kind) {
      joined.back().text += ' ';
      joined.back().text += runs[i].text;
      joined.back().words += runs[i].words;
    } else {
      joined.push_back({kind, runs[i].text, runs[i].words});
    }
  }
  return FoldSpan(std::move(joined));
}

DiffWords::DiffWords(std::string text) : text_(std::move(text)), slots_(64, kEmptySlot) {
  const char* const data = text_.data();
  const size_t size = text_.size();
  // A token text separates its words by ' ' only: then each word ends at
  // the next ' ', found by memchr, not byte by byte.
  const bool spaces_only = std::memchr(data, '\t', size) == nullptr && std::memchr(data, '\n', size) == nullptr &&
                           std::memchr(data, '\r', size) == nullptr;
  ids_.reserve(static_cast<size_t>(std::count(text_.begin(), text_.end(), ' ')) + 1);
  size_t i = 0;
  for (;;) {
    while (i < size && IsSpace(data[i])) ++i;
    if (i == size) break;
    const size_t start = i;
    if (spaces_only) {
      const void* end = std::memchr(data + i, ' ', size - i);
      i = end == nullptr ? size : static_cast<size_t>(static_cast<const char*>(end) - data);
    } else {
      while (i < size && !IsSpace(data[i])) ++i;
    }
    Add(start, i - start);
  }
}

void DiffWords::Add(size_t start, size_t size) {
  const std::string_view word(text_.data() + start, size);
  const uint64_t hash = HashBytes(word.data(), word.size(), 0);
  size_t at = SlotOf(word, hash);
  if (slots_[at] == kEmptySlot) {
    if (2 * (words_.size() + 1) > slots_.size()) {
      Grow();
      at = SlotOf(word, hash);
    }
    slots_[at] = (hash & kTagBits) | words_.size();
    words_.push_back({start, size, hash});
  }
  ids_.push_back(static_cast<uint32_t>(slots_[at]));
}

size_t DiffWords::SlotOf(std::string_view word, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  size_t at = hash & mask;
  for (; slots_[at] != kEmptySlot; at = (at + 1) & mask) {
    if ((slots_[at] & kTagBits) == (hash & kTagBits) && WordText(static_cast<uint32_t>(slots_[at])) == word) break;
  }
  return at;
}

void DiffWords::Grow() {
  slots_.assign(2 * slots_.size(), kEmptySlot);
  const size_t mask = slots_.size() - 1;
  for (size_t n = 0; n < words_.size(); ++n) {
    size_t at = words_[n].hash & mask;
    while (slots_[at] != kEmptySlot) at = (at + 1) & mask;
    slots_[at] = (words_[n].hash & kTagBits) | n;
  }
}

uint32_t DiffWords::Find(std::string_view word, uint64_t hash) const {
  const uint64_t slot = slots_.empty() ? kEmptySlot : slots_[SlotOf(word, hash)];
  return slot == kEmptySlot ? kNone : static_cast<uint32_t>(slot);
}

// The edit script of `a` into `b` (WordDiff's), each op's word numbered as
// WordOf() reads it: a's numbers, then b's words missing from a.
class WordDiffScript {
 public:
  WordDiffScript(const DiffWords& a, const DiffWords& b) : a_(a), b_(b), script_(Numbered(a, b, &a_words_)) {}

  const std::vector<EditScript::Op>& ops() const { return script_.ops(); }
  std::string_view WordOf(int elem) const {
    const auto number = static_cast<uint32_t>(elem);
    return number < a_words_ ? a_.WordText(number) : b_.WordText(number - a_words_);
  }

 private:
  // The diff compares integers: a's words keep their numbers, b's words
  // take a's number for the same word, and numbers after a's for the
  // others. Equal words get equal numbers and different words different
  // ones, as numbering both texts afresh would give, so the diff is the same.
  static EditScript Numbered(const DiffWords& a, const DiffWords& b, uint32_t* a_words) {
    *a_words = static_cast<uint32_t>(a.words_.size());
    std::vector<uint32_t> b_number(b.words_.size());
    for (size_t d = 0; d < b.words_.size(); ++d) {
      const uint32_t in_a =
          a.slots_.empty() ? DiffWords::kNone : a.Find(b.WordText(static_cast<uint32_t>(d)), b.words_[d].hash);
      b_number[d] = in_a != DiffWords::kNone ? in_a : *a_words + static_cast<uint32_t>(d);
    }
    const std::vector<int> sa(a.ids_.begin(), a.ids_.end());
    std::vector<int> sb;
    sb.reserve(b.ids_.size());
    for (const uint32_t id : b.ids_) sb.push_back(static_cast<int>(b_number[id]));
    return EditScript(sa, sb);
  }

  const DiffWords& a_;
  const DiffWords& b_;
  uint32_t a_words_ = 0;
  const EditScript script_;
};

std::vector<DiffRun> WordDiff(const DiffWords& a, const DiffWords& b) {
  const WordDiffScript script(a, b);
  std::vector<DiffRun> runs;
  for (const auto& [kind, elem] : script.ops()) {
    const std::string_view word = script.WordOf(elem);
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

std::vector<FoldedRun> FoldedWordDiff(const DiffWords& a, const DiffWords& b) {
  const WordDiffScript script(a, b);
  const std::vector<EditScript::Op>& ops = script.ops();
  // The words of ops [from, to) joined by single spaces.
  auto joined = [&](size_t from, size_t to) {
    std::string text;
    for (size_t i = from; i < to; ++i) {
      if (i > from) text.push_back(' ');
      text.append(script.WordOf(ops[i].word));
    }
    return text;
  };
  std::vector<FoldedRun> out;
  for (size_t begin = 0; begin < ops.size();) {
    size_t end = begin + 1;
    while (end < ops.size() && ops[end].kind == ops[begin].kind) ++end;
    const uint64_t words = end - begin;
    const bool first = begin == 0;
    const bool last = end == ops.size();
    // As FoldDiff folds the run of WordDiff, without joining the words left out.
    const uint64_t keep = (first ? 0 : kContextWords) + (last ? 0 : kContextWords);
    if (ops[begin].kind != DiffRun::Kind::kSame || words < keep + kMinSkipped) {
      out.push_back({FoldedKind(ops[begin].kind), joined(begin, end), words});
    } else {
      if (!first) out.push_back({FoldedRun::Kind::kSame, joined(begin, begin + kContextWords), kContextWords});
      out.push_back({FoldedRun::Kind::kSkipped, std::string(), words - keep});
      if (!last) out.push_back({FoldedRun::Kind::kSame, joined(end - kContextWords, end), kContextWords});
    }
    begin = end;
  }
  return out;
}

void WordCap::Add(std::string_view piece) {
  if (*capped_) return;
  if (full_) {
    *capped_ = piece.find_first_not_of(' ') != std::string_view::npos;
    return;
  }
  // Most pieces end before the cap: their words counted at once.
  const auto spaces = static_cast<uint64_t>(std::count(piece.begin(), piece.end(), ' '));
  if (words_ + spaces < max_) {
    words_ += spaces;
    text_->append(piece);
    return;
  }
  for (size_t i = 0; i < piece.size(); ++i) {
    if (piece[i] != ' ') continue;
    if (++words_ == max_) {
      text_->append(piece.substr(0, i + 1));
      // Capped only if anything but spaces follows (this piece's rest, or
      // a later piece).
      *capped_ = piece.find_first_not_of(' ', i + 1) != std::string_view::npos;
      full_ = true;
      return;
    }
  }
  text_->append(piece);
}

std::vector<DiffRun> WordDiff(std::string_view a, std::string_view b) {
  return WordDiff(DiffWords(std::string(a)), DiffWords(std::string(b)));
}

}  // namespace neardup
