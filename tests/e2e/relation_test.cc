// scan --relation contains|both on generated corpora with known answers, run
// through the real binary (issue #44):
//  - excerpts of 10% to 90% of documents of 50 to 5,000 words, each written
//    as a document of its own and placed, lightly edited, at a random place
//    inside another document: recall at least 0.99 of the planted pairs
//    whose exact containment reaches -t within the guard and the ratio cap,
//    and every reported pair a true containment (precision 1.000), its
//    containment and sizes those counted here;
//  - forms sharing a template: no containment under the default guard, and
//    some without it (so the guard is what leaves them out);
//  - mail threads of real text (data/sample), each reply quoting the
//    previous mail whole: every quoted mail found inside its reply.
// The truths are counted here over word 5-shingles of lowercase words
// (neardup's rules for such text), with fixed seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "neardup/index.h"
#include "run_neardup.h"
#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::Lines;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunOptions;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

constexpr double kT = 0.8;

// splitmix64, for the corpus's choices.
struct Rng {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) / 9007199254740992.0; }
  size_t Below(size_t n) { return static_cast<size_t>(Next() % n); }
};

// The word 5-shingles of `words`, as a sorted set of hashes.
std::vector<uint64_t> Shingles(const std::vector<std::string>& words) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i + 5 <= words.size(); ++i) {
    std::string s = words[i];
    for (size_t k = i + 1; k < i + 5; ++k) s.append(" ").append(words[k]);
    out.push_back(std::hash<std::string>{}(s));
  }
  if (out.empty() && !words.empty()) out.push_back(std::hash<std::string>{}(Join(words)));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

size_t Shared(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  std::vector<uint64_t> both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  return both.size();
}

// The guard's defaults (options.h), and whether a contained document of
// `small` shingles in one of `large` with `shared` in common is a
// containment the default scan must report.
bool Reportable(size_t shared, size_t small, size_t large) {
  const double ratio = static_cast<double>(large) / static_cast<double>(small);
  const double c = static_cast<double>(shared) / static_cast<double>(small);
  const double j = static_cast<double>(shared) / static_cast<double>(small + large - shared);
  return small >= 50 && ratio >= 1.2 && ratio <= 8 && j >= 0.05 && c >= kT;
}

// A reported pair of a --relation run's TSV.
struct Row {
  std::string relation, container, contained;
  double containment = 0;
  size_t container_shingles = 0, contained_shingles = 0;
};

std::vector<Row> ParseTsv(const std::string& out) {
  std::vector<Row> rows;
  for (const std::string& line : Lines(out)) {
    std::vector<std::string> f;
    size_t start = 0;
    while (true) {
      const size_t tab = line.find('\t', start);
      f.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    EXPECT_EQ(f.size(), 10u) << line;  // a b relation container contained estimate jaccard containment a_sh b_sh
    if (f.size() != 10) continue;
    Row r{.relation = f[2], .container = f[3], .contained = f[4], .containment = std::stod(f[7])};
    const bool a_contains = f[3] == f[0];
    r.container_shingles = std::stoul(a_contains ? f[8] : f[9]);
    r.contained_shingles = std::stoul(a_contains ? f[9] : f[8]);
    if (r.relation == "similar") {
      r.container = f[0];
      r.contained = f[1];
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

// Replaces each word with probability `p` by a fresh one.
std::vector<std::string> Edited(std::vector<std::string> words, double p, Rng* rng) {
  for (std::string& w : words) {
    if (rng->Uniform() < p) w = testing::Numbered("edit", static_cast<long long>(rng->Next() % 100000));
  }
  return words;
}

// The excerpt corpus in dir/c: 300 sources of 50 to 5,000 words, an excerpt
// of each, and a host holding the excerpt lightly edited. Fills each
// document's shingle set by name, and returns the planted pairs
// (container, contained).
std::vector<std::pair<std::string, std::string>> PlantExcerpts(const TempDir& dir,
                                                               std::map<std::string, std::vector<uint64_t>>* sets) {
  Rng rng{44};
  std::vector<std::pair<std::string, std::string>> planted;
  for (int i = 0; i < 300; ++i) {
    const size_t length = static_cast<size_t>(50 * std::pow(100.0, rng.Uniform()));  // 50 to 5,000 words
    const std::vector<std::string> source = RandomWords(length, 1000 + i, 400000);
    const size_t size =
        std::max<size_t>(1, static_cast<size_t>(static_cast<double>(length) * (0.1 + 0.8 * rng.Uniform())));
    const size_t from = rng.Below(length - size + 1);
    const std::vector<std::string> excerpt(source.begin() + from, source.begin() + from + size);
    // A host that makes the container 1 to 10 times the excerpt's size.
    const double ratio = 1 + 9 * rng.Uniform();
    std::vector<std::string> host =
        RandomWords(static_cast<size_t>((ratio - 1) * static_cast<double>(size)), 900000 + i, 400000);
    const std::vector<std::string> placed = Edited(excerpt, 0.01, &rng);
    host.insert(host.begin() + static_cast<long>(rng.Below(host.size() + 1)), placed.begin(), placed.end());
    const std::string n = testing::Numbered("", i);
    for (const auto& [name, words] : {std::pair{std::string("c/src") + n, source},
                                      {std::string("c/quote") + n, excerpt},
                                      {std::string("c/host") + n, host}}) {
      WriteFile(dir / name, Join(words));
      (*sets)[name] = Shingles(words);
    }
    planted.emplace_back(std::string("c/src") + n, std::string("c/quote") + n);
    planted.emplace_back(std::string("c/host") + n, std::string("c/quote") + n);
  }
  return planted;
}

TEST(RelationTest, ExcerptsInsideOtherDocumentsAreFoundAndProven) {
  TempDir dir;
  std::map<std::string, std::vector<uint64_t>> sets;  // by name as printed
  const std::vector<std::pair<std::string, std::string>> planted = PlantExcerpts(dir, &sets);
  const RunResult run = RunNeardup({"scan", "c", "--relation", "contains", "-f", "tsv", "-j", "2"}, dir.path(),
                                   RunOptions().In(dir.path()));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<Row> rows = ParseTsv(run.out);
  std::set<std::pair<std::string, std::string>> reported;
  size_t proven = 0;
  for (const Row& r : rows) {
    EXPECT_EQ(r.relation, "contains");
    reported.emplace(r.container, r.contained);
    const auto& a = sets.at(r.contained);
    const auto& b = sets.at(r.container);
    const size_t shared = Shared(a, b);
    EXPECT_EQ(r.contained_shingles, a.size()) << r.contained;
    EXPECT_EQ(r.container_shingles, b.size()) << r.container;
    EXPECT_NEAR(r.containment, static_cast<double>(shared) / static_cast<double>(a.size()), 1e-4)
        << r.contained << " in " << r.container;
    if (Reportable(shared, a.size(), b.size())) ++proven;
  }
  size_t truth = 0, found = 0;
  for (const auto& [container, contained] : planted) {
    const auto& a = sets.at(contained);
    const auto& b = sets.at(container);
    if (!Reportable(Shared(a, b), a.size(), b.size())) continue;
    ++truth;
    if (reported.count({container, contained}) > 0) ++found;
  }
  ASSERT_GE(truth, 300u);  // the corpus plants enough to measure
  const double recall = static_cast<double>(found) / static_cast<double>(truth);
  const double precision = rows.empty() ? 0 : static_cast<double>(proven) / static_cast<double>(rows.size());
  RecordProperty("recall", std::to_string(recall));
  std::printf("excerpts: %zu planted within the guard, %zu found (recall %.4f); %zu reported, precision %.4f\n", truth,
              found, recall, rows.size(), precision);
  EXPECT_GE(recall, 0.99);
  EXPECT_EQ(proven, rows.size());  // precision 1.000
}

// A form: its template's fixed text (a heading and the terms), then the
// fields of one customer and some item lines.
std::vector<std::string> Form(const std::vector<std::string>& fixed, int items, Rng* rng) {
  std::vector<std::string> out = fixed;
  for (const char* w : {"customer", "date", "total"}) {
    out.push_back(w);
    out.push_back(testing::Numbered("f", static_cast<long long>(rng->Next() % 1000000)));
  }
  for (int i = 0; i < items; ++i) {
    for (const char* w : {"item", "qty", "price"}) {
      out.push_back(w);
      out.push_back(testing::Numbered("v", static_cast<long long>(rng->Next() % 1000000)));
    }
  }
  return out;
}

// Reported pairs of a run of --relation contains over the forms.
size_t FormsReported(const TempDir& dir, std::vector<std::string> guard) {
  std::vector<std::string> args = {"scan", "forms", "--relation", "contains", "-f", "tsv"};
  args.insert(args.end(), guard.begin(), guard.end());
  const RunResult run = RunNeardup(args, dir.path(), RunOptions().In(dir.path()));
  EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.err;
  return ParseTsv(run.out).size();
}

TEST(RelationTest, FormsOfOneTemplateAreNotContainedUnderTheDefaultGuard) {
  TempDir dir;
  Rng rng{45};
  // Three templates; a form is 30 fixed words, 3 fields and 0 to 14 lines
  // of items: the short ones are mostly template.
  for (int t = 0; t < 3; ++t) {
    const std::vector<std::string> fixed = RandomWords(30, 500 + t, 400000);
    for (int f = 0; f < 100; ++f) {
      const int items = static_cast<int>(rng.Below(15));
      WriteFile(dir / (testing::Numbered("forms/t", t) + testing::Numbered("_", f)), Join(Form(fixed, items, &rng)));
    }
  }
  const size_t guarded = FormsReported(dir, {});
  const size_t unguarded = FormsReported(dir, {"--min-contained", "1", "--min-ratio", "1", "--min-jaccard", "0"});
  const size_t length_only = FormsReported(dir, {"--min-ratio", "1", "--min-jaccard", "0"});
  const size_t ratio_only = FormsReported(dir, {"--min-contained", "1", "--min-jaccard", "0"});
  const size_t jaccard_only = FormsReported(dir, {"--min-contained", "1", "--min-ratio", "1"});
  std::printf(
      "forms: false containments %zu without the guard, %zu with --min-contained alone, %zu with "
      "--min-ratio alone, %zu with --min-jaccard alone, %zu with the default guard\n",
      unguarded, length_only, ratio_only, jaccard_only, guarded);
  EXPECT_GT(unguarded, 100u);  // the template makes them
  EXPECT_EQ(guarded, 0u);
}

TEST(RelationTest, EveryQuotedMailIsFoundInsideItsReply) {
  TempDir dir;
  std::vector<std::string> bodies;
  for (const auto& e : std::filesystem::directory_iterator(std::string(testing::SourceDir()) + "/data/sample")) {
    bodies.push_back(e.path().string());
  }
  std::sort(bodies.begin(), bodies.end());
  ASSERT_GE(bodies.size(), 30u);
  // Threads of 2 to 5 mails, each body used once; a reply is a header, its
  // own text, an attribution line and the previous mail whole, quoted.
  std::vector<std::pair<std::string, std::string>> quoted;  // (reply, quoted)
  size_t next = 0;
  for (int thread = 0; next + 2 <= bodies.size(); ++thread) {
    const size_t length = 2 + static_cast<size_t>(thread % 4);
    std::string previous;
    for (size_t k = 0; k < length && next < bodies.size(); ++k, ++next) {
      std::string mail = testing::Numbered("From: writer", static_cast<long long>(k)) +
                         testing::Numbered("@example.org\nSubject: thread ", thread) + "\n\n" +
                         testing::ReadFile(bodies[next]);
      if (!previous.empty()) {
        mail += testing::Numbered("\nOn Monday, writer", static_cast<long long>(k - 1)) + "@example.org wrote:\n";
        for (const std::string& line : Lines(previous)) mail += "> " + line + "\n";
      }
      const std::string name = testing::Numbered("mail/t", thread) + testing::Numbered("_", static_cast<long long>(k));
      WriteFile(dir / name, mail);
      if (k > 0)
        quoted.emplace_back(
            name, testing::Numbered("mail/t", thread) + testing::Numbered("_", static_cast<long long>(k - 1)));
      previous = mail;
    }
  }
  // Containment at any ratio: every quoted mail is inside its reply.
  RunResult run = RunNeardup({"scan", "mail", "--relation", "contains", "--min-ratio", "1", "-f", "tsv"}, dir.path(),
                             RunOptions().In(dir.path()));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::set<std::pair<std::string, std::string>> inside;
  for (const Row& r : ParseTsv(run.out)) inside.emplace(r.container, r.contained);
  for (const auto& pair : quoted) EXPECT_EQ(inside.count(pair), 1u) << pair.second << " in " << pair.first;
  // With the defaults and both relations: each found, as a containment or,
  // at near-equal sizes, as a near copy.
  run = RunNeardup({"scan", "mail", "--relation", "both", "-f", "tsv"}, dir.path(), RunOptions().In(dir.path()));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::set<std::pair<std::string, std::string>> either;
  for (const Row& r : ParseTsv(run.out)) {
    either.emplace(r.container, r.contained);
    either.emplace(r.contained, r.container);
  }
  for (const auto& pair : quoted) EXPECT_EQ(either.count(pair), 1u) << pair.second << " in " << pair.first;
  EXPECT_GE(quoted.size(), 20u);
}

// What --relation contains|both refuses (by design: connected clusters chain
// containments; a containment needs a verification to say which way) is a
// usage error with the reason and the way out, never ignored.
TEST(RelationTest, WhatIsNotSupportedIsAUsageErrorWithTheWayOut) {
  TempDir dir;
  WriteFile(dir / "c/a.txt", Join(RandomWords(100, 1)));
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"scan", "--relation", "both", "--mode", "clusters", "--cluster-by", "connected", "c"},
       "--cluster-by connected: chained containments"},
      {{"scan", "--relation", "contains", "--verify", "none", "c"}, "--verify none: a containment needs"},
      {{"scan", "--relation", "contains", "-t", "1", "c"}, "below 1"},
      {{"scan", "--relation", "contains", "--min-ratio", "9", "c"}, "--max-ratio"},
      {{"stage", "sign", "--task", "0", "--tasks", "1", "--relation", "both", "--verify", "none", dir / "work", "c"},
       "--verify none"},
      {{"stage", "report", "--relation", "contains", "--mode", "clusters", "--cluster-by", "connected", dir / "work"},
       "--cluster-by connected"},
  };
  for (const auto& [args, what] : cases) {
    const RunResult run = RunNeardup(args, dir.path(), RunOptions().In(dir.path()));
    EXPECT_EQ(run.exit_code, 2) << Join(args);
    EXPECT_NE(run.err.find(what), std::string::npos) << Join(args) << ": " << run.err;
    EXPECT_EQ(run.out, "") << Join(args);
  }
}

// Duplicates mode: the contained document goes and its container stays,
// whatever --keep says; a document that contains the same text but is not
// what the kept one contains stays. --kept-dir drops the contained one.
TEST(RelationTest, TheContainedGoesAndTheContainerStaysWhateverKeepSays) {
  TempDir dir;
  const std::vector<std::string> quote = RandomWords(300, 5, 100000);
  for (const int n : {1, 2}) {
    std::vector<std::string> host = RandomWords(600 * static_cast<size_t>(n), 50 + n, 100000);
    host.insert(host.begin() + 100, quote.begin(), quote.end());
    WriteFile(dir / testing::Numbered("c/host", n), Join(host));
  }
  WriteFile(dir / "c/quote", Join(quote));
  for (const char* keep : {"first", "shortest", "longest", "newest"}) {
    for (const char* verify : {"exact", "signature"}) {
      const RunResult run =
          RunNeardup({"scan", "c", "--relation", "both", "--mode", "duplicates", "--keep", keep, "--verify", verify},
                     dir.path(), RunOptions().In(dir.path()));
      EXPECT_EQ(run.exit_code, 0) << run.err;
      EXPECT_EQ(run.out, "c/quote\n") << keep << " " << verify;
    }
  }
  // --kept-dir: the corpus without the contained document.
  const RunResult kept = RunNeardup({"scan", "c", "--relation", "both", "--mode", "duplicates", "--kept-dir", "kept"},
                                    dir.path(), RunOptions().In(dir.path()));
  EXPECT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "kept/host1"));
  EXPECT_TRUE(std::filesystem::exists(dir / "kept/host2"));
  EXPECT_FALSE(std::filesystem::exists(dir / "kept/quote"));
  // Without containment, nothing: their Jaccard is 0.33 and 0.2.
  const RunResult run = RunNeardup({"scan", "c", "--mode", "duplicates"}, dir.path(), RunOptions().In(dir.path()));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_EQ(run.out, "");
}

// Every format carries the relation, which document contains which, the
// containment and both sizes: a quote of 300 words (296 shingles) inside a
// document of 900 (896), J = 296/896.
TEST(RelationTest, EveryFormatCarriesTheRelationFields) {
  TempDir dir;
  const std::vector<std::string> quote = RandomWords(300, 5, 100000);
  std::vector<std::string> host = RandomWords(600, 51, 100000);
  host.insert(host.begin() + 100, quote.begin(), quote.end());
  WriteFile(dir / "c/host", Join(host));
  WriteFile(dir / "c/quote", Join(quote));
  auto run = [&](const char* format) {
    const RunResult r =
        RunNeardup({"scan", "c", "--relation", "both", "-f", format}, dir.path(), RunOptions().In(dir.path()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  };
  const std::string jsonl = run("jsonl");
  EXPECT_EQ(jsonl.rfind(R"({"a":"c/host","b":"c/quote","relation":"contains","container":"c/host",)"
                        R"("contained":"c/quote","estimate":)",
                        0),
            0u)
      << jsonl;
  EXPECT_NE(jsonl.find(R"("jaccard":0.3304,"containment":1,"a_shingles":896,"b_shingles":296})"), std::string::npos)
      << jsonl;
  const std::string csv = run("csv");
  EXPECT_EQ(csv.rfind("a,b,relation,container,contained,estimate,jaccard,containment,a_shingles,b_shingles\n"
                      "c/host,c/quote,contains,c/host,c/quote,",
                      0),
            0u)
      << csv;
  EXPECT_NE(csv.find(",0.3304,1,896,296\n"), std::string::npos) << csv;
  const std::string tsv = run("tsv");
  EXPECT_EQ(tsv.rfind("c/host\tc/quote\tcontains\tc/host\tc/quote\t", 0), 0u) << tsv;
  EXPECT_NE(tsv.find("\t0.3304\t1\t896\t296\n"), std::string::npos) << tsv;
  const std::string json = run("json");
  EXPECT_NE(json.find(R"("relation": "both")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("contained": "c/quote")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("b_shingles": 296)"), std::string::npos) << json;
  // Without --relation, the records are those of before.
  const RunResult plain = RunNeardup({"scan", "c", "-t", "0.3"}, dir.path(), RunOptions().In(dir.path()));
  EXPECT_EQ(plain.out.find("relation"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find(R"("jaccard":0.3304})"), std::string::npos) << plain.out;
}

// The review page's data (-f html): the JSON of its data element.
nlohmann::json PageData(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"data\">";
  const size_t from = page.find(open);
  if (from == std::string::npos) return nullptr;
  const size_t to = page.find("</script>", from);
  return nlohmann::json::parse(page.substr(from + open.size(), to - from - open.size()));
}

// The review page shows a contained document inside its container: the
// container's words, those before and after the span folded, the span
// marked with the edit made in it, the containment both ways and which way.
// Pairs: whichever of the two is first; clusters: the kept container. A
// near-copy pair's page has none of it.
TEST(RelationTest, TheReviewPageMarksTheContainedSpanInsideTheContainer) {
  TempDir dir;
  std::vector<std::string> host = RandomWords(600, 51, 100000);
  std::vector<std::string> quote(host.begin() + 100, host.begin() + 400);
  quote[150] = "edited";
  WriteFile(dir / "c/host", Join(host));
  WriteFile(dir / "c/quote", Join(quote));
  WriteFile(dir / "d/a_quote", Join(quote));
  WriteFile(dir / "d/host", Join(host));
  auto page = [&](const std::string& folder, const std::string& mode) {
    const RunResult r =
        RunNeardup({"scan", folder, "--relation", "both", "--mode", mode, "-f", "html", "-o", "page.html"}, dir.path(),
                   RunOptions().In(dir.path()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return testing::ReadFile(dir / "page.html");
  };
  auto words = [](const std::vector<std::string>& w, size_t from, size_t to) {
    return Join(std::vector<std::string>(w.begin() + static_cast<std::ptrdiff_t>(from),
                                         w.begin() + static_cast<std::ptrdiff_t>(to)));
  };
  // The span view as the container's host[0, 600) with quote = host[100, 400).
  const nlohmann::json want_span = nlohmann::json::array({
      {4, "88"},
      {0, words(host, 88, 100)},
      {1, words(quote, 0, 12)},
      {5, std::to_string(150 - 24)},
      {1, words(quote, 138, 150)},
      {2, host[250]},
      {3, "edited"},
      {1, words(quote, 151, 163)},
      {5, std::to_string(149 - 24)},
      {1, words(quote, 288, 300)},
      {0, words(host, 400, 412)},
      {4, "188"},
  });
  for (const std::string mode : {"pairs", "clusters"}) {
    const std::string html = page("c", mode);
    EXPECT_NE(html.find("the span that holds the contained one marked"), std::string::npos) << mode;
    const nlohmann::json data = PageData(html);
    ASSERT_EQ(data["groups"].size(), 1u) << mode;
    const nlohmann::json& g = data["groups"][0];
    EXPECT_EQ(g["keep"]["name"], "c/host") << mode;
    const nlohmann::json& m = g["members"][0];
    EXPECT_EQ(m["name"], "c/quote");
    EXPECT_EQ(m["contained"], "member") << mode;
    EXPECT_FALSE(m.contains("unlike")) << mode;
    EXPECT_FALSE(m.contains("diff")) << mode;
    EXPECT_NEAR(m["in_kept"].get<double>(), 291.0 / 296, 1e-4) << mode;  // 5 shingles hold the edit
    EXPECT_NEAR(m["kept_in"].get<double>(), 291.0 / 596, 1e-4) << mode;
    EXPECT_EQ(m["span"], want_span) << mode << ": " << m["span"].dump();
  }
  // The first document contained in the second: the same span, the other way.
  const nlohmann::json pair = PageData(page("d", "pairs"))["groups"][0];
  EXPECT_EQ(pair["keep"]["name"], "d/a_quote");
  EXPECT_EQ(pair["members"][0]["contained"], "kept");
  EXPECT_EQ(pair["members"][0]["span"], want_span);
  // Near copies only: a plain word diff, no containment fields.
  const RunResult similar =
      RunNeardup({"scan", "c", "-t", "0.4", "-f", "html", "-o", "page.html"}, dir.path(), RunOptions().In(dir.path()));
  EXPECT_EQ(similar.exit_code, 0) << similar.err;
  const std::string html = testing::ReadFile(dir / "page.html");
  const nlohmann::json m = PageData(html)["groups"][0]["members"][0];
  EXPECT_TRUE(m.contains("diff")) << m.dump();
  for (const char* key : {"span", "contained", "in_kept", "kept_in"}) EXPECT_FALSE(m.contains(key)) << key;
  EXPECT_EQ(html.find("the span that holds"), std::string::npos);
}

// The "index: R reused, S signed" of a run's summary.
std::string ReusedSigned(const std::string& err) {
  const size_t at = err.find("index: ");
  if (at == std::string::npos) return "no index counts in: " + err;
  const size_t end = err.find(" signed", at);
  return err.substr(at + 7, end - at);
}

// A corpus of quotes inside hosts, near copies and unrelated documents.
void WriteQuotes(const TempDir& dir) {
  for (int n = 0; n < 4; ++n) {
    const std::vector<std::string> quote = RandomWords(120 + 40 * static_cast<size_t>(n), 300 + n, 100000);
    std::vector<std::string> host = RandomWords(400, 400 + n, 100000);
    host.insert(host.begin() + 50 * n, quote.begin(), quote.end());
    WriteFile(dir / testing::Numbered("c/host", n), Join(host));
    WriteFile(dir / testing::Numbered("c/quote", n), Join(quote));
    host[200] = "changed";
    WriteFile(dir / testing::Numbered("c/near", n), Join(host));
    WriteFile(dir / testing::Numbered("c/other", n), Join(RandomWords(300, 500 + n, 100000)));
  }
}

// --relation both with --index gives the answer of a scan without it: on a
// new index, on a second run that reuses every document, and on an index
// whose documents have no shingle count (made by a run without --relation,
// or of schema version 4, migrated): those are signed again, this once, as
// a notice says. In pairs and in duplicates mode.
TEST(RelationTest, TheIndexGivesTheAnswerOfAScanWithoutIt) {
  TempDir dir;
  WriteQuotes(dir);
  testing::MtimesAhead(dir / "c", 3600);  // every run through the index, none given again
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"scan", "c", "--relation", "both"});
    RunResult r = RunNeardup(args, dir.path(), RunOptions().In(dir.path()));
    EXPECT_EQ(r.exit_code, 0) << Join(args) << ": " << r.err;
    return r;
  };
  const std::string kNotice = "no distinct-shingle counts";
  for (const std::string mode : {"pairs", "duplicates"}) {
    const std::string plain = run({"--mode", mode}).out;
    EXPECT_NE(plain.find(mode == "pairs" ? R"("contained":"c/quote0")" : "c/quote0"), std::string::npos) << plain;
    const std::string ix = dir / (mode + ".db");
    const RunResult first = run({"--mode", mode, "--index", ix});
    EXPECT_EQ(first.out, plain) << mode;
    EXPECT_EQ(ReusedSigned(first.err), "0 reused, 16 signed") << mode;
    const RunResult second = run({"--mode", mode, "--index", ix});
    EXPECT_EQ(second.out, plain) << mode;
    EXPECT_EQ(ReusedSigned(second.err), "16 reused, 0 signed") << mode;
    EXPECT_EQ(second.err.find(kNotice), std::string::npos) << second.err;
  }
  const std::string plain = run({}).out;
  // An index made without --relation: no counts.
  const std::string ix = dir / "plain.db";
  ASSERT_EQ(RunNeardup({"scan", "c", "-q", "--index", ix}, dir.path(), RunOptions().In(dir.path())).exit_code, 0);
  RunResult filled = run({"--index", ix});
  EXPECT_EQ(filled.out, plain);
  EXPECT_NE(filled.err.find("16 files of the index have " + kNotice), std::string::npos) << filled.err;
  RunResult again = run({"--index", ix});
  EXPECT_EQ(again.out, plain);
  EXPECT_EQ(again.err.find(kNotice), std::string::npos) << again.err;
  // Schema version 4: migrated, the counts filled once.
  ASSERT_EQ(
      testing::RunProcess(
          {"/usr/bin/sqlite3", ix, "ALTER TABLE documents DROP COLUMN shingles; PRAGMA user_version = 4;"}, dir.path())
          .exit_code,
      0);
  filled = run({"--index", ix});
  EXPECT_EQ(filled.out, plain);
  EXPECT_NE(filled.err.find("16 files of the index have " + kNotice), std::string::npos) << filled.err;
  again = run({"--index", ix});
  EXPECT_EQ(again.out, plain);
  EXPECT_EQ(again.err.find(kNotice), std::string::npos) << again.err;
  EXPECT_EQ(testing::RunProcess({"/usr/bin/sqlite3", ix, "PRAGMA user_version;"}, dir.path()).out,
            std::to_string(kIndexSchemaVersion) + "\n");
  EXPECT_EQ(RunNeardup({"index", "check", ix}, dir.path()).exit_code, 0);
}

// --new with --relation both: a quote added after a delivered run is
// reported inside its host, and nothing else.
TEST(RelationTest, NewReportsTheContainmentOfADocumentAddedSince) {
  TempDir dir;
  WriteQuotes(dir);
  const std::string ix = dir / "ix.db";
  auto run = [&](const std::string& out) {
    return RunNeardup({"scan", "c", "--relation", "both", "--index", ix, "--new", "-o", out}, dir.path(),
                      RunOptions().In(dir.path()));
  };
  ASSERT_EQ(run("first.jsonl").exit_code, 0);
  // 300 words of host2 around the quote it holds (at word 100).
  const std::vector<std::string> host = RandomWords(400, 402, 100000);
  const std::vector<std::string> excerpt(host.begin() + 10, host.begin() + 310);
  WriteFile(dir / "c/late", Join(excerpt));
  const RunResult late = run("late.jsonl");
  EXPECT_EQ(late.exit_code, 0) << late.err;
  const std::vector<std::string> pairs = Lines(testing::ReadFile(dir / "late.jsonl"));
  ASSERT_FALSE(pairs.empty());
  for (const std::string& p : pairs) EXPECT_NE(p.find(R"("contained":"c/late")"), std::string::npos) << p;
  const RunResult plain = RunNeardup({"scan", "c", "--relation", "both"}, dir.path(), RunOptions().In(dir.path()));
  size_t with_late = 0;
  for (const std::string& p : Lines(plain.out)) with_late += p.find("c/late") != std::string::npos ? 1 : 0;
  EXPECT_EQ(pairs.size(), with_late);
}

}  // namespace
}  // namespace neardup
