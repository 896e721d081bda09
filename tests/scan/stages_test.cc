// The stages one by one, through their public headers: sign, copy groups,
// candidates, verify, report building, and their composition's cancellation.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "lsh/candidates.h"
#include "lsh/copy_groups.h"
#include "neardup/scan.h"
#include "report/build_report.h"
#include "report/cluster.h"
#include "sign/minhash.h"
#include "sign/sign.h"
#include "sign/sign_internal.h"
#include "test_util.h"
#include "text/jsonl.h"
#include "verify/verify_candidates.h"
#include "walk/walk.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::TempDir;
using testing::WriteFile;

// The same words with every `every`-th one replaced.
std::string Edited(const std::vector<std::string>& words, size_t every) {
  std::vector<std::string> w = words;
  for (size_t i = 0; i < w.size(); i += every) w[i] = std::string("edit").append(std::to_string(i));
  return Join(w);
}

struct Fixture {
  TempDir dir;
  Options options;
  // a.txt and b.txt identical, c.txt a light edit of them, d.txt unrelated,
  // e.txt empty.
  Fixture() {
    const auto words = RandomWords(400, 11);
    WriteFile(dir / "a.txt", Join(words));
    WriteFile(dir / "b.txt", Join(words));
    WriteFile(dir / "c.txt", Edited(words, 40));
    WriteFile(dir / "d.txt", Join(RandomWords(400, 12)));
    WriteFile(dir / "e.txt", "");
    options.paths = {dir.path()};
  }
  SignedCorpus Signed(int threads, bool keep_streams = false) {
    Result<WalkedCorpus> walked = WalkCorpus(options);
    EXPECT_TRUE(walked.ok());
    const MinHasher minhasher(options.num_perm, options.seed);
    Workers w{.threads = threads, .tick = {}, .cancel = nullptr};
    SignProgress counts;
    return Sign({options, minhasher, FileSystem::Default(), w, keep_streams, counts}, std::move(walked->files));
  }
  DocId Id(const SignedCorpus& s, const std::string& name) {
    for (DocId i = 0; i < s.table.docs.size(); ++i) {
      if (s.table.docs[i].name == dir / name) return i;
    }
    ADD_FAILURE() << name;
    return 0;
  }
};

TEST(SignTest, TableFollowsTheWalkAndIsTheSameForEveryThreadCount) {
  Fixture f;
  const SignedCorpus one = f.Signed(1);
  ASSERT_EQ(one.table.size(), 5u);
  EXPECT_EQ(one.table.docs[f.Id(one, "e.txt")].kind, DocKind::kEmpty);
  EXPECT_EQ(one.table.docs[f.Id(one, "a.txt")].kind, DocKind::kOk);
  EXPECT_EQ(one.table.docs[f.Id(one, "a.txt")].content, one.table.docs[f.Id(one, "b.txt")].content);
  EXPECT_FALSE(one.table.docs[f.Id(one, "a.txt")].content == one.table.docs[f.Id(one, "c.txt")].content);
  const SignatureView a = one.table.signature(f.Id(one, "a.txt"));
  EXPECT_EQ(a.size(), 128u);
  EXPECT_TRUE(std::equal(a.begin(), a.end(), one.table.signature(f.Id(one, "b.txt")).begin()));
  for (int threads : {2, 5}) {
    const SignedCorpus many = f.Signed(threads);
    ASSERT_EQ(many.table.size(), one.table.size());
    for (DocId i = 0; i < one.table.size(); ++i) {
      EXPECT_EQ(many.table.docs[i].name, one.table.docs[i].name);
      EXPECT_EQ(many.table.docs[i].content, one.table.docs[i].content);
    }
    EXPECT_TRUE(std::equal(many.table.values().begin(), many.table.values().end(), one.table.values().begin()));
  }
  uint64_t bytes = 0;
  for (const DocRecord& r : one.table.docs) bytes += r.size;
  EXPECT_EQ(one.counts.bytes, bytes);
  EXPECT_GT(bytes, 0u);
}

TEST(SignTest, JsonlIdsThatRepeatAreRenamedFileLine) {
  TempDir dir;
  WriteFile(dir / "x.jsonl",
            "{\"id\":\"same\",\"text\":\"one two three four five six\"}\n"
            "{\"id\":\"other\",\"text\":\"seven eight nine ten eleven\"}\n"
            "not json\n"
            "{\"id\":\"same\",\"text\":\"one two three four five six seven\"}\n");
  Options o;
  o.paths = {dir.path()};
  o.input = InputFormat::kJsonl;
  Result<WalkedCorpus> walked = WalkCorpus(o);
  ASSERT_TRUE(walked.ok());
  const MinHasher minhasher(o.num_perm, o.seed);
  const Workers w{.threads = 2, .tick = {}, .cancel = nullptr};
  SignProgress counts;
  const SignedCorpus s = Sign({o, minhasher, FileSystem::Default(), w, false, counts}, std::move(walked->files));
  ASSERT_EQ(s.table.size(), 3u);
  EXPECT_EQ(s.table.docs[0].name, dir / "x.jsonl:1");
  EXPECT_EQ(s.table.docs[1].name, "other");
  EXPECT_EQ(s.table.docs[2].name, dir / "x.jsonl:4");
  EXPECT_EQ(s.table.docs[2].line, 4u);
  EXPECT_EQ(s.counts.duplicate_ids, 2u);
  int malformed = 0, counted = 0;
  for (const InputProblem& p : s.problems) {
    malformed += p.kind == InputProblem::Kind::kMalformed;
    counted += p.kind == InputProblem::Kind::kCounted;
  }
  EXPECT_EQ(malformed, 1);
  EXPECT_EQ(counted, 1);
}

TEST(SignTest, AFileThatCannotBeOpenedIsAProblemAndTheRestIsSigned) {
  Fixture f;
  Result<WalkedCorpus> walked = WalkCorpus(f.options);
  ASSERT_TRUE(walked.ok());
  std::filesystem::remove(f.dir / "d.txt");  // gone between walk and read
  const MinHasher minhasher(f.options.num_perm, f.options.seed);
  const Workers w{.threads = 2, .tick = {}, .cancel = nullptr};
  SignProgress counts;
  const SignedCorpus s =
      Sign({f.options, minhasher, FileSystem::Default(), w, false, counts}, std::move(walked->files));
  ASSERT_EQ(s.problems.size(), 1u);
  EXPECT_NE(s.problems[0].status.message().find("d.txt"), std::string::npos);
  EXPECT_EQ(s.problems[0].kind, InputProblem::Kind::kUnreadable);
  EXPECT_EQ(s.table.docs[s.problems[0].file].kind, DocKind::kFailed);
  EXPECT_EQ(s.table.docs[f.Id(s, "c.txt")].kind, DocKind::kOk);
}

// Documents that are not signed stay out of the table (Sign keeps them in
// compact lists) and still take part in the unique-id rule: an empty
// document repeating a signed one's id, and an id reading FILE:LINE of an
// empty document without id, are renamed as when every document is in the
// table (SignShare, then RenameDuplicateIds over it).
TEST(SignTest, UnsignedJsonlDocumentsKeepTheirPartInUniqueIds) {
  TempDir dir;
  const std::string x = dir / "x.jsonl";
  WriteFile(x,
            "{\"id\":\"same\",\"text\":\"one two three four five six\"}\n"
            "{\"text\":\"\"}\n"
            "{\"id\":\"" +
                x +
                ":2\",\"text\":\"seven eight nine ten eleven\"}\n"
                "{\"id\":\"same\",\"text\":\"\"}\n"
                "{\"text\":\"short\"}\n"
                "{\"id\":\"lone\",\"text\":\"\"}\n");
  Options o;
  o.paths = {dir.path()};
  o.input = InputFormat::kJsonl;
  o.min_words = 2;
  Result<WalkedCorpus> walked = WalkCorpus(o);
  ASSERT_TRUE(walked.ok());
  const MinHasher minhasher(o.num_perm, o.seed);
  const Workers w{.threads = 2, .tick = {}, .cancel = nullptr};
  SignProgress counts;
  const SignContext ctx{o, minhasher, FileSystem::Default(), w, false, counts};
  const SignedCorpus compact = Sign(ctx, walked->files);
  SignedCorpus full = SignShare(ctx, walked->files);
  RenameDuplicateIds(&full);
  ASSERT_EQ(compact.table.size(), 2u);
  EXPECT_EQ(compact.table.docs[0].name, x + ":1");
  EXPECT_EQ(compact.table.docs[1].name, x + ":3");
  ASSERT_EQ(full.table.size(), 6u);
  EXPECT_EQ(full.table.docs[2].name, x + ":3");
  std::vector<std::string> compact_problems, full_problems;
  for (const InputProblem& p : compact.problems) compact_problems.push_back(p.status.message());
  for (const InputProblem& p : full.problems) full_problems.push_back(p.status.message());
  EXPECT_EQ(compact_problems, full_problems);
  EXPECT_EQ(compact_problems.size(), 2u);
  EXPECT_EQ(compact.counts.duplicate_ids, 4u);
  EXPECT_EQ(full.counts.duplicate_ids, 4u);
  const Stats stats = CountRead(compact, {});
  EXPECT_EQ(stats.empty, 3u);
  EXPECT_EQ(stats.too_short, 1u);
  EXPECT_EQ(stats.documents, 2u);
}

// RenameDuplicateIds against the rule written out plainly (a stable sort
// of the documents by name, then each run of equal names, repeated until no
// name is taken twice): the same names, the same problems in the same
// order, the same count, on ids drawn from a small pool, ids that read
// FILE:LINE of another document, and documents named FILE:LINE already.
TEST(SignTest, DuplicateIdsAreRenamedAsThePlainRuleSays) {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 20; ++round) {
    SignedCorpus corpus;
    for (const char* path : {"a.jsonl", "b.jsonl"}) {
      InputFile f;
      f.path = path;
      corpus.table.files.push_back(f);
    }
    const size_t n = 50 + rng() % 3000;
    for (size_t k = 0; k < n; ++k) {
      DocRecord d;
      d.file = k < n / 3 ? 0 : 1;
      d.line = d.file == 0 ? k + 1 : k - n / 3 + 1;
      const uint64_t pick = rng() % 10;
      const std::string file = d.file == 0 ? "a.jsonl" : "b.jsonl";
      if (pick < 4) {
        d.name = "dup-" + std::to_string(rng() % (n / 8 + 1));
      } else if (pick < 5) {
        d.name = (rng() % 2 == 0 ? "a.jsonl:" : "b.jsonl:") + std::to_string(1 + rng() % n);
      } else if (pick < 6) {
        d.name = file + ":" + std::to_string(d.line);  // no id
      } else {
        d.name = "u-" + std::to_string(k);
      }
      corpus.table.docs.push_back(d);
    }
    // The plain rule.
    std::vector<std::string> want_names;
    for (const DocRecord& d : corpus.table.docs) want_names.push_back(d.name);
    std::vector<std::string> want_problems;
    uint64_t want_count = 0;
    std::vector<char> renamed(n, 0);
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<size_t> order(n);
      std::iota(order.begin(), order.end(), size_t{0});
      std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return want_names[x] < want_names[y]; });
      for (size_t lo = 0; lo < n;) {
        size_t hi = lo + 1;
        while (hi < n && want_names[order[hi]] == want_names[order[lo]]) ++hi;
        if (hi - lo > 1) {
          const std::string id = want_names[order[lo]];
          std::string where;
          for (size_t k = lo; k < hi; ++k) {
            const DocRecord& d = corpus.table.docs[order[k]];
            const std::string at = corpus.table.files[d.file].path + ":" + std::to_string(d.line);
            if (renamed[order[k]] == 0) where += (where.empty() ? "" : ", ") + at;
            if (want_names[order[k]] != at) {
              want_names[order[k]] = at;
              renamed[order[k]] = 1;
              changed = true;
            }
          }
          want_problems.push_back("id \"" + id + "\" is not unique (" + where +
                                  "); each of these documents is named FILE:LINE");
          want_count += hi - lo;
        }
        lo = hi;
      }
    }
    RenameDuplicateIds(&corpus);
    std::vector<std::string> names, problems;
    for (const DocRecord& d : corpus.table.docs) names.push_back(d.name);
    for (const InputProblem& p : corpus.problems) problems.push_back(p.status.message());
    EXPECT_EQ(names, want_names) << round;
    EXPECT_EQ(problems, want_problems) << round;
    EXPECT_EQ(corpus.counts.duplicate_ids, want_count) << round;
    EXPECT_FALSE(want_problems.empty()) << round;  // the pool makes repeats
    const std::set<std::string> distinct(names.begin(), names.end());
    EXPECT_EQ(distinct.size(), n) << round;
  }
}

// JSONL is cut into 1 MiB blocks read in parallel: lines across block
// boundaries, CRLF, over-long lines (dropped without being held) and a last
// line without a newline must give what LineSplitter gives line by line.
TEST(SignTest, JsonlBlocksSplitLinesAsLineSplitterDoes) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    TempDir dir;
    std::mt19937_64 rng(seed);
    std::string bytes;
    while (bytes.size() < (5u << 20)) {
      const uint64_t kind = rng() % 10;
      const size_t words = kind == 0 ? 30000 + rng() % 30000 : kind == 1 ? 0 : 1 + rng() % 400;
      std::string text;
      for (size_t w = 0; w < words; ++w) text.append("w").append(std::to_string(rng() % 5000)).append(" ");
      if (kind == 2) {
        bytes.append("not json");
      } else {
        bytes.append("{\"text\":\"").append(text).append("\"}");
      }
      bytes += rng() % 3 == 0 ? "\r\n" : "\n";
    }
    bytes += "{\"text\":\"the last line has no newline\"}";
    WriteFile(dir / "x.jsonl", bytes);
    Options o;
    o.paths = {dir.path()};
    o.input = InputFormat::kJsonl;
    o.max_line = 200000;
    Result<WalkedCorpus> walked = WalkCorpus(o);
    ASSERT_TRUE(walked.ok());
    const MinHasher minhasher(o.num_perm, o.seed);
    const Workers w{.threads = 3, .tick = {}, .cancel = nullptr};
    SignProgress counts;
    const SignedCorpus s = Sign({o, minhasher, FileSystem::Default(), w, false, counts}, std::move(walked->files));
    // The same lines by LineSplitter, fed in odd chunks.
    LineSplitter splitter(o.max_line);
    std::set<uint64_t> too_long, docs;
    std::string_view line;
    uint64_t ln = 0;
    for (size_t at = 0; at < bytes.size(); at += 77777) {
      splitter.Feed(std::string_view(bytes).substr(at, 77777));
      while (splitter.Next(&line, &ln)) (splitter.too_long() ? too_long : docs).insert(ln);
    }
    splitter.Finish();
    while (splitter.Next(&line, &ln)) (splitter.too_long() ? too_long : docs).insert(ln);
    std::set<uint64_t> got_too_long, got_malformed, got_docs;
    for (const InputProblem& p : s.problems) {
      ASSERT_EQ(p.kind, InputProblem::Kind::kMalformed);
      (p.status.message().find("--max-line") != std::string::npos ? got_too_long : got_malformed).insert(p.line);
    }
    for (const DocRecord& r : s.table.docs) {
      got_docs.insert(r.line);
      EXPECT_EQ(r.name, (dir / "x.jsonl:").append(std::to_string(r.line)));
    }
    for (const UnsignedDoc& u : s.unnamed_unsigned) got_docs.insert(u.line);  // the empty ones
    EXPECT_TRUE(s.named_unsigned.empty());
    EXPECT_EQ(got_too_long, too_long) << seed;
    EXPECT_FALSE(too_long.empty());
    std::set<uint64_t> parsed = got_docs;
    parsed.insert(got_malformed.begin(), got_malformed.end());
    EXPECT_EQ(parsed, docs) << seed;  // every kept line is a document or malformed
    EXPECT_EQ(*got_docs.rbegin(), ln) << "the last line, without a newline";
  }
}

TEST(CopyGroupsTest, GroupsOkDocumentsByContentUnderTheSmallestId) {
  Fixture f;
  const SignedCorpus s = f.Signed(1);
  CopyGroups g = CopyGroups::Build(s.table);
  const DocId a = f.Id(s, "a.txt"), b = f.Id(s, "b.txt"), c = f.Id(s, "c.txt"), e = f.Id(s, "e.txt");
  EXPECT_EQ(g.size(), 3u);  // {a, b}, {c}, {d}; e is empty
  EXPECT_EQ(g.rep_of(b), std::min(a, b));
  EXPECT_EQ(g.rep_of(a), std::min(a, b));
  EXPECT_EQ(g.rep_of(c), c);
  EXPECT_EQ(g.rep_of(e), CopyGroups::kNone);
  EXPECT_EQ(g.copies(), 1u);
  const auto ab = g.members_of(g.rep_of(a));
  EXPECT_EQ(std::vector<DocId>(ab.begin(), ab.end()), (std::vector<DocId>{std::min(a, b), std::max(a, b)}));
  // Verification keeps only b of the group.
  g.KeepOnly({g.slot_of(g.rep_of(a))}, {{b}});
  EXPECT_EQ(g.rep_of(a), CopyGroups::kNone);
  EXPECT_EQ(g.copies(), 0u);
  EXPECT_EQ(g.members(g.slot_of(std::min(a, b))).size(), 1u);
}

// FindCandidates, which must succeed here.
Candidates Found(const SignatureTable& table, const CopyGroups& groups, const Options& options, Banding banding,
                 const Workers& workers) {
  Result<Candidates> found = FindCandidates(table, groups, options, banding, workers);
  EXPECT_TRUE(found.ok()) << found.status().message();
  return found.ok() ? std::move(*found) : Candidates{};
}

TEST(CandidatesTest, FindsTheEditedCopyOnlyAndTheSameForEveryThreadCount) {
  Fixture f;
  const SignedCorpus s = f.Signed(1);
  const CopyGroups g = CopyGroups::Build(s.table);
  f.options.threshold = 0.7;
  const Banding banding = ChooseBanding(f.options.threshold, f.options.num_perm);
  const Candidates one = Found(s.table, g, f.options, banding, Workers{.threads = 1, .tick = {}, .cancel = nullptr});
  const std::vector<Candidate> p = one.pairs.ToVector();
  ASSERT_EQ(p.size(), 1u);
  const DocId rep_ab = g.rep_of(f.Id(s, "a.txt"));
  EXPECT_EQ(std::set<DocId>({p[0].a, p[0].b}), std::set<DocId>({rep_ab, f.Id(s, "c.txt")}));
  EXPECT_LT(p[0].a, p[0].b);
  EXPECT_GT(p[0].estimate, 0.7);
  EXPECT_EQ(p[0].jaccard, -1);
  const Candidates three = Found(s.table, g, f.options, banding, Workers{.threads = 3, .tick = {}, .cancel = nullptr});
  ASSERT_EQ(three.pairs.ToVector().size(), 1u);
  EXPECT_EQ(three.visited, one.visited);
}

// --exact-all at -t 0.5 with 128 bands of one row: p and q (every 10th word
// changed: Jaccard 1/3) and r and s (every 20th: 0.6) share MinHash values,
// so both pairs are candidates without bitmaps. With the bitmaps Sign()
// builds for --exact, p and q cannot reach 0.5 and are not kept; r and s
// are, as with every thread count.
TEST(CandidatesTest, PairsTheBitmapsRuleOutAreNotKept) {
  Fixture f;
  auto words = RandomWords(2000, 41);
  WriteFile(f.dir / "p.txt", Join(words));
  for (size_t i = 0; i < words.size(); i += 10) words[i] = testing::Numbered("x", static_cast<long long>(i));
  WriteFile(f.dir / "q.txt", Join(words));
  words = RandomWords(2000, 42);
  WriteFile(f.dir / "r.txt", Join(words));
  for (size_t i = 0; i < words.size(); i += 20) words[i] = testing::Numbered("y", static_cast<long long>(i));
  WriteFile(f.dir / "s.txt", Join(words));
  f.options.verify = VerifyMode::kExact;
  f.options.threshold = 0.5;
  f.options.exact_margin = 0;
  const Banding banding{.bands = 128, .rows = 1};
  const SignedCorpus s = f.Signed(2);
  ASSERT_EQ(s.bitmaps.size(), s.table.docs.size());
  const CopyGroups g = CopyGroups::Build(s.table);
  const DocId p = f.Id(s, "p.txt"), q = f.Id(s, "q.txt"), r = f.Id(s, "r.txt"), t = f.Id(s, "s.txt");
  auto has = [](const std::vector<Candidate>& pairs, DocId x, DocId y) {
    return std::any_of(pairs.begin(), pairs.end(),
                       [&](const Candidate& c) { return (c.a == x && c.b == y) || (c.a == y && c.b == x); });
  };
  const Workers two{.threads = 2, .tick = {}, .cancel = nullptr};
  const std::vector<Candidate> all = Found(s.table, g, f.options, banding, two).pairs.ToVector();
  EXPECT_TRUE(has(all, p, q));
  EXPECT_TRUE(has(all, r, t));
  for (const int threads : {1, 2, 3}) {
    const Workers w{.threads = threads, .tick = {}, .cancel = nullptr};
    Result<Candidates> bounded = FindCandidates(s.table, g, f.options, banding, w, s.bitmaps);
    ASSERT_TRUE(bounded.ok()) << bounded.status().message();
    const std::vector<Candidate> kept = bounded->pairs.ToVector();
    EXPECT_FALSE(has(kept, p, q)) << threads;
    EXPECT_TRUE(has(kept, r, t)) << threads;
    EXPECT_LT(kept.size(), all.size()) << threads;
    EXPECT_EQ(bounded->visited, Found(s.table, g, f.options, banding, w).visited) << threads;
  }
}

// 300 documents that agree in every band: in pairs mode all 44,850 pairs are
// candidates; in cluster mode the bucket goes to leaders and stays linear.
TEST(CandidatesTest, LargeBucketsGoToLeadersInClusterModes) {
  const int n = 300;
  SignatureTable table(16);
  for (int i = 0; i < n; ++i) {
    DocRecord r;
    r.kind = DocKind::kOk;
    r.content = {static_cast<uint64_t>(i), 0};
    const DocId id = table.Add(r);
    for (int k = 0; k < 16; ++k) table.MutableSignature(id)[k] = k < 15 ? 7u : static_cast<uint32_t>(i);
  }
  const CopyGroups g = CopyGroups::Build(table);
  Options o;
  o.num_perm = 16;
  o.threshold = 0.9;
  const Banding banding{1, 8};
  const Workers w{.threads = 2, .tick = {}, .cancel = nullptr};
  o.mode = Mode::kPairs;
  EXPECT_EQ(Found(table, g, o, banding, w).pairs.ToVector().size(), static_cast<size_t>(n * (n - 1) / 2));
  o.mode = Mode::kClusters;
  const Candidates led = Found(table, g, o, banding, w);
  EXPECT_EQ(led.pairs.ToVector().size(), static_cast<size_t>(n - 1));  // 15/16 agree: all join the first leader
  for (const Candidate& c : led.pairs) EXPECT_EQ(c.a, 0u);
}

TEST(VerifyTest, SignatureModeAcceptsTheCandidatesAsFound) {
  Fixture f;
  const SignedCorpus s = f.Signed(1);
  CopyGroups g = CopyGroups::Build(s.table);
  f.options.threshold = 0.7;
  Candidates c = Found(s.table, g, f.options, ChooseBanding(0.7, 128), Workers{});
  const std::vector<Candidate> found = c.pairs.ToVector();
  const MinHasher minhasher(f.options.num_perm, f.options.seed);
  const Verification rule = VerificationOf(f.options);
  const Workers w;
  RereadProgress reread;
  Result<Verified> verified =
      VerifyCandidates({f.options, rule, minhasher, FileSystem::Default(), w, reread}, s, &g, std::move(c));
  ASSERT_TRUE(verified.ok());
  const Verified& v = *verified;
  const std::vector<Candidate> accepted = v.pairs.ToVector();
  ASSERT_EQ(accepted.size(), 1u);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(accepted[0].estimate, found[0].estimate);
  EXPECT_TRUE(v.Similar(f.Id(s, "a.txt"), f.Id(s, "b.txt")));
  EXPECT_TRUE(v.Similar(f.Id(s, "a.txt"), f.Id(s, "c.txt")));
  EXPECT_FALSE(v.Similar(f.Id(s, "a.txt"), f.Id(s, "d.txt")));
}

TEST(VerifyTest, ExactModeMeasuresJaccardAndLeavesOutAFileChangedSinceSigning) {
  Fixture f;
  f.options.verify = VerifyMode::kExact;
  f.options.threshold = 0.7;
  const SignedCorpus s = f.Signed(2, true);
  CopyGroups g = CopyGroups::Build(s.table);
  Candidates c = Found(s.table, g, f.options, ChooseBanding(0.7, 128), Workers{});
  ASSERT_EQ(c.pairs.ToVector().size(), 1u);
  // b.txt changes after signing (new size): it is left out of its group.
  WriteFile(f.dir / "b.txt", "changed now");
  const MinHasher minhasher(f.options.num_perm, f.options.seed);
  const Verification rule = VerificationOf(f.options);
  const Workers w{.threads = 2, .tick = {}, .cancel = nullptr};
  RereadProgress reread;
  Result<Verified> verified =
      VerifyCandidates({f.options, rule, minhasher, FileSystem::Default(), w, reread}, s, &g, std::move(c));
  ASSERT_TRUE(verified.ok());
  // The documents of the candidate pair's groups were read again, and counted.
  EXPECT_GE(reread.total.load(), 2u);
  EXPECT_EQ(reread.done.load(), reread.total.load());
  const Verified& v = *verified;
  ASSERT_EQ(v.left_out.size(), 1u);
  EXPECT_EQ(v.left_out[0].first, f.Id(s, "b.txt"));
  EXPECT_EQ(g.rep_of(f.Id(s, "b.txt")), CopyGroups::kNone);
  const std::vector<Candidate> accepted = v.pairs.ToVector();
  ASSERT_EQ(accepted.size(), 1u);
  EXPECT_GT(accepted[0].jaccard, 0.7);
  EXPECT_LT(accepted[0].jaccard, 1.0);
}

// Pairs mode needs no shingle set after verification (keep_sets false): the
// pairs of two documents alone in their groups are then checked while the
// documents are read, and their sets are given back. Ten families of a text
// and three edits of it (every 15th, 25th and 40th word: Jaccard 0.35 to
// 0.8, several pairs a document), one family whose text is also copied (a group of
// two, whose pairs are checked after the reads as before), and one edit
// changed after signing: the same pairs, Jaccard values and left-out
// document as when every set is kept, with 1, 2 and 3 threads; the sets kept
// are only those of the copy group's family. Past the budget, all are kept.
TEST(VerifyTest, PairsOfLoneDocumentsAreCheckedWhileReadAndTheirSetsGivenBack) {
  TempDir dir;
  Options o;
  o.paths = {dir.path()};
  o.verify = VerifyMode::kExact;
  o.threshold = 0.4;
  o.exact_margin = 0;
  for (int f = 0; f < 11; ++f) {
    const auto words = RandomWords(300, 100 + static_cast<uint32_t>(f));
    const std::string family = "f" + std::to_string(f);
    WriteFile(dir / (family + "-0.txt"), Join(words));
    for (const size_t every : {15, 25, 40})
      WriteFile(dir / (family + "-e" + std::to_string(every) + ".txt"), Edited(words, every));
    if (f == 10) WriteFile(dir / (family + "-copy.txt"), Join(words));
  }
  const MinHasher minhasher(o.num_perm, o.seed);
  const Workers sign_workers{.threads = 2, .tick = {}, .cancel = nullptr};
  SignProgress counts;
  Result<WalkedCorpus> walked = WalkCorpus(o);
  ASSERT_TRUE(walked.ok());
  const SignedCorpus s =
      Sign({o, minhasher, FileSystem::Default(), sign_workers, false, counts}, std::move(walked->files));
  WriteFile(dir / "f4-e25.txt", "changed after signing");
  auto id = [&](const std::string& name) {
    for (DocId i = 0; i < s.table.docs.size(); ++i) {
      if (s.table.docs[i].name == dir / name) return i;
    }
    ADD_FAILURE() << name;
    return DocId{0};
  };
  const Verification rule = VerificationOf(o);
  const Banding banding{.bands = 64, .rows = 2};
  struct Outcome {
    std::vector<Candidate> pairs;
    std::vector<DocId> left_out;
    std::set<DocId> sets;
  };
  auto verify = [&](bool keep_sets, int threads) {
    const Workers w{.threads = threads, .tick = {}, .cancel = nullptr};
    CopyGroups g = CopyGroups::Build(s.table);
    Result<Candidates> c = FindCandidates(s.table, g, o, banding, w);
    EXPECT_TRUE(c.ok());
    RereadProgress reread;
    VerifyContext ctx{o, rule, minhasher, FileSystem::Default(), w, reread};
    ctx.keep_sets = keep_sets;
    Result<Verified> v = VerifyCandidates(ctx, s, &g, std::move(*c));
    EXPECT_TRUE(v.ok()) << v.status().message();
    Outcome out;
    if (!v.ok()) return out;
    out.pairs = v->pairs.ToVector();
    for (const auto& [doc, why] : v->left_out) out.left_out.push_back(doc);
    for (const auto& [doc, set] : v->sets()) {
      EXPECT_FALSE(set.empty());
      out.sets.insert(doc);
    }
    return out;
  };
  const Outcome kept = verify(true, 2);
  EXPECT_GE(kept.pairs.size(), 30u);
  EXPECT_EQ(kept.left_out, std::vector<DocId>{id("f4-e25.txt")});
  const DocId copy_rep = std::min(id("f10-0.txt"), id("f10-copy.txt"));
  for (const Candidate& p : kept.pairs) {
    EXPECT_NE(p.a, id("f4-e25.txt"));
    EXPECT_NE(p.b, id("f4-e25.txt"));
  }
  auto family_of = [&](DocId d) {
    return std::filesystem::path(s.table.docs[d].name).filename().string().substr(0, 3);
  };
  for (const int threads : {1, 2, 3}) {
    const Outcome streamed = verify(false, threads);
    ASSERT_EQ(streamed.pairs.size(), kept.pairs.size()) << threads;
    for (size_t k = 0; k < kept.pairs.size(); ++k) {
      EXPECT_EQ(streamed.pairs[k].a, kept.pairs[k].a);
      EXPECT_EQ(streamed.pairs[k].b, kept.pairs[k].b);
      EXPECT_EQ(streamed.pairs[k].jaccard, kept.pairs[k].jaccard);
      EXPECT_EQ(streamed.pairs[k].estimate, kept.pairs[k].estimate);
    }
    EXPECT_EQ(streamed.left_out, kept.left_out) << threads;
    EXPECT_TRUE(streamed.sets.count(copy_rep)) << threads;
    for (const DocId d : streamed.sets) {
      EXPECT_TRUE(kept.sets.count(d)) << d << " with " << threads;
      EXPECT_EQ(family_of(d), "f10") << d << " with " << threads;  // the copy group's family
    }
    EXPECT_GE(kept.sets.size(), streamed.sets.size() + 25) << threads;
  }
  // Past a quarter of the pair budget at 32 bytes a pair (here 8 pairs),
  // nothing is streamed: every set is kept, and the pairs are the same.
  o.pair_memory = 4 * 32 * 8;
  const Outcome over = verify(false, 2);
  EXPECT_EQ(over.sets, kept.sets);
  ASSERT_EQ(over.pairs.size(), kept.pairs.size());
  for (size_t k = 0; k < kept.pairs.size(); ++k) EXPECT_EQ(over.pairs[k].jaccard, kept.pairs[k].jaccard);
}

std::vector<DocEntry> EntriesOf(const SignatureTable& t) {
  std::vector<DocEntry> out;
  for (const DocRecord& r : t.docs) out.push_back({r.name, r.size, r.mtime_ns, r.reference});
  return out;
}

TEST(BuildReportTest, PairsExpandGroupsAndClustersListRemovableOnce) {
  Fixture f;
  f.options.threshold = 0.7;
  f.options.verify = VerifyMode::kSignature;
  const SignedCorpus s = f.Signed(1);
  CopyGroups g = CopyGroups::Build(s.table);
  const MinHasher minhasher(f.options.num_perm, f.options.seed);
  const Verification rule = VerificationOf(f.options);
  const Workers w;
  RereadProgress reread;
  Result<Verified> verified = VerifyCandidates({f.options, rule, minhasher, FileSystem::Default(), w, reread}, s, &g,
                                               Found(s.table, g, f.options, ChooseBanding(0.7, 128), w));
  ASSERT_TRUE(verified.ok());
  const Verified& v = *verified;
  const std::vector<DocEntry> docs = EntriesOf(s.table);
  Result<PairList> pairs = BuildPairs(g, v.pairs, f.options, docs);
  ASSERT_TRUE(pairs.ok());
  EXPECT_EQ(pairs->pairs.size(), 3u);  // a-b, a-c, b-c
  std::set<std::pair<std::string, std::string>> names;
  for (const auto& p : pairs->pairs) {
    EXPECT_LT(docs[p.a].name, docs[p.b].name);
    names.insert({docs[p.a].name, docs[p.b].name});
  }
  EXPECT_EQ(names.count({f.dir / "a.txt", f.dir / "b.txt"}), 1u);
  EXPECT_EQ(names.count({f.dir / "a.txt", f.dir / "c.txt"}), 1u);

  f.options.mode = Mode::kDuplicates;
  Result<Clustering> built = BuildClustering(g, v, f.options, docs);
  ASSERT_TRUE(built.ok());
  const Clustering& clusters = *built;
  ASSERT_EQ(clusters.clusters.size(), 1u);
  EXPECT_EQ(docs[clusters.clusters[0].keep].name, f.dir / "a.txt");
  ASSERT_EQ(clusters.removable.size(), 2u);
  for (const Removal& r : clusters.removable) {
    EXPECT_EQ(r.kept, clusters.clusters[0].keep);
    EXPECT_GE(r.estimate, 0.7);  // each removable document is like the kept one
    EXPECT_EQ(r.jaccard, -1);    // not computed with --verify signature
  }
}

// Clustering tells how far it is: every kLinkedEvery verified pairs linked.
// 3,000 light edits of one text: more than kLinkedEvery verified pairs.
TEST(BuildReportTest, ClusteringTellsThePairsLinked) {
  Fixture f;
  const auto words = RandomWords(300, 31);
  for (int i = 0; i < 3000; ++i) {
    std::vector<std::string> w = words;
    w[static_cast<size_t>(i % 300)] = "edit" + std::to_string(i);
    WriteFile(f.dir / ("near/" + std::to_string(i) + ".txt"), Join(w));
  }
  f.options.paths = {f.dir / "near"};
  f.options.mode = Mode::kClusters;
  const SignedCorpus s = f.Signed(2);
  CopyGroups g = CopyGroups::Build(s.table);
  const MinHasher minhasher(f.options.num_perm, f.options.seed);
  const Workers w;
  RereadProgress reread;
  Result<Verified> verified =
      VerifyCandidates({f.options, VerificationOf(f.options), minhasher, FileSystem::Default(), w, reread}, s, &g,
                       Found(s.table, g, f.options, ChooseBanding(0.8, 128), w));
  ASSERT_TRUE(verified.ok());
  uint64_t pairs = 0;
  for (const Candidate& c : verified->pairs) pairs += c.a != c.b ? 1 : 0;
  ASSERT_GE(pairs, kLinkedEvery) << "too few pairs for the test";
  std::vector<uint64_t> told;
  Result<Clustering> built =
      BuildClustering(g, *verified, f.options, EntriesOf(s.table), [&told](uint64_t n) { told.push_back(n); });
  ASSERT_TRUE(built.ok());
  ASSERT_EQ(built->clusters.size(), 1u);
  ASSERT_GE(told.size(), 1u);
  for (size_t i = 0; i < told.size(); ++i) EXPECT_EQ(told[i], (i + 1) * kLinkedEvery);
  EXPECT_LE(told.back(), pairs);
  EXPECT_GT(told.back() + kLinkedEvery, pairs);  // every kLinkedEvery, none left out
}

// --verify none takes every candidate, so C (about 0.33 like A) joins A and
// B's component; --cluster-by keep then compares each member with the kept
// document by signature, and C is not in A's cluster.
TEST(FindDuplicatesTest, ClusterByKeepWithVerifyNoneComparesBySignature) {
  TempDir dir;
  const auto words = RandomWords(2000, 5);
  WriteFile(dir / "a.txt", Join(words));
  WriteFile(dir / "b.txt", Edited(words, 100));
  WriteFile(dir / "c.txt", Edited(words, 10));
  Options o;
  o.paths = {dir.path()};
  o.verify = VerifyMode::kNone;
  o.bands = 64;
  o.rows = 2;
  o.mode = Mode::kClusters;
  o.cluster_by = ClusterBy::kConnected;
  Result<Report> connected = FindDuplicates(o);
  ASSERT_TRUE(connected.ok());
  ASSERT_EQ(connected->clusters.size(), 1u);
  EXPECT_EQ(connected->clusters[0].members.size(), 3u);
  o.cluster_by = ClusterBy::kKeep;
  Result<Report> kept = FindDuplicates(o);
  ASSERT_TRUE(kept.ok());
  ASSERT_EQ(kept->clusters.size(), 1u);
  ASSERT_EQ(kept->clusters[0].members.size(), 2u);
  EXPECT_EQ(kept->docs[kept->clusters[0].members[1]].name, dir / "b.txt");
}

TEST(FindDuplicatesTest, CancelFromTheProgressCallbackStopsTheRun) {
  TempDir dir;
  for (int i = 0; i < 2000; ++i)
    WriteFile(dir / testing::Numbered("f", i), Join(RandomWords(50, static_cast<uint64_t>(i))));
  Options o;
  o.paths = {dir.path()};
  o.threads = 1;
  std::atomic<bool> cancel{false};
  RunContext ctx;
  ctx.cancel = &cancel;
  ctx.progress = [&](const Progress& p) {
    if (p.stage == Stage::kReading) cancel = true;
  };
  Result<Report> r = FindDuplicates(o, ctx);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kCancelled);
}

}  // namespace
}  // namespace neardup
