#include "text_gen.h"

#include <algorithm>
#include <cassert>

namespace neardup_bench {
namespace {

constexpr size_t kVocabulary = 20000;

// Samples ranks 0..n-1 with weight 1/(rank+1).
class Zipf {
 public:
  explicit Zipf(size_t n) : cdf_(n) {
    double sum = 0;
    for (size_t r = 0; r < n; ++r) {
      sum += 1.0 / static_cast<double>(r + 1);
      cdf_[r] = sum;
    }
  }
  size_t Sample(Rng& rng) const {
    const double u = rng.Unit() * cdf_.back();
    const auto it = std::upper_bound(cdf_.begin(), cdf_.end(), u);
    return std::min(static_cast<size_t>(it - cdf_.begin()), cdf_.size() - 1);
  }

 private:
  std::vector<double> cdf_;
};

template <size_t N>
const char* Pick(Rng& rng, const char* const (&items)[N]) {
  return items[rng.Below(N)];
}

// Frequent words first (they take the top Zipf ranks), then made-up words of
// one to four syllables, longer ones at lower ranks as in real vocabularies.
std::vector<std::string> EnglishVocabulary() {
  static const char* const kCommon[] = {
      "the",  "of",    "and",  "to",   "a",     "in",   "is",   "it",    "that",   "was",   "for",     "on",    "are",
      "with", "as",    "be",   "at",   "by",    "this", "had",  "not",   "but",    "from",  "or",      "have",  "an",
      "they", "which", "one",  "you",  "were",  "all",  "we",   "her",   "she",    "there", "would",   "their", "will",
      "when", "who",   "him",  "been", "has",   "more", "if",   "no",    "out",    "so",    "said",    "what",  "up",
      "its",  "about", "than", "into", "them",  "can",  "only", "other", "new",    "some",  "could",   "time",  "these",
      "two",  "may",   "then", "do",   "first", "any",  "my",   "now",   "such",   "like",  "our",     "over",  "man",
      "me",   "even",  "most", "made", "after", "also", "did",  "many",  "before", "must",  "through", "years"};
  static const char* const kOnsets[] = {"b", "c", "d", "f",  "g",  "h",  "j",  "k",  "l",  "m",  "n",  "p",  "r", "s",
                                        "t", "v", "w", "st", "tr", "pr", "ch", "sh", "th", "br", "cl", "gr", "pl"};
  static const char* const kVowels[] = {"a", "e", "i", "o", "u", "ea", "ou", "ai", "ee", "io"};
  static const char* const kCodas[] = {"", "", "", "n", "r", "s", "t", "l", "nd", "st", "ng", "rt", "tion", "ment"};
  std::vector<std::string> words(std::begin(kCommon), std::end(kCommon));
  Rng rng(0x656e676c697368);
  while (words.size() < kVocabulary) {
    const size_t rank = words.size();
    const uint64_t syllables = 1 + rng.Below(rank < 2000 ? 2 : 4);
    std::string w;
    for (uint64_t s = 0; s < syllables; ++s) {
      w += Pick(rng, kOnsets);
      w += Pick(rng, kVowels);
    }
    w += Pick(rng, kCodas);
    words.push_back(std::move(w));
  }
  return words;
}

std::vector<std::string> FrenchVocabulary() {
  static const char* const kCommon[] = {
      "de",       "la",      "le",      "et",     "les",     "des",     "à",        "en",       "un",
      "une",      "du",      "est",     "que",    "qui",     "pas",     "pour",     "dans",     "sur",
      "au",       "avec",    "ce",      "il",     "elle",    "été",     "très",     "où",       "déjà",
      "après",    "même",    "être",    "plus",   "par",     "son",     "sa",       "ses",      "nous",
      "vous",     "leur",    "comme",   "mais",   "tout",    "fait",    "peu",      "là",       "français",
      "première", "façon",   "cœur",    "fête",   "forêt",   "château", "élève",    "hôpital",  "naïve",
      "noël",     "année",   "où",      "ainsi",  "général", "société", "problème", "éléments", "système",
      "à-propos", "intérêt", "théâtre", "garçon", "reçu",    "début",   "sûr",      "goût",     "maïs"};
  static const char* const kOnsets[] = {"b", "c",  "ch", "d", "f", "g", "j",  "l",  "m",  "n",
                                        "p", "qu", "r",  "s", "t", "v", "pr", "tr", "br", "gr"};
  static const char* const kVowels[] = {"a", "e", "é",  "è",   "ê",  "i",  "o",  "ô",  "ou",
                                        "u", "û", "au", "eau", "ai", "oi", "an", "on", "in"};
  static const char* const kCodas[] = {"", "", "", "s", "t", "r", "nt", "x", "ée", "és", "ment", "tion", "ère", "ç"};
  std::vector<std::string> words(std::begin(kCommon), std::end(kCommon));
  Rng rng(0x6672616e636169);
  while (words.size() < kVocabulary) {
    const size_t rank = words.size();
    const uint64_t syllables = 1 + rng.Below(rank < 2000 ? 2 : 4);
    std::string w;
    // Many French words start with a vowel (and so take an elided article).
    if (rng.Below(4) == 0) w += Pick(rng, kVowels);
    for (uint64_t s = 0; s < syllables; ++s) {
      w += Pick(rng, kOnsets);
      w += Pick(rng, kVowels);
    }
    w += Pick(rng, kCodas);
    words.push_back(std::move(w));
  }
  return words;
}

// German: umlauts and ß in common and made-up words; nouns are capitalized
// when they are written (GermanSentence).
std::vector<std::string> GermanVocabulary() {
  static const char* const kCommon[] = {
      "der",    "die",    "und",     "in",        "den",    "von",   "zu",     "das",   "mit",     "sich",  "des",
      "auf",    "für",    "ist",     "im",        "dem",    "nicht", "ein",    "eine",  "als",     "auch",  "es",
      "an",     "er",     "hat",     "aus",       "bei",    "sind",  "noch",   "nach",  "wird",    "über",  "so",
      "zum",    "um",     "wie",     "nur",       "oder",   "aber",  "vor",    "zur",   "bis",     "mehr",  "durch",
      "man",    "können", "schon",   "wenn",      "jahr",   "zeit",  "straße", "größe", "mädchen", "bär",   "fuß",
      "groß",   "schön",  "während", "müssen",    "ärger",  "öl",    "übung",  "würde", "möglich", "gemäß", "außer",
      "häuser", "äpfel",  "früh",    "natürlich", "später", "höhe"};
  static const char* const kOnsets[] = {"b", "d", "f",   "g",  "h",  "k",  "l",  "m",  "n",  "p",  "r",    "s", "t",
                                        "w", "z", "sch", "st", "sp", "br", "gr", "kr", "tr", "pf", "schw", "ch"};
  static const char* const kVowels[] = {"a", "e", "i", "o", "u", "ä", "ö", "ü", "ei", "au", "eu", "ie", "ah", "eh"};
  static const char* const kCodas[] = {"", "", "n", "r", "s", "t", "en", "er", "ng", "ß", "cht", "ung", "keit", "lich"};
  std::vector<std::string> words(std::begin(kCommon), std::end(kCommon));
  Rng rng(0x6465757473636820);
  while (words.size() < kVocabulary) {
    const size_t rank = words.size();
    const uint64_t syllables = 1 + rng.Below(rank < 2000 ? 2 : 4);
    std::string w;
    if (rng.Below(6) == 0) w += Pick(rng, kVowels);
    for (uint64_t s = 0; s < syllables; ++s) {
      w += Pick(rng, kOnsets);
      w += Pick(rng, kVowels);
    }
    w += Pick(rng, kCodas);
    words.push_back(std::move(w));
  }
  return words;
}

// Russian: Cyrillic, two bytes a letter.
std::vector<std::string> RussianVocabulary() {
  static const char* const kCommon[] = {
      "и",     "в",       "не",    "на",     "я",      "быть", "он",   "с",   "что",   "а",       "по",   "это",
      "она",   "этот",    "к",     "но",     "они",    "мы",   "как",  "из",  "у",     "который", "то",   "за",
      "свой",  "весь",    "год",   "от",     "так",    "о",    "для",  "ты",  "же",    "все",     "тот",  "мочь",
      "вы",    "человек", "такой", "его",    "только", "или",  "ещё",  "бы",  "себя",  "один",    "уже",  "до",
      "время", "если",    "сам",   "когда",  "другой", "вот",  "наш",  "мой", "знать", "стать",   "при",  "чтобы",
      "дело",  "жизнь",   "кто",   "первый", "очень",  "два",  "день", "её",  "новый", "рука",    "даже", "где"};
  static const char* const kOnsets[] = {"б", "в", "г", "д", "ж", "з", "к", "л",  "м",  "н",  "п",  "р", "с",
                                        "т", "ф", "х", "ц", "ч", "ш", "щ", "ст", "пр", "кр", "тр", "св"};
  static const char* const kVowels[] = {"а", "е", "и", "о", "у", "ы", "э", "ю", "я", "ё"};
  static const char* const kCodas[] = {"", "", "", "й", "н", "т", "ть", "ск", "ый", "ая", "ость", "ение", "ого", "ов"};
  std::vector<std::string> words(std::begin(kCommon), std::end(kCommon));
  Rng rng(0x7275737369616e);
  while (words.size() < kVocabulary) {
    const size_t rank = words.size();
    const uint64_t syllables = 1 + rng.Below(rank < 2000 ? 2 : 4);
    std::string w;
    for (uint64_t s = 0; s < syllables; ++s) {
      w += Pick(rng, kOnsets);
      w += Pick(rng, kVowels);
    }
    w += Pick(rng, kCodas);
    words.push_back(std::move(w));
  }
  return words;
}

// Common ideographs: 3500 distinct code points spread over U+4E00..U+9FA5.
std::vector<std::string> CjkVocabulary() {
  std::vector<std::string> words;
  for (uint32_t i = 0; i < 3500; ++i) {
    const uint32_t cp = 0x4E00 + (i * 7919u) % 20902u;  // 7919 is prime to 20902
    words.push_back({static_cast<char>(0xE0 | (cp >> 12)), static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
                     static_cast<char>(0x80 | (cp & 0x3F))});
  }
  return words;
}

struct Vocabulary {
  std::vector<std::string> words;
  Zipf zipf;
  explicit Vocabulary(std::vector<std::string> w) : words(std::move(w)), zipf(words.size()) {}
  const std::string& Sample(Rng& rng) const { return words[zipf.Sample(rng)]; }
};

const Vocabulary& VocabularyFor(Lang lang) {
  static const Vocabulary english(EnglishVocabulary());
  static const Vocabulary french(FrenchVocabulary());
  static const Vocabulary german(GermanVocabulary());
  static const Vocabulary russian(RussianVocabulary());
  static const Vocabulary cjk(CjkVocabulary());
  switch (lang) {
    case Lang::kEnglish:
      return english;
    case Lang::kFrench:
      return french;
    case Lang::kGerman:
      return german;
    case Lang::kRussian:
      return russian;
    case Lang::kCjk:
      break;
  }
  return cjk;
}

// Uppercases the first letter: ASCII, a Latin-1 lowercase letter
// (U+00E0..U+00FE but U+00F7, encoded C3 A0..C3 BE): é -> É, or a basic
// Cyrillic one (U+0430..U+044F): д -> Д.
void AppendCapitalized(const std::string& word, std::string* out) {
  const size_t at = out->size();
  *out += word;
  char& c = (*out)[at];
  if (c >= 'a' && c <= 'z') {
    c = static_cast<char>(c - 'a' + 'A');
  } else if (c == '\xC3' && at + 1 < out->size()) {
    char& d = (*out)[at + 1];
    const auto u = static_cast<unsigned char>(d);
    if (u >= 0xA0 && u <= 0xBE && u != 0xB7) d = static_cast<char>(u - 0x20);
  } else if (c == '\xD0' && at + 1 < out->size()) {
    char& d = (*out)[at + 1];
    const auto u = static_cast<unsigned char>(d);
    if (u >= 0xB0 && u <= 0xBF) d = static_cast<char>(u - 0x20);  // а..п -> А..П
  } else if (c == '\xD1' && at + 1 < out->size()) {
    char& d = (*out)[at + 1];
    const auto u = static_cast<unsigned char>(d);
    if (u >= 0x80 && u <= 0x8F) {  // р..я (D1 80..8F) -> Р..Я (D0 A0..AF)
      c = '\xD0';
      d = static_cast<char>(u + 0x20);
    }
  }
}

bool StartsWithVowel(const std::string& w) {
  const char c = w[0];
  return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == '\xC3';
}

void EnglishSentence(const Vocabulary& v, Rng& rng, std::string* out) {
  const uint64_t n = 6 + rng.Below(19);
  for (uint64_t i = 0; i < n; ++i) {
    if (i > 0) *out += ' ';
    const std::string& w = v.Sample(rng);
    // Sentence starts and the odd proper noun are capitalized.
    if (i == 0 || rng.Below(40) == 0) {
      AppendCapitalized(w, out);
    } else {
      *out += w;
    }
    if (i + 1 < n && rng.Below(12) == 0) *out += ',';
  }
  const uint64_t end = rng.Below(20);
  *out += end < 17 ? "." : end < 19 ? "?" : "!";
}

void FrenchSentence(const Vocabulary& v, Rng& rng, std::string* out) {
  static const char* const kNbsp = "\xC2\xA0";            // U+00A0, NFKC: a space
  static const char* const kApostrophe = "\xE2\x80\x99";  // U+2019
  const uint64_t n = 6 + rng.Below(19);
  const bool quoted = rng.Below(10) == 0;
  if (quoted) *out += std::string("\xC2\xAB") + kNbsp;  // "« "
  for (uint64_t i = 0; i < n; ++i) {
    if (i > 0) *out += ' ';
    const std::string& w = v.Sample(rng);
    std::string word;
    if (StartsWithVowel(w) && rng.Below(3) == 0) {
      word = std::string(rng.Below(2) == 0 ? "l" : "d") + kApostrophe + w;
    } else {
      word = w;
    }
    if (i == 0 || rng.Below(40) == 0) {
      AppendCapitalized(word, out);
    } else {
      *out += word;
    }
    if (i + 1 < n && rng.Below(12) == 0) *out += ',';
  }
  if (quoted) *out += std::string(kNbsp) + "\xC2\xBB";  // " »"
  const uint64_t end = rng.Below(20);
  if (end < 17) {
    *out += '.';
  } else {
    *out += kNbsp;  // French puts a (non-breaking) space before ? and !
    *out += end < 19 ? '?' : '!';
  }
}

// Nouns (about one word in four) are capitalized, as German writes them.
void GermanSentence(const Vocabulary& v, Rng& rng, std::string* out) {
  const uint64_t n = 6 + rng.Below(19);
  for (uint64_t i = 0; i < n; ++i) {
    if (i > 0) *out += ' ';
    const std::string& w = v.Sample(rng);
    if (i == 0 || rng.Below(4) == 0) {
      AppendCapitalized(w, out);
    } else {
      *out += w;
    }
    if (i + 1 < n && rng.Below(10) == 0) *out += ',';
  }
  const uint64_t end = rng.Below(20);
  *out += end < 17 ? "." : end < 19 ? "?" : "!";
}

void RussianSentence(const Vocabulary& v, Rng& rng, std::string* out) {
  static const char* const kDash = " \xE2\x80\x94";  // " —" (U+2014)
  const uint64_t n = 6 + rng.Below(19);
  const bool quoted = rng.Below(10) == 0;
  if (quoted) *out += "\xC2\xAB";  // «
  for (uint64_t i = 0; i < n; ++i) {
    if (i > 0) *out += ' ';
    const std::string& w = v.Sample(rng);
    if (i == 0 || rng.Below(40) == 0) {
      AppendCapitalized(w, out);
    } else {
      *out += w;
    }
    if (i + 1 < n) {
      const uint64_t r = rng.Below(30);
      if (r < 2) {
        *out += ',';
      } else if (r == 2) {
        *out += kDash;
      }
    }
  }
  if (quoted) *out += "\xC2\xBB";  // »
  const uint64_t end = rng.Below(20);
  *out += end < 17 ? "." : end < 19 ? "?" : "!";
}

void CjkSentence(const Vocabulary& v, Rng& rng, std::string* out) {
  static const char* const kComma = "\xEF\xBC\x8C";     // U+FF0C, NFKC: ','
  static const char* const kStop = "\xE3\x80\x82";      // U+3002
  static const char* const kQuestion = "\xEF\xBC\x9F";  // U+FF1F, NFKC: '?'
  const uint64_t n = 8 + rng.Below(30);
  uint64_t next_comma = 5 + rng.Below(8);
  for (uint64_t i = 0; i < n; ++i) {
    if (i == next_comma && i + 2 < n) {
      *out += kComma;
      next_comma += 5 + rng.Below(8);
    }
    if (rng.Below(60) == 0) {
      *out += std::to_string(1900 + rng.Below(125));  // a year, in ASCII digits
    }
    *out += v.Sample(rng);
  }
  *out += rng.Below(10) == 0 ? kQuestion : kStop;
}

}  // namespace

std::string GenerateText(Lang lang, size_t bytes, uint64_t seed) {
  const Vocabulary& vocabulary = VocabularyFor(lang);
  Rng rng(seed);
  std::string out;
  out.reserve(bytes + 512);
  uint64_t sentences_left = 3 + rng.Below(6);
  while (out.size() < bytes) {
    switch (lang) {
      case Lang::kEnglish:
        EnglishSentence(vocabulary, rng, &out);
        break;
      case Lang::kFrench:
        FrenchSentence(vocabulary, rng, &out);
        break;
      case Lang::kGerman:
        GermanSentence(vocabulary, rng, &out);
        break;
      case Lang::kRussian:
        RussianSentence(vocabulary, rng, &out);
        break;
      case Lang::kCjk:
        CjkSentence(vocabulary, rng, &out);
        break;
    }
    if (--sentences_left == 0) {
      out += "\n\n";
      sentences_left = 3 + rng.Below(6);
    } else if (lang != Lang::kCjk) {
      out += ' ';
    }
  }
  return out;
}

std::vector<std::string> GenerateDocuments(Lang lang, size_t count, size_t bytes, uint64_t seed) {
  std::vector<std::string> docs;
  docs.reserve(count);
  for (size_t i = 0; i < count; ++i) docs.push_back(GenerateText(lang, bytes, seed + i));
  return docs;
}

std::vector<std::string_view> SliceAtCodePoints(std::string_view text, size_t max) {
  assert(max >= 4);
  std::vector<std::string_view> slices;
  while (!text.empty()) {
    size_t len = std::min(max, text.size());
    // Back off over continuation bytes (10xxxxxx) so the slice ends on a boundary.
    while (len < text.size() && (static_cast<unsigned char>(text[len]) & 0xC0) == 0x80) --len;
    slices.push_back(text.substr(0, len));
    text.remove_prefix(len);
  }
  return slices;
}

}  // namespace neardup_bench
