#include "report/build_report.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "lsh/relation.h"
#include "neardup/quote.h"
#include "report/cluster.h"

namespace neardup {

namespace {

// Output order is by names: the documents in some pair (`used`) ranked by
// name once, equal names by id; a pair's sort key is then its two ranks.
// (The others are not sorted: a run has far fewer documents in pairs than
// documents.)
std::vector<uint32_t> RankByName(const std::vector<DocEntry>& docs, const std::vector<uint8_t>& used) {
  std::vector<uint32_t> order;
  for (uint32_t d = 0; d < docs.size(); ++d) {
    if (used[d] != 0) order.push_back(d);
  }
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    const int c = docs[x].name.compare(docs[y].name);
    return c != 0 ? c < 0 : x < y;
  });
  std::vector<uint32_t> rank(docs.size(), UINT32_MAX);
  for (uint32_t r = 0; r < order.size(); ++r) rank[order[r]] = r;
  return rank;
}

// The member of each group that stands for it in the cluster graph: its
// first non-reference member if it has one, so that no edge stands for a
// pair of reference documents alone; kNone for a group left empty.
std::vector<DocId> Anchors(const CopyGroups& groups, const std::vector<DocEntry>& docs) {
  std::vector<DocId> anchor(groups.size(), CopyGroups::kNone);
  for (size_t k = 0; k < groups.size(); ++k) {
    const auto members = groups.members(k);
    if (members.empty()) continue;  // all left out (--exact)
    anchor[k] = members[0];
    for (DocId m : members) {
      if (!docs[m].reference) {
        anchor[k] = m;
        break;
      }
    }
  }
  return anchor;
}

// Per document, 1 when it is in some pair: of `verified`, or of a group of
// copies. Errors: reading `verified`.
Result<std::vector<uint8_t>> InSomePair(const CopyGroups& groups, const CandidatePairs& verified, size_t docs) {
  std::vector<uint8_t> used(docs, 0);
  for (const Candidate& p : verified) {
    for (DocId x : groups.members_of(p.a)) used[x] = 1;
    for (DocId y : groups.members_of(p.b)) used[y] = 1;
  }
  if (!verified.status().ok()) return verified.status();
  for (size_t k = 0; k < groups.size(); ++k) {
    const auto m = groups.members(k);
    if (m.size() < 2) continue;
    for (DocId x : m) used[x] = 1;
  }
  return used;
}

// The kind of a pair whose two documents change places.
PairKind Swapped(PairKind kind) {
  switch (kind) {
    case PairKind::kAInB:
      return PairKind::kBInA;
    case PairKind::kBInA:
      return PairKind::kAInB;
    default:
      return kind;
  }
}

}  // namespace

Result<PairList> BuildPairs(const CopyGroups& groups, const CandidatePairs& verified, const Options& options,
                            const std::vector<DocEntry>& docs) {
  const bool exact = options.verify == VerifyMode::kExact;
  Result<std::vector<uint8_t>> used = InSomePair(groups, verified, docs.size());
  if (!used.ok()) return used.status();
  const std::vector<uint32_t> rank = RankByName(docs, *used);
  SortedPairs pairs(options.pair_memory);
  Status status;
  const bool relations = options.relation != Relation::kSimilar;
  auto add = [&](DocId x, DocId y, double est, double jac, PairKind kind) {
    if (!status.ok() || (docs[x].reference && docs[y].reference)) return;
    if (rank[y] < rank[x]) {
      std::swap(x, y);
      kind = Swapped(kind);
    }
    ReportedPair pair{.a = x, .b = y, .estimate = est, .jaccard = jac, .kind = kind, .containment = -1};
    if (relations) {
      pair.containment = ContainmentOfSmaller(jac >= 0 ? jac : est, docs[x].shingles, docs[y].shingles, jac >= 0);
    }
    status = pairs.Add(uint64_t{rank[x]} << 32 | rank[y], pair);
  };
  uint64_t largest_group = 0;
  DocId largest_rep = CopyGroups::kNone;
  auto note_group = [&](uint64_t n_pairs, DocId rep) {
    if (n_pairs > largest_group) {
      largest_group = n_pairs;
      largest_rep = rep;
    }
  };
  // A failed spill ends the loops at once: what is left would be lost.
  for (const Candidate& p : verified) {
    if (!status.ok()) break;
    const auto ma = groups.members_of(p.a);
    const auto mb = groups.members_of(p.b);
    note_group(uint64_t{ma.size()} * mb.size(), p.a);
    for (DocId x : ma) {
      for (DocId y : mb) add(x, y, p.estimate, p.jaccard, p.kind);
    }
  }
  if (status.ok()) status = verified.status();
  // Copies are near copies: --relation contains alone reports none.
  for (size_t k = 0; k < groups.size() && status.ok() && options.relation != Relation::kContains; ++k) {
    const auto m = groups.members(k);
    note_group(uint64_t{m.size()} * (m.size() - 1) / 2, groups.representative(k));
    for (size_t i = 0; i < m.size() && status.ok(); ++i) {
      for (size_t j = i + 1; j < m.size(); ++j) add(m[i], m[j], 1.0, exact ? 1.0 : -1.0, PairKind::kSimilar);
    }
  }
  if (status.ok()) status = pairs.Finish();
  if (!status.ok()) return status;
  PairList out{.pairs = std::move(pairs), .notices = {}};
  if (largest_group > kManyPairs) {
    out.notices.push_back(ShellQuoted(docs[largest_rep].name) + " and its copies make " +
                          std::to_string(largest_group) + " pairs; --mode clusters reports each group of copies once");
  }
  return out;
}

Result<Clustering> BuildClustering(const CopyGroups& groups, const Verified& verified, const Options& options,
                                   const std::vector<DocEntry>& docs,
                                   const std::function<void(uint64_t linked)>& linked) {
  const std::vector<DocId> anchor = Anchors(groups, docs);
  ClusterLinks links(docs.size(), options.cluster_by, options.pair_memory);
  for (size_t k = 0; k < groups.size(); ++k) {
    for (DocId m : groups.members(k)) {
      if (m != anchor[k] && !(docs[m].reference && docs[anchor[k]].reference)) links.Copies(anchor[k], m);
    }
  }
  uint64_t n = 0;
  for (const Candidate& p : verified.pairs) {
    if (++n % kLinkedEvery == 0 && linked) linked(n);
    const DocId x = anchor[groups.slot_of(p.a)];
    const DocId y = anchor[groups.slot_of(p.b)];
    if (docs[x].reference && docs[y].reference) continue;
    if (Status s = links.Link(x, y); !s.ok()) return s;
  }
  if (!verified.pairs.status().ok()) return verified.pairs.status();
  // A member stays with the kept document when it is like it (not with
  // --relation contains alone) or contained in it, never when it contains it.
  const bool near_copies = options.relation != Relation::kContains;
  Result<std::vector<Cluster>> clusters =
      BuildClusters(docs, std::move(links), options.keep, [&verified, near_copies](DocId kept, DocId m) {
        return (near_copies && verified.Similar(kept, m)) || verified.ContainedIn(m, kept);
      });
  if (!clusters.ok()) return clusters.status();
  Clustering out;
  out.clusters = std::move(*clusters);
  out.removable = Removable(docs, out.clusters);
  for (Removal& r : out.removable) {
    const PairScores scores = verified.Scores(r.kept, r.doc);
    r.estimate = scores.estimate;
    r.jaccard = scores.jaccard;
  }
  return out;
}

void MarkContained(const CopyGroups& groups, const CandidatePairs& verified, std::vector<DocEntry>* docs) {
  for (const Candidate& p : verified) {
    if (p.kind == PairKind::kSimilar) continue;
    for (const DocId d : groups.members_of(p.kind == PairKind::kAInB ? p.a : p.b)) (*docs)[d].contained = true;
  }
}

void CountKind(DocKind kind, DocKinds* counts) {
  switch (kind) {
    case DocKind::kOk:
      ++counts->documents;
      break;
    case DocKind::kEmpty:
      ++counts->empty;
      break;
    case DocKind::kTooShort:
      ++counts->too_short;
      break;
    case DocKind::kBinary:
      ++counts->binary;
      break;
    case DocKind::kFailed:
      break;
  }
}

Stats CountRead(const SignedCorpus& corpus, const WalkCounts& walk, const DocKinds& left_out) {
  DocKinds kinds = left_out;
  for (const DocRecord& r : corpus.table.docs) CountKind(r.kind, &kinds);
  Stats stats;
  stats.documents = kinds.documents;
  stats.empty = kinds.empty;
  stats.too_short = kinds.too_short;
  stats.binary = kinds.binary + walk.parquet;  // as they were before neardup named them
  for (const UnsignedDoc& u : corpus.unnamed_unsigned) ++(u.kind == DocKind::kEmpty ? stats.empty : stats.too_short);
  for (const NamedUnsignedDoc& u : corpus.named_unsigned) {
    ++(u.doc.kind == DocKind::kEmpty ? stats.empty : stats.too_short);
  }
  stats.bytes = corpus.counts.bytes;
  stats.invalid_utf8 = corpus.counts.invalid_utf8;
  stats.transcoded = corpus.counts.transcoded;
  stats.duplicate_ids = corpus.counts.duplicate_ids;
  stats.hidden = walk.hidden;
  stats.glob = walk.glob;
  stats.ignored = walk.ignored;
  stats.too_large = walk.too_large;
  stats.special = walk.special;
  return stats;
}

std::vector<Status> TallyProblems(const WalkCounts& walk, std::vector<Status> walk_errors,
                                  std::vector<InputProblem> problems, Stats* counts) {
  Stats& st = *counts;
  // A directory loop or a dangling link (with --follow) is skipped and
  // warned about, but nothing went unread.
  st.unreadable += walk_errors.size() - walk.loops - walk.dangling;
  std::vector<Status> out = std::move(walk_errors);
  std::stable_sort(problems.begin(), problems.end(), [](const InputProblem& x, const InputProblem& y) {
    return x.file != y.file ? x.file < y.file : x.line < y.line;
  });
  for (InputProblem& p : problems) {
    switch (p.kind) {
      case InputProblem::Kind::kMalformed:
        ++st.malformed_lines;
        break;
      case InputProblem::Kind::kTooLarge:
        ++st.too_large;
        break;
      case InputProblem::Kind::kUnreadable:
        ++st.unreadable;
        break;
      case InputProblem::Kind::kCounted:
        break;
    }
    out.push_back(std::move(p.status));
  }
  return out;
}

std::vector<DocEntry> Entries(std::vector<DocRecord>&& docs, const std::vector<FileOrigin>& files) {
  std::vector<DocEntry> out(docs.size());
  for (size_t i = 0; i < docs.size(); ++i) {
    const FileOrigin& from = files[docs[i].file];
    out[i] = {.name = std::move(docs[i].name),
              .size = docs[i].size,
              .mtime_ns = docs[i].mtime_ns,
              .reference = docs[i].reference,
              .root = from.root,
              .stream = from.stream,
              .shingles = docs[i].shingles};
  }
  return out;
}

}  // namespace neardup
