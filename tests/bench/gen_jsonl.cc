// gen_jsonl: a large JSONL corpus of short documents with a stated number of
// near-duplicate groups, fast (scripts/bench.sh's "stages at scale" section).
//
//   build/gen_jsonl --docs 20000000 --dup-groups 100000 --files 4 --out /tmp/c
//   neardup scan --input jsonl /tmp/c      # finds the groups' pairs
//
// Output: DIR/part-00000.jsonl ... (--files F, the documents split evenly in
// order), one document a line: {"id":"d0000000000","text":"..."}, the id the
// document's index (10 digits). Each file is written under a temporary name
// and renamed when whole.
//
// Text: about --words W words (W-10 to W+10), pseudo-words of lowercase
// syllables drawn from a vocabulary of 50000 with Zipf frequencies (rank^-1,
// through a table of 2^18 entries: the rarest words fall out, about 20000
// are used), in sentences of 6 to 14 words, each capitalized and ending in
// a period. No character needs escaping in JSON.
//
// Near-duplicates: --dup-groups G groups of 1 + --copies C documents (C = 1
// by default): a source and C lightly edited copies of it (copy 1 and
// copies 4 and up: one word appended; copy 2: its last word replaced; copy
// 3: its last word removed). Every two members of a group share all their
// word 5-shingles but two or three (Jaccard >= 0.9 at 60 words), so the
// default -t 0.8 finds every pair of a group: G * C * (C + 1) / 2 pairs.
// The members are one document in --dup-every K (10 by default) from the
// start: document i is member i / K of the groups when i % K == 0 and
// i / K < G * (1 + C). Every other document is unique.
//
// Determinism: document i's text is a function of (seed, i) alone, a
// member's of (seed, its group, its copy number); so with the same --seed,
// --dup-groups, --copies, --dup-every and --words, the corpus of D documents
// is the first D documents of any larger one (the same duplicates, the extra
// documents unique), whatever --files and -j. Our own splitmix64 streams
// (tests/bench/text_gen.h's Rng); no std::*_distribution.
//
// Speed: threads (-j, default all cores) fill blocks of 16384 documents, and
// the blocks are written in order. 20M documents (6.6 GB) took 14.2 s on
// two cores, at a peak of 19 MB.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "text_gen.h"

namespace {

using neardup_bench::Rng;

constexpr size_t kVocabulary = 50000;
constexpr int kTableBits = 18;
constexpr uint64_t kBlockDocs = 16384;

struct Params {
  uint64_t docs = 0;
  uint64_t dup_groups = 0;
  uint64_t copies = 1;
  uint64_t dup_every = 10;
  uint64_t words = 60;
  uint64_t seed = 42;
  uint64_t files = 1;
  unsigned threads = 0;
  std::string out;
};

uint64_t Mix(uint64_t a, uint64_t b) { return Rng(a * 0x9e3779b97f4a7c15ULL ^ Rng(b).Next()).Next(); }

// The vocabulary: words of one to four syllables, frequent ranks short;
// each stored in 16 bytes (length in the last) for a fixed-size copy.
class Vocabulary {
 public:
  Vocabulary() : words_(kVocabulary), table_(size_t{1} << kTableBits) {
    static const char* const kOnsets[] = {"b",  "c",  "d",  "f",  "g",  "h",  "j",  "k",  "l",  "m",
                                          "n",  "p",  "r",  "s",  "t",  "v",  "w",  "st", "tr", "pr",
                                          "ch", "sh", "th", "br", "cl", "gr", "pl", "z"};
    static const char* const kVowels[] = {"a", "e", "i", "o", "u", "ea", "ou", "ai", "ee", "io"};
    static const char* const kCodas[] = {"", "", "", "n", "r", "s", "t", "l", "nd", "st", "ng", "rt"};
    Rng rng(0x766f636162);
    for (size_t rank = 0; rank < kVocabulary; ++rank) {
      const uint64_t syllables = 1 + rng.Below(rank < 1000 ? 1 : 2);
      std::string w;
      for (uint64_t s = 0; s < syllables; ++s) {
        w += kOnsets[rng.Below(std::size(kOnsets))];
        w += kVowels[rng.Below(std::size(kVowels))];
      }
      if (rank >= 100) w += kCodas[rng.Below(std::size(kCodas))];
      w.resize(std::min<size_t>(w.size(), 15));
      std::memcpy(words_[rank].bytes, w.data(), w.size());
      words_[rank].bytes[15] = static_cast<char>(w.size());
    }
    // Inverse CDF of rank^-1 at the middle of each table slot.
    std::vector<double> cdf(kVocabulary);
    double sum = 0;
    for (size_t r = 0; r < kVocabulary; ++r) cdf[r] = sum += 1.0 / static_cast<double>(r + 1);
    for (size_t k = 0; k < table_.size(); ++k) {
      const double u = (static_cast<double>(k) + 0.5) / static_cast<double>(table_.size()) * sum;
      table_[k] = static_cast<uint16_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    }
  }
  uint16_t Draw(Rng& rng) const { return table_[rng.Next() >> (64 - kTableBits)]; }
  // Appends word `w` at `at` (16 bytes of room), capitalized when asked;
  // returns the new end.
  char* Put(char* at, uint16_t w, bool capital) const {
    std::memcpy(at, words_[w].bytes, 16);
    if (capital) at[0] = static_cast<char>(at[0] - 'a' + 'A');
    return at + words_[w].bytes[15];
  }

 private:
  struct Word {
    char bytes[16] = {};
  };
  std::vector<Word> words_;
  std::vector<uint16_t> table_;
};

// A document's words, drawn from `rng`.
std::vector<uint16_t> DrawWords(const Vocabulary& v, Rng& rng, uint64_t mean) {
  const uint64_t n = mean - std::min<uint64_t>(mean - 1, 10) + rng.Below(21);
  std::vector<uint16_t> words(n);
  for (uint16_t& w : words) w = v.Draw(rng);
  return words;
}

// Document i's words: unique, or a group member (source or edited copy).
std::vector<uint16_t> DocumentWords(const Vocabulary& v, const Params& p, uint64_t i) {
  const uint64_t member = i / p.dup_every;
  if (i % p.dup_every != 0 || member >= p.dup_groups * (1 + p.copies)) {
    Rng rng(Mix(p.seed, i));
    return DrawWords(v, rng, p.words);
  }
  const uint64_t group = member / (1 + p.copies), copy = member % (1 + p.copies);
  Rng rng(Mix(p.seed ^ 0x67726f7570ULL, group));
  std::vector<uint16_t> words = DrawWords(v, rng, p.words);
  Rng edit(Mix(Mix(p.seed, group), copy));
  if (copy == 2) {
    words.back() = static_cast<uint16_t>((words.back() + 1 + edit.Below(kVocabulary - 1)) % kVocabulary);
  } else if (copy == 3) {
    words.pop_back();
  } else if (copy != 0) {
    words.push_back(static_cast<uint16_t>(edit.Below(kVocabulary)));
  }
  return words;
}

// Appends document i's JSON line to `out`.
void AppendDocument(const Vocabulary& v, const Params& p, uint64_t i, std::string& out) {
  const std::vector<uint16_t> words = DocumentWords(v, p, i);
  const size_t at = out.size();
  out.resize(at + 32 + words.size() * 17 + 4);
  char* w = out.data() + at;
  w += std::snprintf(w, 32, "{\"id\":\"d%010llu\",\"text\":\"", static_cast<unsigned long long>(i));
  Rng shape(Mix(p.seed ^ 0x73656e74ULL, i));
  uint64_t left = 0;  // words left in the sentence
  for (size_t k = 0; k < words.size(); ++k) {
    const bool first = left == 0;
    if (first) left = 6 + shape.Below(9);
    w = v.Put(w, words[k], first);
    --left;
    if (left == 0 || k + 1 == words.size()) *w++ = '.';
    if (k + 1 < words.size()) *w++ = ' ';
  }
  std::memcpy(w, "\"}\n", 3);
  out.resize(static_cast<size_t>(w + 3 - out.data()));
}

bool WriteAll(int fd, const std::string& bytes) {
  for (size_t at = 0; at < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + at, bytes.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += static_cast<size_t>(n);
  }
  return true;
}

std::string PartName(const Params& p, uint64_t f) {
  char name[32];
  std::snprintf(name, sizeof name, "part-%05llu.jsonl", static_cast<unsigned long long>(f));
  return p.out + "/" + name;
}

// Writes every file: blocks of documents made by the threads, written in
// order. False (with a message on stderr) on a write error.
bool Generate(const Params& p) {
  const Vocabulary vocabulary;
  struct Block {
    uint64_t file, first, last;
  };
  std::vector<Block> blocks;
  for (uint64_t f = 0; f < p.files; ++f) {
    const uint64_t first = f * p.docs / p.files, last = (f + 1) * p.docs / p.files;
    for (uint64_t b = first; b < last; b += kBlockDocs) blocks.push_back({f, b, std::min(last, b + kBlockDocs)});
  }
  std::vector<int> fds(p.files, -1);
  for (uint64_t f = 0; f < p.files; ++f) {
    fds[f] = ::open((PartName(p, f) + ".tmp").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fds[f] < 0)
      return std::fprintf(stderr, "gen_jsonl: %s: %s\n", PartName(p, f).c_str(), std::strerror(errno)), false;
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mu;
  std::condition_variable turn_changed;
  size_t turn = 0;
  auto work = [&] {
    std::string buffer;
    for (size_t b; (b = next++) < blocks.size();) {
      buffer.clear();
      for (uint64_t i = blocks[b].first; i < blocks[b].last; ++i) AppendDocument(vocabulary, p, i, buffer);
      std::unique_lock<std::mutex> lock(mu);
      turn_changed.wait(lock, [&] { return turn == b; });
      if (!WriteAll(fds[blocks[b].file], buffer)) failed = true;
      ++turn;
      turn_changed.notify_all();
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < p.threads; ++t) threads.emplace_back(work);
  for (std::thread& t : threads) t.join();
  for (uint64_t f = 0; f < p.files; ++f) {
    if (::close(fds[f]) != 0) failed = true;
    if (!failed && std::rename((PartName(p, f) + ".tmp").c_str(), PartName(p, f).c_str()) != 0) failed = true;
  }
  if (failed) std::fprintf(stderr, "gen_jsonl: cannot write %s: %s\n", p.out.c_str(), std::strerror(errno));
  return !failed;
}

constexpr const char* kUsage =
    "usage: gen_jsonl --docs D --out DIR [--dup-groups G] [--copies C] [--dup-every K]\n"
    "                 [--words W] [--seed S] [--files F] [-j THREADS]\n"
    "  D documents of about W (60) words as JSONL in F (1) files DIR/part-NNNNN.jsonl;\n"
    "  G (0) groups of a source and C (1) edited copies, one document in K (10)\n"
    "  from the start; same S (42), G, C, K, W: a smaller corpus is a prefix of a larger.\n";

bool ParseNumber(const char* text, uint64_t* value) {
  char* end = nullptr;
  errno = 0;
  *value = std::strtoull(text, &end, 10);
  return errno == 0 && end != text && *end == '\0' && text[0] != '-';
}

// Parses argv into *p; false (usage on stderr) on a bad argument.
bool ParseArgs(int argc, char** argv, Params* p) {
  for (int k = 1; k < argc; ++k) {
    const std::string flag = argv[k];
    if (flag == "-h" || flag == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (k + 1 >= argc) return std::fputs(kUsage, stderr), false;
    const char* value = argv[++k];
    uint64_t n = 0;
    if (flag == "--out") {
      p->out = value;
      continue;
    }
    if (!ParseNumber(value, &n))
      return std::fprintf(stderr, "gen_jsonl: %s: not a number: %s\n", flag.c_str(), value), false;
    if (flag == "--docs")
      p->docs = n;
    else if (flag == "--dup-groups")
      p->dup_groups = n;
    else if (flag == "--copies")
      p->copies = n;
    else if (flag == "--dup-every")
      p->dup_every = n;
    else if (flag == "--words")
      p->words = n;
    else if (flag == "--seed")
      p->seed = n;
    else if (flag == "--files")
      p->files = n;
    else if (flag == "-j")
      p->threads = static_cast<unsigned>(n);
    else
      return std::fprintf(stderr, "gen_jsonl: unknown option %s\n%s", flag.c_str(), kUsage), false;
  }
  if (p->out.empty() || p->docs == 0 || p->files == 0 || p->copies == 0 || p->dup_every == 0 || p->words < 6) {
    return std::fputs(kUsage, stderr), false;
  }
  if (p->dup_groups > 0 && (p->dup_groups * (1 + p->copies) - 1) * p->dup_every >= p->docs) {
    std::fprintf(stderr, "gen_jsonl: %llu groups of %llu do not fit in %llu documents at one in %llu\n",
                 static_cast<unsigned long long>(p->dup_groups), static_cast<unsigned long long>(1 + p->copies),
                 static_cast<unsigned long long>(p->docs), static_cast<unsigned long long>(p->dup_every));
    return false;
  }
  if (p->threads == 0) p->threads = std::max(1u, std::thread::hardware_concurrency());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Params p;
  if (!ParseArgs(argc, argv, &p)) return 2;
  std::error_code ec;
  std::filesystem::create_directories(p.out, ec);
  if (ec) return std::fprintf(stderr, "gen_jsonl: %s: %s\n", p.out.c_str(), ec.message().c_str()), 2;
  return Generate(p) ? 0 : 2;
}
