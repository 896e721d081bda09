// gen_corpus: a deterministic synthetic corpus with planted near-duplicates.
//
// Writes N plain-text documents of Zipf-distributed pseudo-words, a share of
// which are edited copies of other documents, and a truth file listing every
// planted pair with the exact Jaccard similarity of its word 5-shingle sets.
// It is the input of scripts/bench.sh (zstd's datagen plays the same part).
//
//   scripts/gen_corpus --docs 100000 --out /tmp/corpus --seed 7
//   neardup scan --exact /tmp/corpus   # compare with /tmp/corpus/truth.tsv
//
// Layout: DIR/d0000/doc0000000.txt, 1000 files per directory (names are
// zero-padded, so byte order is numeric order). DIR/.gen_corpus records the
// parameters; it is hidden, so neardup skips it.
//
// Text: a vocabulary of pseudo-words built from syllables (lowercase ASCII;
// frequent words are short; a few are numbers, a few are capitalized names),
// drawn with Zipf frequencies (rank^-s); sentences of 4-23 words with a
// capitalized first word, commas and . ? !; paragraphs separated by a blank
// line; lines wrapped at 72 columns.
//
// Near-duplicates: round(dup_share * N) documents are copies of as many other,
// distinct documents (a source is never itself a copy and is copied once, so
// planted pairs never chain). Each copy gets one rate from --edit-rates, in
// turn; at rate r each word is, with probability r, replaced by a new word,
// followed by an inserted word, or deleted (one third each).
//
// Truth: one line per planted pair, sorted, no header:
//   a <TAB> b <TAB> edit_rate <TAB> jaccard
// a and b are DIR joined with the path below it, as `neardup scan DIR` prints
// them, with a < b in byte order; edit_rate is written as given on the command
// line; jaccard is exact, with 6 decimals, over the sets of word 5-shingles
// computed from the written text with neardup's word rules (lowercase; a word
// is a maximal run of letters, digits and '_'; a document of fewer than 5
// words has one shingle). Shingles are 64-bit hashes; a collision is
// negligible at these sizes.
//
// Determinism: same arguments (thread count aside) give identical bytes. All
// randomness comes from our own splitmix64/xoshiro256** streams, each
// document's from (seed, index) alone; std::*_distribution is not used, since
// its output differs between standard libraries. The one floating-point step
// whose last bit could differ between C libraries is the std::pow() in the
// Zipf table.
//
// C++17, standard library only. Build: g++ -O2 -std=c++17 -pthread.

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr int kShingleWords = 5;
constexpr size_t kLineWidth = 72;
constexpr const char* kStampName = ".gen_corpus";
constexpr const char* kStampVersion = "gen_corpus 1";

// ---------------------------------------------------------------------------
// Random numbers and hashing.

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Murmur3's 64-bit finalizer: a bijective mixer.
uint64_t Fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

// Seed of an independent stream: (seed, index, stream) -> 64 bits.
uint64_t StreamSeed(uint64_t seed, uint64_t index, uint64_t stream) {
  return Fmix64(Fmix64(seed ^ 0x6a09e667f3bcc909ULL) + Fmix64(index * 4 + stream + 1));
}

// xoshiro256** (Blackman and Vigna), seeded through splitmix64.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& word : s_) word = SplitMix64(&seed);
  }
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n), n < 2^32 (Lemire's multiply-shift; bias < n / 2^32).
  uint32_t Below(uint32_t n) {
    return static_cast<uint32_t>(((Next() >> 32) * n) >> 32);
  }
  // Uniform in [0, 1) with 53 bits.
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  bool Chance(double p) { return Unit() < p; }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// ---------------------------------------------------------------------------
// Options.

struct Options {
  uint64_t docs = 1000;
  std::string out;
  uint64_t seed = 1;
  double dup_share = 0.1;
  std::vector<std::string> edit_rate_text = {"0.0", "0.01", "0.03", "0.05", "0.1", "0.2"};
  std::vector<double> edit_rates = {0.0, 0.01, 0.03, 0.05, 0.1, 0.2};
  uint32_t words_mean = 500;
  uint32_t vocab = 50000;
  double zipf = 1.0;
  uint32_t files_per_dir = 1000;
  unsigned threads = 0;
  std::string truth;
  bool quiet = false;
};

const char kUsage[] =
    "usage: gen_corpus --out DIR [options]\n"
    "Writes a synthetic corpus with planted near-duplicates and their truth file.\n"
    "\n"
    "  --docs N             documents to write (default 1000)\n"
    "  --out DIR            output directory (created; must be empty or our own)\n"
    "  --seed S             random seed (default 1); same seed, same bytes\n"
    "  --dup-share F        share of documents that are edited copies of another\n"
    "                       document, 0 <= F <= 0.5 (default 0.1)\n"
    "  --edit-rates LIST    comma list of word-edit rates in [0, 1], given to the\n"
    "                       copies in turn (default 0.0,0.01,0.03,0.05,0.1,0.2)\n"
    "  --words-mean M       mean words per document; lengths are uniform in\n"
    "                       [M/2, 3M/2] (default 500, about 3 KB)\n"
    "  --vocab V            vocabulary size (default 50000)\n"
    "  --zipf S             Zipf exponent of word frequencies (default 1.0)\n"
    "  --files-per-dir N    files per subdirectory (default 1000)\n"
    "  --truth FILE         truth file (default DIR/truth.tsv)\n"
    "  --threads N          worker threads (default: all cores); output does not\n"
    "                       depend on it\n"
    "  -q, --quiet          no summary on stderr\n"
    "  -h, --help           this text\n"
    "\n"
    "Truth file: one line per planted pair, sorted, no header:\n"
    "  a<TAB>b<TAB>edit_rate<TAB>jaccard\n"
    "with a < b the paths as `neardup scan DIR` prints them and jaccard the exact\n"
    "Jaccard similarity of their word 5-shingle sets.\n";

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "gen_corpus: %s\n", message.c_str());
  std::exit(2);
}

uint64_t ParseUint(const std::string& flag, const std::string& text, uint64_t max) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || errno != 0 || value > max) {
    Die(flag + ": expected an integer in [0, " + std::to_string(max) + "], got '" + text + "'");
  }
  return value;
}

double ParseDouble(const std::string& flag, const std::string& text, double lo, double hi) {
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !(value >= lo && value <= hi)) {
    std::ostringstream msg;
    msg << flag << ": expected a number in [" << lo << ", " << hi << "], got '" << text << "'";
    Die(msg.str());
  }
  return value;
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  bool truth_set = false;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    std::string value;
    bool has_inline = false;
    if (flag.rfind("--", 0) == 0) {
      const size_t eq = flag.find('=');
      if (eq != std::string::npos) {
        value = flag.substr(eq + 1);
        flag = flag.substr(0, eq);
        has_inline = true;
      }
    }
    if (flag == "-h" || flag == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (flag == "-q" || flag == "--quiet") {
      o.quiet = true;
      continue;
    }
    if (!has_inline) {
      if (i + 1 >= argc) Die(flag + ": missing value (see --help)");
      value = argv[++i];
    }
    if (flag == "--docs") {
      o.docs = ParseUint(flag, value, 100000000);
    } else if (flag == "--out") {
      o.out = value;
    } else if (flag == "--seed") {
      o.seed = ParseUint(flag, value, UINT64_MAX);
    } else if (flag == "--dup-share") {
      o.dup_share = ParseDouble(flag, value, 0.0, 0.5);
    } else if (flag == "--edit-rates") {
      o.edit_rate_text.clear();
      o.edit_rates.clear();
      std::stringstream list(value);
      std::string item;
      while (std::getline(list, item, ',')) {
        o.edit_rates.push_back(ParseDouble(flag, item, 0.0, 1.0));
        o.edit_rate_text.push_back(item);
      }
      if (o.edit_rates.empty()) Die(flag + ": empty list");
    } else if (flag == "--words-mean") {
      o.words_mean = static_cast<uint32_t>(ParseUint(flag, value, 1000000));
      if (o.words_mean == 0) Die(flag + ": must be at least 1");
    } else if (flag == "--vocab") {
      o.vocab = static_cast<uint32_t>(ParseUint(flag, value, 1000000));
      if (o.vocab < 100) Die(flag + ": must be at least 100");
    } else if (flag == "--zipf") {
      o.zipf = ParseDouble(flag, value, 0.0, 3.0);
    } else if (flag == "--files-per-dir") {
      o.files_per_dir = static_cast<uint32_t>(ParseUint(flag, value, 10000000));
      if (o.files_per_dir == 0) Die(flag + ": must be at least 1");
    } else if (flag == "--truth") {
      o.truth = value;
      truth_set = true;
    } else if (flag == "--threads") {
      o.threads = static_cast<unsigned>(ParseUint(flag, value, 1024));
    } else {
      Die("unknown option '" + flag + "' (see --help)");
    }
  }
  if (o.out.empty()) Die("--out DIR is required (see --help)");
  // Paths are written as `find DIR` would: DIR without its trailing slashes.
  while (o.out.size() > 1 && o.out.back() == '/') o.out.pop_back();
  if (!truth_set) o.truth = o.out + "/truth.tsv";
  if (o.threads == 0) o.threads = std::max(1u, std::thread::hardware_concurrency());
  return o;
}

// The parameters that decide the output, as written to DIR/.gen_corpus.
std::string StampText(const Options& o) {
  std::ostringstream s;
  s << kStampVersion << "\n"
    << "docs " << o.docs << "\nseed " << o.seed << "\ndup-share " << o.dup_share
    << "\nedit-rates ";
  for (size_t i = 0; i < o.edit_rate_text.size(); ++i) {
    s << (i ? "," : "") << o.edit_rate_text[i];
  }
  s << "\nwords-mean " << o.words_mean << "\nvocab " << o.vocab << "\nzipf " << o.zipf
    << "\nfiles-per-dir " << o.files_per_dir << "\n";
  return s.str();
}

// ---------------------------------------------------------------------------
// Vocabulary and Zipf sampling.

struct Vocabulary {
  std::vector<std::string> words;  // by rank, 0 = most frequent; lowercase
  std::vector<uint8_t> is_name;    // capitalized wherever it appears
  // Vose's alias table, in integers: column c is kept when the low 32 bits of
  // a draw are below keep[c] (2^32 = always), else alias[c] is taken.
  std::vector<uint64_t> keep;
  std::vector<uint32_t> alias;

  uint32_t Sample(Rng& rng) const {
    const uint64_t x = rng.Next();
    const auto column = static_cast<uint32_t>(((x >> 32) * words.size()) >> 32);
    return (x & 0xffffffffULL) < keep[column] ? column : alias[column];
  }
};

const char* const kOnsets[] = {"",   "",   "b",  "c",  "d",  "f",  "g",  "h",  "j",  "k",
                               "l",  "m",  "n",  "p",  "r",  "s",  "t",  "v",  "w",  "z",
                               "br", "ch", "cl", "cr", "dr", "fl", "fr", "gl", "gr", "pl",
                               "pr", "sh", "sl", "sp", "st", "th", "tr", "wh", "qu", "sc"};
const char* const kVowels[] = {"a", "e", "i", "o", "u", "a", "e", "i", "o",
                               "ai", "ea", "ee", "ie", "oa", "ou", "oo", "y"};
const char* const kCodas[] = {"", "", "", "", "", "n", "r", "s", "t", "l", "m", "nd",
                              "st", "ng", "ck", "rt", "ld", "x", "sh", "th"};

template <size_t N>
const char* Pick(Rng& rng, const char* const (&table)[N]) {
  return table[rng.Below(static_cast<uint32_t>(N))];
}

Vocabulary BuildVocabulary(const Options& o) {
  Rng rng(StreamSeed(o.seed, 0, 3));
  Vocabulary v;
  v.words.reserve(o.vocab);
  v.is_name.reserve(o.vocab);
  std::unordered_set<std::string> seen;
  for (uint32_t rank = 0; rank < o.vocab; ++rank) {
    // Frequent words are short (Zipf's law of abbreviation).
    uint32_t min_syl = 1, max_syl = 1;
    if (rank >= 60) max_syl = 2;
    if (rank >= 3000) min_syl = 2;
    if (rank >= 20000) max_syl = 3;
    const bool number = rank >= 100 && rng.Below(250) == 0;
    const bool name = !number && rank >= 300 && rng.Below(40) == 0;
    for (int attempt = 0;; ++attempt) {
      std::string w;
      if (number) {
        w = rng.Below(2) ? std::to_string(1800 + rng.Below(230))
                         : std::to_string(rng.Below(attempt < 50 ? 1000 : 1000000));
      } else {
        // Rare words get extra syllables when short forms run out.
        const uint32_t syllables = min_syl + rng.Below(max_syl - min_syl + 1) + attempt / 20;
        for (uint32_t s = 0; s < syllables; ++s) {
          if (rank < 300 && attempt < 40) {  // the commonest words: "ta", "en", "mor"
            w += kOnsets[rng.Below(20)];       // "", "", or one consonant
            w += kVowels[rng.Below(9)];        // one vowel
            if (rng.Below(2)) w += kCodas[rng.Below(15)];
            continue;
          }
          w += Pick(rng, kOnsets);
          w += Pick(rng, kVowels);
          if (s + 1 == syllables || rng.Below(4) == 0) w += Pick(rng, kCodas);
        }
      }
      if (seen.insert(w).second) {
        v.words.push_back(std::move(w));
        v.is_name.push_back(name ? 1 : 0);
        break;
      }
    }
  }

  // Zipf weights and Vose's alias method.
  const size_t n = o.vocab;
  std::vector<double> p(n);
  double total = 0;
  for (size_t r = 0; r < n; ++r) total += p[r] = 1.0 / std::pow(static_cast<double>(r + 1), o.zipf);
  std::vector<uint32_t> small, large;
  for (size_t r = 0; r < n; ++r) {
    p[r] = p[r] / total * static_cast<double>(n);
    (p[r] < 1.0 ? small : large).push_back(static_cast<uint32_t>(r));
  }
  v.keep.assign(n, uint64_t{1} << 32);
  v.alias.resize(n);
  for (size_t r = 0; r < n; ++r) v.alias[r] = static_cast<uint32_t>(r);
  while (!small.empty() && !large.empty()) {
    const uint32_t s = small.back(), l = large.back();
    small.pop_back();
    v.keep[s] = static_cast<uint64_t>(p[s] * 4294967296.0);
    v.alias[s] = l;
    p[l] -= 1.0 - p[s];
    if (p[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  return v;  // columns left in either list keep probability 1 (rounding)
}

// ---------------------------------------------------------------------------
// Documents: a token list, edited, then rendered as text.

enum Punct : uint8_t { kNone = 0, kComma, kSemicolon, kPeriod, kQuestion, kBang };
bool EndsSentence(uint8_t punct) { return punct >= kPeriod; }
constexpr char kPunctChar[] = {0, ',', ';', '.', '?', '!'};

struct Token {
  uint32_t word;          // vocabulary rank
  uint8_t punct;          // Punct after the word
  bool paragraph_end;     // a blank line follows
};

void GenerateBase(const Options& o, const Vocabulary& v, uint64_t index, std::vector<Token>* doc) {
  Rng rng(StreamSeed(o.seed, index, 0));
  doc->clear();
  const uint32_t length = std::max<uint32_t>(1, o.words_mean / 2 + rng.Below(o.words_mean + 1));
  while (doc->size() < length) {
    const uint32_t sentence = 4 + rng.Below(20);
    for (uint32_t w = 0; w < sentence && doc->size() < length; ++w) {
      Token t{v.Sample(rng), kNone, false};
      if (w + 1 < sentence && rng.Below(100) < 7) t.punct = rng.Below(8) ? kComma : kSemicolon;
      doc->push_back(t);
    }
    const uint32_t end = rng.Below(100);
    doc->back().punct = end < 90 ? kPeriod : end < 96 ? kQuestion : kBang;
    doc->back().paragraph_end = rng.Below(100) < 20;
  }
  doc->back().punct = kPeriod;
  doc->back().paragraph_end = true;
}

// Replaces, inserts after, or deletes each word with probability `rate`.
void ApplyEdits(const Vocabulary& v, double rate, Rng& rng, const std::vector<Token>& in,
                std::vector<Token>* out) {
  out->clear();
  for (const Token& t : in) {
    if (!rng.Chance(rate)) {
      out->push_back(t);
      continue;
    }
    switch (rng.Below(3)) {
      case 0:  // replace
        out->push_back({v.Sample(rng), t.punct, t.paragraph_end});
        break;
      case 1:  // insert a word after this one
        out->push_back(t);
        out->push_back({v.Sample(rng), kNone, false});
        break;
      default:  // delete; a sentence or paragraph end moves to the word before
        if (!out->empty()) {
          if (EndsSentence(t.punct) || !EndsSentence(out->back().punct)) {
            out->back().punct = std::max(out->back().punct, t.punct);
          }
          out->back().paragraph_end = out->back().paragraph_end || t.paragraph_end;
        }
        break;
    }
  }
  if (out->empty()) out->push_back(in.front());
  out->back().punct = kPeriod;
  out->back().paragraph_end = true;
}

void Render(const Vocabulary& v, const std::vector<Token>& doc, std::string* text) {
  text->clear();
  size_t column = 0;
  bool capitalize = true;
  for (size_t i = 0; i < doc.size(); ++i) {
    const Token& t = doc[i];
    const std::string& w = v.words[t.word];
    const size_t piece = w.size() + (t.punct ? 1 : 0);
    if (column > 0) {
      if (column + 1 + piece > kLineWidth) {
        *text += '\n';
        column = 0;
      } else {
        *text += ' ';
        ++column;
      }
    }
    const size_t start = text->size();
    *text += w;
    if (capitalize || v.is_name[t.word]) {
      char& c = (*text)[start];
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    if (t.punct) *text += kPunctChar[t.punct];
    column += piece;
    capitalize = EndsSentence(t.punct);
    if (t.paragraph_end) {
      *text += (i + 1 < doc.size()) ? "\n\n" : "\n";
      column = 0;
    }
  }
}

// ---------------------------------------------------------------------------
// Exact Jaccard of word 5-shingle sets, with neardup's word rules (ASCII).

bool IsWordByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

void ShingleSet(const std::string& text, std::vector<uint64_t>* token_hashes,
                std::vector<uint64_t>* shingles) {
  token_hashes->clear();
  shingles->clear();
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the lowercased word
  bool in_word = false;
  for (size_t i = 0; i <= text.size(); ++i) {
    const unsigned char c = i < text.size() ? static_cast<unsigned char>(text[i]) : ' ';
    if (IsWordByte(c)) {
      h = (h ^ static_cast<unsigned char>(c >= 'A' && c <= 'Z' ? c + 32 : c)) * 0x100000001b3ULL;
      in_word = true;
    } else if (in_word) {
      token_hashes->push_back(Fmix64(h));
      h = 0xcbf29ce484222325ULL;
      in_word = false;
    }
  }
  const size_t n = token_hashes->size();
  const size_t k = std::min<size_t>(kShingleWords, n);
  for (size_t i = 0; k > 0 && i + k <= n; ++i) {
    uint64_t s = 0;
    for (size_t j = 0; j < k; ++j) s = Fmix64(s ^ ((*token_hashes)[i + j] + 0x9e3779b97f4a7c15ULL * (j + 1)));
    shingles->push_back(s);
  }
  std::sort(shingles->begin(), shingles->end());
  shingles->erase(std::unique(shingles->begin(), shingles->end()), shingles->end());
}

double Jaccard(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  size_t i = 0, j = 0, common = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] < b[j]) {
      ++i;
    } else if (b[j] < a[i]) {
      ++j;
    } else {
      ++common, ++i, ++j;
    }
  }
  const size_t uni = a.size() + b.size() - common;
  return uni == 0 ? 1.0 : static_cast<double>(common) / static_cast<double>(uni);
}

// ---------------------------------------------------------------------------
// Layout and the plan of planted pairs.

int Digits(uint64_t n) {
  int d = 1;
  while (n >= 10) n /= 10, ++d;
  return d;
}

struct Layout {
  std::string root;
  uint32_t per_dir;
  int dir_width, doc_width;

  std::string DirName(uint64_t dir) const {
    std::string s = std::to_string(dir);
    return "d" + std::string(dir_width - std::min<int>(dir_width, static_cast<int>(s.size())), '0') + s;
  }
  std::string DirPath(uint64_t dir) const { return root + "/" + DirName(dir); }
  std::string DocPath(uint64_t doc) const {
    std::string s = std::to_string(doc);
    return DirPath(doc / per_dir) + "/doc" +
           std::string(doc_width - std::min<int>(doc_width, static_cast<int>(s.size())), '0') + s +
           ".txt";
  }
};

struct Pair {
  uint32_t copy, source, rate;  // rate: index into Options::edit_rates
  double jaccard;
};

// Picks the copies and their sources: a seeded shuffle; the first D indices
// are copies, the next D their sources.
std::vector<Pair> PlanPairs(const Options& o) {
  const uint64_t d = static_cast<uint64_t>(std::llround(o.dup_share * static_cast<double>(o.docs)));
  std::vector<uint32_t> perm(o.docs);
  for (uint32_t i = 0; i < perm.size(); ++i) perm[i] = i;
  Rng rng(StreamSeed(o.seed, 0, 2));
  for (size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[rng.Below(static_cast<uint32_t>(i))]);
  std::vector<Pair> pairs(std::min<uint64_t>(d, o.docs / 2));
  for (uint32_t k = 0; k < pairs.size(); ++k) {
    pairs[k] = {perm[k], perm[pairs.size() + k], static_cast<uint32_t>(k % o.edit_rates.size()), 0.0};
  }
  return pairs;
}

// ---------------------------------------------------------------------------
// Output directory: created, or emptied of what an earlier run of ours wrote.

void PrepareOutDir(const Options& o) {
  std::error_code ec;
  const fs::path root(o.out);
  if (!fs::exists(root, ec)) {
    fs::create_directories(root, ec);
    if (ec) Die(o.out + ": cannot create: " + ec.message());
    return;
  }
  if (!fs::is_directory(root, ec)) Die(o.out + ": not a directory");
  bool ours = fs::exists(root / kStampName, ec);
  bool empty = true;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    (void)entry;
    empty = false;
    break;
  }
  if (ec) Die(o.out + ": cannot list: " + ec.message());
  if (empty) return;
  if (!ours) Die(o.out + ": exists, is not empty and was not written by gen_corpus; remove it first");
  // Ours: remove our subdirectories d<digits>, the stamp and the default truth file.
  std::vector<fs::path> doomed;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    const bool dir_name = name.size() > 1 && name[0] == 'd' &&
                          name.find_first_not_of("0123456789", 1) == std::string::npos;
    if ((dir_name && entry.is_directory(ec)) || name == kStampName || name == "truth.tsv") {
      doomed.push_back(entry.path());
    }
  }
  for (const auto& p : doomed) {
    fs::remove_all(p, ec);
    if (ec) Die(p.string() + ": cannot remove: " + ec.message());
  }
}

// ---------------------------------------------------------------------------

struct Shared {
  const Options* o;
  const Vocabulary* v;
  const Layout* layout;
  std::vector<Pair>* pairs;
  std::vector<int32_t> pair_of_copy;  // docs -> index in pairs, or -1
  std::atomic<uint64_t> next_dir{0};
  std::atomic<uint64_t> bytes{0};
  std::mutex error_mutex;
  std::string error;
  std::atomic<bool> failed{false};

  void Fail(const std::string& message) {
    std::lock_guard<std::mutex> lock(error_mutex);
    if (error.empty()) error = message;
    failed = true;
  }
};

void Worker(Shared* sh) {
  const Options& o = *sh->o;
  const Vocabulary& v = *sh->v;
  std::vector<Token> base, edited, source_tokens;
  std::vector<uint64_t> scratch, copy_shingles, source_shingles;
  std::string text, source_text;
  const uint64_t dirs = (o.docs + o.files_per_dir - 1) / o.files_per_dir;
  uint64_t bytes = 0;
  for (;;) {
    const uint64_t dir = sh->next_dir.fetch_add(1);
    if (dir >= dirs || sh->failed) break;
    std::error_code ec;
    const std::string dir_path = sh->layout->DirPath(dir);
    fs::create_directory(dir_path, ec);
    if (ec) {
      sh->Fail(dir_path + ": cannot create: " + ec.message());
      break;
    }
    const uint64_t end = std::min<uint64_t>(o.docs, (dir + 1) * o.files_per_dir);
    for (uint64_t i = dir * o.files_per_dir; i < end; ++i) {
      const int32_t k = sh->pair_of_copy[i];
      if (k < 0) {
        GenerateBase(o, v, i, &base);
        Render(v, base, &text);
      } else {
        Pair& pair = (*sh->pairs)[k];
        GenerateBase(o, v, pair.source, &source_tokens);
        Render(v, source_tokens, &source_text);
        Rng rng(StreamSeed(o.seed, i, 1));
        ApplyEdits(v, o.edit_rates[pair.rate], rng, source_tokens, &edited);
        Render(v, edited, &text);
        ShingleSet(text, &scratch, &copy_shingles);
        ShingleSet(source_text, &scratch, &source_shingles);
        pair.jaccard = Jaccard(copy_shingles, source_shingles);
      }
      const std::string path = sh->layout->DocPath(i);
      std::FILE* f = std::fopen(path.c_str(), "wb");
      if (f == nullptr) {
        sh->Fail(path + ": cannot create: " + std::strerror(errno));
        return;
      }
      const size_t written = std::fwrite(text.data(), 1, text.size(), f);
      if (std::fclose(f) != 0 || written != text.size()) {
        sh->Fail(path + ": write failed: " + std::strerror(errno));
        return;
      }
      bytes += text.size();
    }
  }
  sh->bytes += bytes;
}

void WriteFileOrDie(const std::string& path, const std::string& content) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) Die(path + ": cannot create: " + std::strerror(errno));
  const size_t written = std::fwrite(content.data(), 1, content.size(), f);
  if (std::fclose(f) != 0 || written != content.size()) Die(path + ": write failed");
}

}  // namespace

int main(int argc, char** argv) {
  const auto start = std::chrono::steady_clock::now();
  const Options o = ParseArgs(argc, argv);
  const uint64_t dirs = (o.docs + o.files_per_dir - 1) / o.files_per_dir;
  const Layout layout{o.out, o.files_per_dir, std::max(4, Digits(dirs == 0 ? 0 : dirs - 1)),
                      std::max(7, Digits(o.docs == 0 ? 0 : o.docs - 1))};

  PrepareOutDir(o);
  const Vocabulary vocab = BuildVocabulary(o);
  std::vector<Pair> pairs = PlanPairs(o);

  Shared sh;
  sh.o = &o;
  sh.v = &vocab;
  sh.layout = &layout;
  sh.pairs = &pairs;
  sh.pair_of_copy.assign(o.docs, -1);
  for (size_t k = 0; k < pairs.size(); ++k) sh.pair_of_copy[pairs[k].copy] = static_cast<int32_t>(k);

  std::vector<std::thread> threads;
  const unsigned n_threads = static_cast<unsigned>(std::min<uint64_t>(o.threads, std::max<uint64_t>(1, dirs)));
  for (unsigned t = 1; t < n_threads; ++t) threads.emplace_back(Worker, &sh);
  Worker(&sh);
  for (auto& t : threads) t.join();
  if (sh.failed) Die(sh.error);

  // Truth, sorted by (a, b); names are fixed-width, so index order is byte order.
  std::vector<size_t> idx(pairs.size());
  for (size_t k = 0; k < pairs.size(); ++k) idx[k] = k;
  auto lo = [&](size_t k) { return std::min(pairs[k].copy, pairs[k].source); };
  auto hi = [&](size_t k) { return std::max(pairs[k].copy, pairs[k].source); };
  std::sort(idx.begin(), idx.end(), [&](size_t x, size_t y) {
    return lo(x) != lo(y) ? lo(x) < lo(y) : hi(x) < hi(y);
  });
  std::string truth;
  char number[32];
  for (size_t k : idx) {
    std::snprintf(number, sizeof number, "%.6f", pairs[k].jaccard);
    truth += layout.DocPath(lo(k)) + '\t' + layout.DocPath(hi(k)) + '\t' +
             o.edit_rate_text[pairs[k].rate] + '\t' + number + '\n';
  }
  {
    std::error_code ec;
    const fs::path parent = fs::path(o.truth).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
  }
  WriteFileOrDie(o.truth, truth);
  WriteFileOrDie(o.out + "/" + kStampName, StampText(o));

  if (!o.quiet) {
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double mb = static_cast<double>(sh.bytes.load()) / 1e6;
    std::fprintf(stderr,
                 "gen_corpus: %llu docs (%zu planted pairs), %.1f MB in %.2f s "
                 "(%.0f docs/s, %.1f MB/s, threads %u); truth: %s\n",
                 static_cast<unsigned long long>(o.docs), pairs.size(), mb, secs,
                 static_cast<double>(o.docs) / secs, mb / secs, n_threads, o.truth.c_str());
  }
  return 0;
}
