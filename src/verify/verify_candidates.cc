#include "verify/verify_candidates.h"

#include <algorithm>
#include <cassert>
#include <optional>
#include <span>

#include "lsh/relation.h"
#include "lsh/similarity.h"
#include "verify/confirm.h"

namespace neardup {

namespace {

// The groups Confirm must read: every group of copies, and every group in a
// candidate pair (whose shingle set is then wanted), that the report can
// keep (GroupFilters).
struct ToConfirm {
  std::vector<uint32_t> slots;
  std::vector<std::vector<DocId>> groups;
  std::vector<char> want_set;
};

// Candidate pairs are checked in batches of this many, the batch's Jaccard
// values by the workers (the sets are only read), then the batch in order.
constexpr size_t kPairBatch = 8192;

// Per filter of VerifyContext::report_filters, per group slot: 1 when the
// filter flags one of the group's members.
struct GroupFilters {
  std::vector<std::vector<char>> flags;
  GroupFilters(const VerifyContext& ctx, const CopyGroups& groups) {
    if (ctx.keep_sets) return;  // the report reads sets: every pair is checked
    for (const std::vector<uint8_t>& doc_flags : ctx.report_filters) {
      std::vector<char>& f = flags.emplace_back(groups.size(), 0);
      for (uint32_t k = 0; k < groups.size(); ++k) {
        // A document the filter does not cover counts as flagged: read.
        for (const DocId d : groups.members(k)) {
          if (d >= doc_flags.size() || doc_flags[d] != 0) f[k] = 1;
        }
      }
    }
  }
  // Whether the report can keep a pair of groups sa and sb (sa == sb: the
  // pairs of one group's members).
  bool Reportable(uint32_t sa, uint32_t sb) const {
    for (const std::vector<char>& f : flags) {
      if (f[sa] == 0 && f[sb] == 0) return false;
    }
    return true;
  }
};

// The first pass over the candidates (they may be on disk: one pass reads
// them all; those the bitmaps rule out were never kept, FindCandidates()).
// in_pair: per group, 1 when it is in a candidate pair.
// With VerifyContext::keep_sets false, also the pairs whose two groups have
// one member each, by slots in the order read (`streamed`), and per group 1
// when it is in another pair (`kept`): the Confirmer checks the former while
// it reads (StreamedPairs). None (and `streaming` false) when they would
// take more than a quarter of the pair budget (Options::pair_memory) at
// kStreamedPairBytes each: 524,288 pairs at the default 64 MiB.
struct FirstPass {
  std::vector<char> in_pair;
  bool streaming = false;
  std::vector<std::pair<uint32_t, uint32_t>> streamed;
  std::vector<char> kept;
};

// What a pair checked while the documents are read takes meanwhile (its
// groups, its Jaccard, its place in each group's list, whether it is taken:
// 25 bytes), rounded up.
constexpr size_t kStreamedPairBytes = 32;
FirstPass ReadCandidates(const VerifyContext& ctx, const CopyGroups& groups, const GroupFilters& filters,
                         const CandidatePairs& pairs, Status* read) {
  FirstPass out{.in_pair = std::vector<char>(groups.size(), 0),
                // Pairs checked while reading are judged by Jaccard alone.
                .streaming = !ctx.keep_sets && ctx.options.relation == Relation::kSimilar,
                .streamed = {},
                .kept = {}};
  if (out.streaming) out.kept.assign(groups.size(), 0);
  const size_t max_streamed = ctx.options.pair_memory / 4 / kStreamedPairBytes;
  for (const Candidate& p : pairs) {
    const uint32_t sa = groups.slot_of(p.a), sb = groups.slot_of(p.b);
    if (!filters.Reportable(sa, sb)) continue;
    out.in_pair[sa] = 1;
    out.in_pair[sb] = 1;
    if (!out.streaming) continue;
    if (groups.members(sa).size() == 1 && groups.members(sb).size() == 1) {
      out.streamed.emplace_back(sa, sb);
    } else {
      out.kept[sa] = 1;
      out.kept[sb] = 1;
    }
    if (out.streamed.size() > max_streamed) {
      out.streaming = false;
      std::vector<std::pair<uint32_t, uint32_t>>().swap(out.streamed);
      std::vector<char>().swap(out.kept);
    }
  }
  *read = pairs.status();
  return out;
}

// Every group of copies that the report can keep (GroupFilters), and every
// group in a candidate pair it can keep (whose shingle set is then wanted).
ToConfirm GroupsToConfirm(const CopyGroups& groups, const GroupFilters& filters, const std::vector<char>& in_pair) {
  ToConfirm c;
  for (uint32_t k = 0; k < groups.size(); ++k) {
    const auto members = groups.members(k);
    if (in_pair[k] == 0 && (members.size() < 2 || !filters.Reportable(k, k))) continue;
    c.slots.push_back(k);
    c.groups.emplace_back(members.begin(), members.end());
    c.want_set.push_back(in_pair[k]);
  }
  return c;
}

// The pairs the Confirmer checks while it reads (FirstPass::streamed, whose
// slots become the groups of `todo`, moved out of *first), and in *alone,
// per group, 1 when it has one member. Empty when first->streaming is false.
StreamedPairs StreamedOf(FirstPass* first, const ToConfirm& todo, const std::vector<uint32_t>& group_of_slot,
                         double threshold, std::vector<char>* alone) {
  StreamedPairs out;
  if (!first->streaming) return out;
  out.threshold = threshold;
  for (auto& [a, b] : first->streamed) {  // slots to groups, in place
    a = group_of_slot[a];
    b = group_of_slot[b];
  }
  out.groups = std::move(first->streamed);
  out.keep.resize(todo.slots.size());
  alone->resize(todo.slots.size());
  for (uint32_t g = 0; g < todo.slots.size(); ++g) {
    out.keep[g] = first->kept[todo.slots[g]];
    (*alone)[g] = todo.groups[g].size() == 1 ? 1 : 0;
  }
  return out;
}

// Checks candidate pairs of representatives by the exact Jaccard of their
// confirmed shingle sets, and adds those that meet the threshold.
struct PairChecker {
  const VerifyContext& ctx;
  const CopyGroups& groups;
  const std::vector<uint32_t>& group_of_slot;
  const ConfirmedGroups& confirmed;
  const GroupFilters& filters;
  Confirmer& confirmer;
  Verified& verified;
  std::vector<double> jaccard = {};  // per pair of the batch
  // --relation contains|both: the rule, and per pair of the batch its
  // relation (none: not reported).
  RelationRule relation = RelationRule::Of(ctx.options);
  std::vector<std::optional<PairKind>> kind = {};
  std::vector<char> changed = {};  // per group: found changed by KeepText()
  // Per group: the document its set is kept under in Verified::sets_, and
  // that set (empty: none).
  std::vector<DocId> set_key = {};
  std::vector<std::span<const uint64_t>> set_of_group = {};
  // The pairs the Confirmer checked while it read (null: none), and per
  // group whether it is alone in it (a pair of two such is one of them).
  const StreamedPairs* streamed = nullptr;
  std::vector<char> alone = {};

  // Whether candidate pair p was checked while reading: then its
  // Jaccard is the next of streamed->jaccard (`*at` counts them; the pairs
  // are met in the order FirstPass::streamed lists them).
  bool Streamed(const Candidate& p, size_t* at, double* j) const {
    if (streamed == nullptr || alone[GroupOf(p.a)] == 0 || alone[GroupOf(p.b)] == 0) return false;
    assert(*at < streamed->jaccard.size() && streamed->groups[*at].first == GroupOf(p.a) &&
           streamed->groups[*at].second == GroupOf(p.b));
    *j = streamed->jaccard[(*at)++];
    return true;
  }

  // A document alone in its group kept no token text; one in a pair whose
  // hashed shingle sets are equal needs it (TextJaccard), and is read again
  // now, before any pair is taken, so that one found changed since is left
  // out of every pair (`changed`).
  Status KeepTexts(const CandidatePairs& pairs) {
    changed.assign(confirmed.members.size(), 0);
    size_t at = 0;
    for (const Candidate& p : pairs) {
      if (!Reportable(p)) continue;
      double j = -1;
      const bool was_streamed = Streamed(p, &at, &j);
      if (!Confirmed(p)) continue;
      if (was_streamed) {
        if (j < 1.0) continue;  // 1 only for equal sets
      } else {
        const std::span<const uint64_t> x = SetOf(p.a), y = SetOf(p.b);
        // Sets of different sizes are not equal: most pairs stop here.
        if (x.empty() || x.size() != y.size() || JaccardIfReaches(x, y, 1.0) < 1.0) continue;
      }
      for (const uint32_t g : {GroupOf(p.a), GroupOf(p.b)}) {
        Result<bool> kept = confirmer.KeepText(g);
        if (!kept.ok()) return kept.status();
        if (!*kept) changed[g] = 1;
      }
    }
    return pairs.status();
  }

  // Checks and then clears *batch. `known`: per pair of the batch, 1 when
  // it was checked while reading, its Jaccard then in its `jaccard` field.
  Status Check(std::vector<Candidate>* batch, std::vector<char>* known) {
    jaccard.assign(batch->size(), -1);
    kind.assign(batch->size(), std::nullopt);
    const size_t chunks = (batch->size() + 511) / 512;
    Workers workers{.threads = ctx.workers.threads, .tick = ctx.workers.tick, .cancel = ctx.workers.cancel};
    ParallelFor(workers, chunks, [&](int, size_t c) {
      for (size_t k = c * 512; k < std::min(batch->size(), (c + 1) * 512); ++k) {
        const Candidate& p = (*batch)[k];
        if (!Confirmed(p)) continue;
        if ((*known)[k] != 0) {
          jaccard[k] = p.jaccard;
          continue;
        }
        const std::span<const uint64_t> x = SetOf(p.a), y = SetOf(p.b);
        if (x.empty() || y.empty()) continue;
        if (ctx.options.relation == Relation::kSimilar) {
          jaccard[k] = JaccardIfReaches(x, y, ctx.rule.threshold);
        } else {
          const Overlap overlap = OverlapIfReaches(x, y, relation.SharedNeeded(x.size(), y.size()));
          jaccard[k] = overlap.Jaccard();
          kind[k] = relation.Judge(overlap);
        }
      }
    });
    if (ctx.workers.Cancelled()) return Status::Cancelled("interrupted");
    for (size_t k = 0; k < batch->size(); ++k) {
      Candidate p = (*batch)[k];
      double j = jaccard[k];
      if (j >= 1.0) {  // equal hashed sets: the shingles' text decides
        Result<double> text_j = confirmer.TextJaccard(GroupOf(p.a), GroupOf(p.b));
        if (!text_j.ok()) return text_j.status();
        j = *text_j;
      }
      if (ctx.options.relation == Relation::kSimilar) {
        if (j < 0 || !MeetsThreshold(j, ctx.rule.threshold)) continue;
      } else {
        // Equal hashed sets whose texts differ are judged by the texts'.
        if (jaccard[k] >= 1.0 && j < 1.0) {
          const uint64_t n = SetOf(p.a).size();
          kind[k] = relation.JudgeEstimate(j, n, n);
        }
        if (!kind[k]) continue;
        p.kind = *kind[k];
      }
      p.jaccard = DistinctScore(j);
      if (Status s = verified.pairs.Add(p); !s.ok()) return s;
    }
    batch->clear();
    known->clear();
    return Status::Ok();
  }
  // Whether the pair was read again at all (GroupFilters): a pair that is
  // not has no group of the confirmed ones.
  bool Reportable(const Candidate& p) const { return filters.Reportable(groups.slot_of(p.a), groups.slot_of(p.b)); }
  uint32_t GroupOf(DocId d) const { return group_of_slot[groups.slot_of(d)]; }
  // Verified::sets_[d] (empty when it has none), from a vector by group
  // instead of a hash lookup a pair.
  std::span<const uint64_t> SetOf(DocId d) const {
    const uint32_t g = GroupOf(d);
    return g < set_of_group.size() && set_key[g] == d ? set_of_group[g] : std::span<const uint64_t>();
  }
  bool Confirmed(const Candidate& p) const {
    const uint32_t ga = GroupOf(p.a), gb = GroupOf(p.b);
    return !confirmed.members[ga].empty() && !confirmed.members[gb].empty() &&
           (changed.empty() || (changed[ga] == 0 && changed[gb] == 0));
  }
};

std::vector<DocOrigin> Origins(const SignatureTable& table, const std::vector<std::unique_ptr<StreamCopy>>& copies) {
  std::vector<DocOrigin> origins(table.docs.size());
  for (size_t d = 0; d < table.docs.size(); ++d) {
    const DocRecord& r = table.docs[d];
    origins[d] = {.file = &table.files[r.file],
                  .line = r.line,
                  .offset = r.offset,
                  .content = r.content,
                  .copy = copies[r.file].get()};
  }
  return origins;
}

// Checks every candidate pair, in batches of kPairBatch, with the Jaccard
// of those the confirmer streamed already. The first error of a check or of
// reading the candidates.
Status CheckAll(PairChecker* checker, CandidatePairs& candidates) {
  std::vector<Candidate> batch;
  std::vector<char> known;
  size_t at = 0;
  for (Candidate p : candidates) {
    if (!checker->Reportable(p)) continue;
    double j = -1;
    const bool was_streamed = checker->Streamed(p, &at, &j);
    if (was_streamed) p.jaccard = j;
    batch.push_back(p);
    known.push_back(was_streamed ? 1 : 0);
    if (batch.size() == kPairBatch) {
      if (Status s = checker->Check(&batch, &known); !s.ok()) return s;
    }
  }
  if (Status s = checker->Check(&batch, &known); !s.ok()) return s;
  return candidates.status();
}

// Verification without reading (signature, none): the candidates as found;
// with --relation contains|both, those whose estimate and sizes make them a
// reported relation (RelationRule), each with its kind.
Result<CandidatePairs> JudgeByEstimate(const Options& options, const SignatureTable& table, CandidatePairs candidates) {
  if (options.relation == Relation::kSimilar) return candidates;
  const RelationRule rule = RelationRule::Of(options);
  CandidatePairs out(options.pair_memory);
  for (Candidate p : candidates) {
    const std::optional<PairKind> kind =
        rule.JudgeEstimate(p.estimate, table.docs[p.a].shingles, table.docs[p.b].shingles);
    if (!kind) continue;
    p.kind = *kind;
    if (Status s = out.Add(p); !s.ok()) return s;
  }
  if (!candidates.status().ok()) return candidates.status();
  if (Status s = out.Finish(); !s.ok()) return s;
  return out;
}

}  // namespace

Verification VerificationOf(const Options& options) {
  return {.mode = options.verify,
          .threshold = options.threshold,
          .candidate_floor = CandidateFloor(options),
          .identical_only = options.threshold >= 1.0};
}

bool Reported(const Verification& rule, const PairFacts& f) {
  if (f.same_tokens) return true;
  if (!f.candidate) return false;
  switch (rule.mode) {
    case VerifyMode::kNone:
      return true;
    case VerifyMode::kSignature:
      return MeetsThreshold(f.estimate, rule.threshold);
    case VerifyMode::kExact:
      return MeetsThreshold(f.estimate, rule.candidate_floor) && MeetsThreshold(f.jaccard, rule.threshold);
  }
  return false;
}

PairScores Verified::Scores(DocId x, DocId y) const {
  const DocId a = groups_->rep_of(x);
  const DocId b = groups_->rep_of(y);
  const bool exact = rule_.mode == VerifyMode::kExact;
  if (a == b) return {.estimate = 1.0, .jaccard = exact ? 1.0 : -1.0};
  const SignatureView sa = table_->signature(a);
  PairScores out{.estimate = DistinctScore(
                     SignatureAgreement(sa.data(), table_->signature(b).data(), static_cast<int>(sa.size()))),
                 .jaccard = -1};
  if (exact) out.jaccard = DistinctScore(Similarity(a, b));
  return out;
}

double Verified::Similarity(DocId a, DocId b) const {
  const SignatureView x = table_->signature(a);
  const double estimate = SignatureAgreement(x.data(), table_->signature(b).data(), static_cast<int>(x.size()));
  if (rule_.mode != VerifyMode::kExact) return estimate;
  auto ia = sets_.find(a);
  auto ib = sets_.find(b);
  if (ia == sets_.end() || ib == sets_.end()) return -1;
  return ExactJaccard(ia->second, ib->second);
}

bool Verified::ContainedIn(DocId member, DocId kept) const {
  const DocId a = groups_->rep_of(member);
  const DocId b = groups_->rep_of(kept);
  if (a == b || relation_.relation == Relation::kSimilar) return false;
  std::optional<PairKind> kind;
  if (rule_.mode == VerifyMode::kExact) {
    auto ia = sets_.find(a);
    auto ib = sets_.find(b);
    if (ia == sets_.end() || ib == sets_.end()) return false;
    kind = relation_.Judge(OverlapOf(ia->second, ib->second));
  } else {
    const SignatureView x = table_->signature(a);
    const double estimate = SignatureAgreement(x.data(), table_->signature(b).data(), static_cast<int>(x.size()));
    kind = relation_.JudgeEstimate(estimate, table_->docs[a].shingles, table_->docs[b].shingles);
  }
  return kind == PairKind::kAInB;
}

bool Verified::Similar(DocId x, DocId y) const {
  const DocId a = groups_->rep_of(x);
  const DocId b = groups_->rep_of(y);
  if (a == b) return true;
  return MeetsThreshold(Similarity(a, b), rule_.threshold);
}

namespace {

// The confirmed groups' sets, moved into `sets` under their groups'
// representatives: per group (of `todo`), that key (0: no set) and a view of
// its set there (map nodes stay where they are, so the views stay valid).
struct KeptSets {
  std::vector<DocId> key;
  std::vector<std::span<const uint64_t>> of_group;
};
KeptSets KeepSets(const ToConfirm& todo, const CopyGroups& groups, ConfirmedGroups* confirmed,
                  std::unordered_map<DocId, std::vector<uint64_t>>* sets) {
  KeptSets out{.key = std::vector<DocId>(todo.slots.size(), 0),
               .of_group = std::vector<std::span<const uint64_t>>(todo.slots.size())};
  for (uint32_t g = 0; g < todo.slots.size(); ++g) {
    if (confirmed->sets[g].empty()) continue;
    out.key[g] = groups.representative(todo.slots[g]);
    out.of_group[g] = (*sets)[out.key[g]] = std::move(confirmed->sets[g]);
  }
  return out;
}

}  // namespace

Result<Verified> VerifyCandidates(const VerifyContext& ctx, const SignedCorpus& corpus, CopyGroups* groups,
                                  Candidates candidates) {
  Verified verified;
  Verified* out = &verified;
  out->table_ = &corpus.table;
  out->groups_ = groups;
  out->rule_ = ctx.rule;
  out->relation_ = RelationRule::Of(ctx.options);
  if (!ctx.rule.rereads()) {
    Result<CandidatePairs> judged = JudgeByEstimate(ctx.options, corpus.table, std::move(candidates.pairs));
    if (!judged.ok()) return judged.status();
    out->pairs = std::move(*judged);
    return verified;
  }
  Status read;
  const GroupFilters filters(ctx, *groups);
  FirstPass first = ReadCandidates(ctx, *groups, filters, candidates.pairs, &read);
  if (!read.ok()) return read;
  if (ctx.workers.Cancelled()) return Status::Cancelled("interrupted");
  ToConfirm todo = GroupsToConfirm(*groups, filters, first.in_pair);
  std::vector<uint32_t> group_of_slot(groups->size(), CopyGroups::kNone);
  for (uint32_t g = 0; g < todo.slots.size(); ++g) group_of_slot[todo.slots[g]] = g;
  std::vector<char> alone;
  StreamedPairs streamed = StreamedOf(&first, todo, group_of_slot, ctx.rule.threshold, &alone);
  Confirmer confirmer(ctx.options, ctx.minhasher, ctx.fs, ctx.workers.threads);
  if (first.streaming) confirmer.CheckWhileReading(&streamed);
  if (ctx.options.keep_texts) confirmer.KeepEveryText();
  ConfirmedGroups confirmed;
  const std::vector<DocOrigin> origins = Origins(corpus.table, corpus.stream_copies);
  if (Status s = confirmer.Run(origins, todo.groups, todo.want_set, ctx.workers, &ctx.reread, &confirmed); !s.ok()) {
    return s;
  }
  out->left_out = std::move(confirmed.left_out);
  KeptSets kept = KeepSets(todo, *groups, &confirmed, &out->sets_);
  groups->KeepOnly(todo.slots, confirmed.members);
  if (ctx.rule.identical_only) {
    if (ctx.options.keep_texts) out->texts = confirmer.TakeKeptTexts();
    return verified;
  }
  out->pairs = CandidatePairs(ctx.options.pair_memory);
  PairChecker checker{.ctx = ctx,
                      .groups = *groups,
                      .group_of_slot = group_of_slot,
                      .confirmed = confirmed,
                      .filters = filters,
                      .confirmer = confirmer,
                      .verified = *out,
                      .set_key = std::move(kept.key),
                      .set_of_group = std::move(kept.of_group),
                      .streamed = first.streaming ? &streamed : nullptr,
                      .alone = std::move(alone)};
  if (Status s = checker.KeepTexts(candidates.pairs); !s.ok()) return s;
  const auto& late = confirmer.LateLeftOut();
  out->left_out.insert(out->left_out.end(), late.begin(), late.end());
  if (Status s = CheckAll(&checker, candidates.pairs); !s.ok()) return s;
  if (Status s = out->pairs.Finish(); !s.ok()) return s;
  if (ctx.options.keep_texts) out->texts = confirmer.TakeKeptTexts();
  return verified;
}

Verified PriorVerdicts::Adopt(const Verification& rule, const SignedCorpus& corpus, CopyGroups* groups) && {
  Verified out;
  out.table_ = &corpus.table;
  out.groups_ = groups;
  out.rule_ = rule;
  out.relation_ = relation;
  out.pairs = std::move(pairs);
  out.sets_ = std::move(sets);
  std::vector<uint32_t> slots;
  std::vector<std::vector<DocId>> kept;
  std::unordered_map<uint32_t, size_t> at;  // slot -> index in `slots`
  for (const auto& [doc, status] : left_out) {
    const uint32_t rep = groups->rep_of(doc);
    if (rep == CopyGroups::kNone) continue;
    const uint32_t slot = groups->slot_of(rep);
    auto [it, added] = at.try_emplace(slot, slots.size());
    if (added) {
      slots.push_back(slot);
      const auto members = groups->members(slot);
      kept.emplace_back(members.begin(), members.end());
    }
    std::erase(kept[it->second], doc);
  }
  if (!slots.empty()) groups->KeepOnly(slots, kept);
  out.left_out = std::move(left_out);
  return out;
}

}  // namespace neardup
