// gen_mail: a mail-like corpus with planted near-duplicates, for the
// "--exact against signature mode" section of scripts/bench.sh.
//
//   build/gen_mail --mails 6000 --out /tmp/mail --seed 7
//   neardup scan --exact -t 0.5 /tmp/mail   # compare with /tmp/mail.truth.tsv
//
// Real mail (the public SpamAssassin corpus) is long text whose documents
// share much boilerplate, so at low thresholds LSH finds a hundred candidate
// pairs or more for each true one. Each mail here is a few KB:
//  - headers: Received lines with random hosts, ids and dates, From, To,
//    Subject, Message-ID, and the mailing list's constant headers (List-Id,
//    List-Unsubscribe, List-Archive, ...);
//  - a body of fresh Zipf-distributed pseudo-words (150 to 400 words);
//  - half of the mails answer an earlier mail of their list: "Re:" subject,
//    an "On DATE, NAME wrote:" line and part of the parent's fresh text
//    quoted with "> ";
//  - the author's signature (fixed per author), for some authors their
//    company's disclaimer (fixed per domain), and the list's footer (fixed
//    per list).
// Planted near-duplicates: about --dup-share of the mails (default 0.17)
// copy an earlier mail that is no copy itself and is copied once (so
// planted pairs never chain), in turn: delivered twice (the receiving
// server's queue id differs), re-sent (the same body, new dates, ids and
// Received lines), forwarded (a new author and list, a short note,
// a "Forwarded message" block with the original's From/Date/Subject/To,
// and the original's whole body), and lightly edited at 2% and at 8% (each
// fresh word, with that probability, replaced, followed by a new word, or
// deleted).
//
// Output: DIR/m00/00000 ... (100 mails per folder, names zero-padded, so
// byte order is numeric order), and DIR.truth.tsv beside the corpus (not in
// it), one line per planted pair, sorted, no header:
//   a <TAB> b <TAB> kind <TAB> jaccard
// a and b as `neardup scan DIR` prints them (DIR joined with the path), a < b;
// kind is redelivered, resent, forwarded, edit0.02 or edit0.08; jaccard is exact, with 6
// decimals, over the word 5-shingle sets of the written text with neardup's
// word rules for ASCII (lowercase; a word is a maximal run of letters, digits
// and '_'; shingles as 64-bit hashes).
//
// Determinism: the same arguments give the same bytes. Our own splitmix64
// streams (tests/bench/text_gen.h's Rng); no std::*_distribution. The Zipf
// table's std::pow is the one step whose last bit could differ between C
// libraries.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "text_gen.h"

namespace {

namespace fs = std::filesystem;
using neardup_bench::Rng;

constexpr uint32_t kSentenceEnd = 1U << 31;  // flag on a word: a sentence ends after it
constexpr size_t kLineWidth = 72;

struct Options {
  size_t mails = 6000;
  uint64_t seed = 7;
  double dup_share = 0.17;
  size_t lists = 12;
  std::string out;
};

[[noreturn]] void Usage(int code) {
  std::fprintf(code == 0 ? stdout : stderr,
               "usage: gen_mail --out DIR [--mails N (6000)] [--seed S (7)] [--dup-share F (0.17)] "
               "[--lists L (12)]\n");
  std::exit(code);
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "-h" || flag == "--help") Usage(0);
    if (i + 1 >= argc) Usage(2);
    const char* v = argv[++i];
    if (flag == "--out") {
      o.out = v;
    } else if (flag == "--mails") {
      o.mails = std::strtoull(v, nullptr, 10);
    } else if (flag == "--seed") {
      o.seed = std::strtoull(v, nullptr, 10);
    } else if (flag == "--dup-share") {
      o.dup_share = std::strtod(v, nullptr);
    } else if (flag == "--lists") {
      o.lists = std::strtoull(v, nullptr, 10);
    } else {
      Usage(2);
    }
  }
  if (o.out.empty() || o.mails == 0 || o.lists == 0 || o.dup_share < 0 || o.dup_share > 0.5) Usage(2);
  return o;
}

// ---------------------------------------------------------------------------
// Words.

class Vocabulary {
 public:
  Vocabulary(uint64_t seed, size_t size) {
    static const char* const kSyllables[] = {"ba",  "ri",  "to",  "ne",  "la",  "mo",  "sa",  "ku",   "de",  "fi",
                                             "gor", "pel", "tan", "vis", "wer", "zu",  "shi", "chon", "ex",  "in",
                                             "al",  "ber", "cy",  "dra", "ple", "qua", "rst", "sto",  "tri", "um"};
    Rng rng(seed);
    for (size_t r = 0; r < size; ++r) {
      std::string w;
      const size_t n = 1 + (r < 50 ? 0 : r < 2000 ? 1 : 2) + rng.Below(2);
      for (size_t k = 0; k < n; ++k) w += kSyllables[rng.Below(std::size(kSyllables))];
      words_.push_back(w);
      cumulative_.push_back((cumulative_.empty() ? 0 : cumulative_.back()) +
                            1.0 / std::pow(static_cast<double>(r) + 1.0, 1.05));
    }
  }
  uint32_t Draw(Rng& rng) const {
    const double x = rng.Unit() * cumulative_.back();
    return static_cast<uint32_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), x) - cumulative_.begin());
  }
  const std::string& Word(uint32_t id) const { return words_[id & ~kSentenceEnd]; }
  // `count` words in sentences of 4 to 23.
  std::vector<uint32_t> Text(Rng& rng, size_t count) const {
    std::vector<uint32_t> t;
    size_t left = 0;
    for (size_t i = 0; i < count; ++i) {
      if (left == 0) left = 4 + rng.Below(20);
      t.push_back(Draw(rng) | (--left == 0 || i + 1 == count ? kSentenceEnd : 0));
    }
    return t;
  }
  // Sentences wrapped at 72 columns, each line prefixed with `prefix`.
  std::string Render(const std::vector<uint32_t>& t, const std::string& prefix) const {
    std::string out, line = prefix;
    bool start = true;
    for (uint32_t id : t) {
      std::string w = Word(id);
      if (start) w[0] = static_cast<char>(w[0] - 'a' + 'A');
      start = (id & kSentenceEnd) != 0;
      if (start) w += '.';
      if (line.size() > prefix.size() && line.size() + 1 + w.size() > kLineWidth) {
        out += line + "\n";
        line = prefix;
      }
      if (line.size() > prefix.size()) line += ' ';
      line += w;
    }
    if (line.size() > prefix.size()) out += line + "\n";
    return out;
  }

 private:
  std::vector<std::string> words_;
  std::vector<double> cumulative_;
};

std::string Hex(Rng& rng, size_t n, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) s += digits[rng.Below(16)];
  return s;
}

std::string Date(Rng& rng) {
  static const char* const kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s, %d %s 2002 %02d:%02d:%02d %+05d", kDays[rng.Below(7)],
                static_cast<int>(1 + rng.Below(28)), kMonths[rng.Below(12)], static_cast<int>(rng.Below(24)),
                static_cast<int>(rng.Below(60)), static_cast<int>(rng.Below(60)),
                static_cast<int>(rng.Below(13)) * 100 - 600);
  return buf;
}

std::string Ip(Rng& rng) {
  return std::to_string(rng.Below(223) + 1) + "." + std::to_string(rng.Below(256)) + "." +
         std::to_string(rng.Below(256)) + "." + std::to_string(rng.Below(256));
}

// ---------------------------------------------------------------------------
// The cast: authors, their companies, the lists.

struct Author {
  std::string name, user, domain, signature, disclaimer;
};

struct List {
  std::string name, domain, headers, footer;
};

struct World {
  Vocabulary vocab;
  std::vector<Author> authors;
  std::vector<List> lists;
};

std::string Capital(std::string w) {
  w[0] = static_cast<char>(w[0] - 'a' + 'A');
  return w;
}

World BuildWorld(const Options& o) {
  World world{Vocabulary(o.seed ^ 0x766f63ULL, 30000), {}, {}};
  const Vocabulary& v = world.vocab;
  Rng rng(o.seed * 0x9e3779b97f4a7c15ULL + 1);
  std::vector<std::string> domains, disclaimers;
  for (size_t d = 0; d < 150; ++d) {
    domains.push_back(v.Word(v.Draw(rng) % 3000 + 100) + v.Word(static_cast<uint32_t>(rng.Below(600) + 60)) +
                      (d % 3 ? ".com" : ".org"));
    disclaimers.push_back(d % 4 == 0 ? "\n-- \nCONFIDENTIALITY NOTICE: " + v.Render(v.Text(rng, 60 + rng.Below(40)), "")
                                     : std::string());
  }
  for (size_t a = 0; a < 1500; ++a) {
    Author au;
    const std::string first = v.Word(static_cast<uint32_t>(rng.Below(2000) + 200));
    const std::string last = v.Word(static_cast<uint32_t>(rng.Below(8000) + 500));
    const size_t d = rng.Below(domains.size());
    au.name = Capital(first) + " " + Capital(last);
    au.user = first + "." + last;
    au.domain = domains[d];
    au.disclaimer = disclaimers[d];
    au.signature = "\n-- \n" + au.name + "\n" + v.Render(v.Text(rng, 4 + rng.Below(10)), "") + "http://www." +
                   au.domain + "/~" + first + "\n";
    world.authors.push_back(au);
  }
  for (size_t l = 0; l < o.lists; ++l) {
    List li;
    li.name = v.Word(static_cast<uint32_t>(rng.Below(3000) + 100)) + "-" + (l % 2 ? "talk" : "users");
    li.domain = "lists." + domains[rng.Below(domains.size())];
    const std::string url = "https://" + li.domain + "/mailman/listinfo/" + li.name;
    li.headers = "Sender: " + li.name + "-admin@" + li.domain + "\nErrors-To: " + li.name + "-admin@" + li.domain +
                 "\nX-BeenThere: " + li.name + "@" + li.domain +
                 "\nX-Mailman-Version: 2.0.11\nPrecedence: bulk\nList-Help: <mailto:" + li.name + "-request@" +
                 li.domain + "?subject=help>\nList-Post: <mailto:" + li.name + "@" + li.domain +
                 ">\nList-Subscribe: <" + url + ">,\n    <mailto:" + li.name + "-request@" + li.domain +
                 "?subject=subscribe>\nList-Id: " + v.Render(v.Text(rng, 6), "").substr(0, 40) + " <" + li.name + "." +
                 li.domain + ">\nList-Unsubscribe: <" + url + ">,\n    <mailto:" + li.name + "-request@" + li.domain +
                 "?subject=unsubscribe>\nList-Archive: <https://" + li.domain + "/pipermail/" + li.name + "/>\n";
    li.footer = "\n\n_______________________________________________\n" + li.name + " mailing list\n" + li.name + "@" +
                li.domain + "\n" + url + "\n\n" + v.Render(v.Text(rng, 70 + rng.Below(50)), "");
    world.lists.push_back(li);
  }
  return world;
}

// ---------------------------------------------------------------------------
// Mails.

struct Mail {
  size_t author = 0, list = 0;
  std::string subject, date;
  std::vector<uint32_t> fresh;  // the mail's own words
  std::string quote;            // the quoted part of the parent, rendered
  std::string forward;          // forwarded: the note's block and the original's body
  std::string kind;             // planted copy: its kind; empty for an original
  size_t source = SIZE_MAX;     // planted copy: the mail it copies
  size_t header_index = 0;      // whose random hosts, ids and dates the headers have
};

// The headers; `delivery` draws the receiving server's queue id alone.
std::string Headers(const World& w, const Mail& m, Rng& rng, Rng& delivery) {
  const Author& a = w.authors[m.author];
  const List& l = w.lists[m.list];
  const std::string host = "mail" + std::to_string(rng.Below(40)) + "." + a.domain;
  std::string h = "From " + l.name + "-admin@" + l.domain + "  " + m.date + "\nReturn-Path: <" + l.name + "-admin@" +
                  l.domain + ">\nReceived: from " + l.domain + " (" + l.domain + " [" + Ip(rng) +
                  "])\n    by mx.example.net (Postfix) with ESMTP id " + Hex(delivery, 10, true) +
                  "\n    for <jm@localhost>; " + m.date + "\nReceived: from " + host + " ([" + Ip(rng) +
                  "] helo=" + host + ")\n    by " + l.domain + " with esmtp (Exim 3.35 #1 (Debian)) id " +
                  Hex(rng, 6, false) + "-" + Hex(rng, 6, false) + "-00; " + m.date + "\nFrom: " + a.name + " <" +
                  a.user + "@" + a.domain + ">\nTo: " + l.name + "@" + l.domain + "\nSubject: " + m.subject +
                  "\nMessage-ID: <" + Hex(rng, 16, false) + "@" + host + ">\nDate: " + m.date +
                  "\nMIME-Version: 1.0\nContent-Type: text/plain; charset=us-ascii\n" + l.headers + "\n";
  return h;
}

std::string Body(const World& w, const Mail& m) {
  const Author& a = w.authors[m.author];
  return w.vocab.Render(m.fresh, "") + m.quote + m.forward + a.signature + a.disclaimer + w.lists[m.list].footer;
}

std::string Text(const World& w, const Mail& m, uint64_t seed, size_t index) {
  Rng rng(seed * 0xd1b54a32d192ed03ULL + m.header_index * 0x9e3779b97f4a7c15ULL + 17);
  Rng delivery(seed * 0xd1b54a32d192ed03ULL + index * 0x9e3779b97f4a7c15ULL + 29);
  return Headers(w, m, rng, delivery) + Body(w, m);
}

std::vector<uint32_t> Edit(const Vocabulary& v, const std::vector<uint32_t>& in, double rate, Rng& rng) {
  std::vector<uint32_t> out;
  for (uint32_t id : in) {
    if (rng.Unit() >= rate) {
      out.push_back(id);
      continue;
    }
    const uint64_t what = rng.Below(3);
    if (what == 0) out.push_back(v.Draw(rng) | (id & kSentenceEnd));
    if (what == 1) {
      out.push_back(id & ~kSentenceEnd);
      out.push_back(v.Draw(rng) | (id & kSentenceEnd));
    }
    if (what == 2 && (id & kSentenceEnd) != 0 && !out.empty()) out.back() |= kSentenceEnd;
  }
  return out;
}

Mail Original(const World& w, const std::vector<Mail>& mails, size_t i, Rng& rng) {
  const Vocabulary& v = w.vocab;
  Mail m;
  m.header_index = i;
  m.author = rng.Below(w.authors.size());
  m.list = rng.Below(w.lists.size());
  m.date = Date(rng);
  m.fresh = v.Text(rng, 150 + rng.Below(250));
  std::vector<size_t> parents;  // recent originals of the same list
  for (size_t j = i; j-- > 0 && parents.size() < 30;) {
    if (mails[j].list == m.list && mails[j].kind.empty()) parents.push_back(j);
  }
  if (!parents.empty() && rng.Below(2) == 0) {
    const Mail& p = mails[parents[rng.Below(parents.size())]];
    m.subject = p.subject.rfind("Re: ", 0) == 0 ? p.subject : "Re: " + p.subject;
    const size_t keep = std::min(p.fresh.size(), 40 + rng.Below(p.fresh.size()));
    m.quote = "\nOn " + p.date + ", " + w.authors[p.author].name + " wrote:\n" +
              v.Render(std::vector<uint32_t>(p.fresh.begin(), p.fresh.begin() + static_cast<long>(keep)), "> ");
  } else {
    m.subject = "[" + w.lists[m.list].name + "] " + v.Render(v.Text(rng, 3 + rng.Below(5)), "");
    m.subject.pop_back();  // the newline
  }
  return m;
}

Mail Copy(const World& w, const std::vector<Mail>& mails, size_t i, size_t source, size_t turn, Rng& rng) {
  const Mail& s = mails[source];
  Mail m = s;
  m.source = source;
  m.header_index = i;
  m.date = Date(rng);
  switch (turn % 5) {
    case 0:
      m.kind = "redelivered";
      m.header_index = source;
      m.date = s.date;
      break;
    case 1:
      m.kind = "resent";
      break;
    case 2: {
      m.kind = "forwarded";
      m.author = rng.Below(w.authors.size());
      m.list = rng.Below(w.lists.size());
      m.subject = "Fwd: " + s.subject;
      m.fresh = w.vocab.Text(rng, 15 + rng.Below(25));
      m.quote.clear();
      const Author& a = w.authors[s.author];
      m.forward = "\n---------- Forwarded message ----------\nFrom: " + a.name + " <" + a.user + "@" + a.domain +
                  ">\nDate: " + s.date + "\nSubject: " + s.subject + "\nTo: " + w.lists[s.list].name + "@" +
                  w.lists[s.list].domain + "\n\n" + Body(w, s);
      break;
    }
    default: {
      const double rate = turn % 5 == 3 ? 0.02 : 0.08;
      m.kind = turn % 5 == 3 ? "edit0.02" : "edit0.08";
      m.fresh = Edit(w.vocab, s.fresh, rate, rng);
    }
  }
  return m;
}

// ---------------------------------------------------------------------------
// Exact Jaccard of word 5-shingle sets, with neardup's word rules (ASCII).

uint64_t Fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  return k ^ (k >> 33);
}

std::vector<uint64_t> ShingleSet(const std::string& text) {
  std::vector<uint64_t> words, set;
  uint64_t h = 0xcbf29ce484222325ULL;
  bool in_word = false;
  for (size_t i = 0; i <= text.size(); ++i) {
    const unsigned char c = i < text.size() ? static_cast<unsigned char>(text[i]) : ' ';
    if (std::isalnum(c) != 0 || c == '_') {
      h = (h ^ static_cast<unsigned char>(std::tolower(c))) * 0x100000001b3ULL;
      in_word = true;
    } else if (in_word) {
      words.push_back(Fmix64(h));
      h = 0xcbf29ce484222325ULL;
      in_word = false;
    }
  }
  const size_t k = std::min<size_t>(5, words.size());
  for (size_t i = 0; k > 0 && i + k <= words.size(); ++i) {
    uint64_t s = 0;
    for (size_t j = 0; j < k; ++j) s = Fmix64(s ^ (words[i + j] + 0x9e3779b97f4a7c15ULL * (j + 1)));
    set.push_back(s);
  }
  std::sort(set.begin(), set.end());
  set.erase(std::unique(set.begin(), set.end()), set.end());
  return set;
}

double Jaccard(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  std::vector<uint64_t> common;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
  const size_t all = a.size() + b.size() - common.size();
  return all == 0 ? 1.0 : static_cast<double>(common.size()) / static_cast<double>(all);
}

std::string RelPath(size_t i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "m%02zu/%05zu", i / 100, i);
  return buf;
}

void WriteOrDie(const fs::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  if (!f.flush()) {
    std::fprintf(stderr, "gen_mail: cannot write %s\n", path.string().c_str());
    std::exit(2);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = ParseArgs(argc, argv);
  const World world = BuildWorld(o);
  Rng plan(o.seed ^ 0x706c616eULL);
  std::vector<Mail> mails;
  std::vector<char> copied(o.mails, 0);
  size_t turn = 0;
  for (size_t i = 0; i < o.mails; ++i) {
    Rng rng(o.seed * 0x2545f4914f6cdd1dULL + i);
    size_t source = SIZE_MAX;
    if (i >= 50 && plan.Unit() < o.dup_share * 1.15) {  // 1.15: a few tries find no source
      for (int tries = 0; tries < 4 && source == SIZE_MAX; ++tries) {
        const size_t j = plan.Below(i);
        if (mails[j].kind.empty() && copied[j] == 0) source = j;
      }
    }
    if (source == SIZE_MAX) {
      mails.push_back(Original(world, mails, i, rng));
    } else {
      copied[source] = 1;
      mails.push_back(Copy(world, mails, i, source, turn++, rng));
    }
  }
  std::error_code ec;
  fs::remove_all(o.out, ec);
  std::vector<std::string> texts;
  for (size_t i = 0; i < o.mails; ++i) {
    const fs::path path = fs::path(o.out) / RelPath(i);
    fs::create_directories(path.parent_path(), ec);
    texts.push_back(Text(world, mails[i], o.seed, i));
    WriteOrDie(path, texts.back());
  }
  std::vector<std::string> truth;
  for (size_t i = 0; i < o.mails; ++i) {
    if (mails[i].kind.empty()) continue;
    const size_t s = mails[i].source;
    char j[32];
    std::snprintf(j, sizeof j, "%.6f", Jaccard(ShingleSet(texts[s]), ShingleSet(texts[i])));
    truth.push_back((fs::path(o.out) / RelPath(s)).string() + "\t" + (fs::path(o.out) / RelPath(i)).string() + "\t" +
                    mails[i].kind + "\t" + j + "\n");
  }
  std::sort(truth.begin(), truth.end());
  std::string all;
  for (const std::string& line : truth) all += line;
  WriteOrDie(o.out + ".truth.tsv", all);
  return 0;
}
