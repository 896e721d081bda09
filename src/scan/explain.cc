#include "scan/explain.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lsh/banding.h"
#include "lsh/containment_banding.h"
#include "lsh/containment_candidates.h"
#include "lsh/relation.h"
#include "lsh/similarity.h"
#include "neardup/quote.h"
#include "scan/run.h"
#include "sign/document.h"
#include "sign/jsonl_doc_reader.h"
#include "text/document_source.h"
#include "text/jsonl.h"
#include "text/word_diff.h"

namespace neardup {
namespace {

// A document as read: its facts, signature and shingle set.
struct ReadDoc {
  ExplainedDoc doc;
  std::vector<uint32_t> sig;
  std::vector<uint64_t> set;
  ContentHash content;  // equal for equal token sequences, as the scan groups copies
  bool have = false;
  bool want_sig = true;  // in: compute the signature (the review page needs none)
  bool want_set = true;  // in: collect the shingle set (the review page may need none)
};

// Keeps the first `max_words` words of a token text arriving in pieces
// (WordCap) in `doc`.
class TokenTextKeeper {
 public:
  TokenTextKeeper(ExplainedDoc* doc, uint64_t max_words)
      : first_(max_words, &doc->token_text, &doc->token_text_capped) {}
  void Add(std::string_view piece) { first_.Add(piece); }

 private:
  WordCap first_;
};

// Opens a file named on the command line as scan does: "-" (standard input),
// or a pipe, FIFO or device (/dev/stdin, <(cmd)), is read as a stream.
Result<std::unique_ptr<ByteReader>> OpenNamed(FileSystem& fs, const std::string& path) {
  Result<FileStat> st = fs.Stat(path);
  if (path != "-" && (!st.ok() || st->type != FileType::kOther)) return OpenInput(fs, path);
  if (!st.ok()) return st.status();
  FileIdentity stdin_identity;
  stdin_identity.dev = st->dev;
  stdin_identity.ino = st->ino;
  stdin_identity.stream = true;
  return OpenInput(fs, path, stdin_identity);
}

// Opens a Parquet file named on the command line: its rows as JSONL lines.
Result<std::unique_ptr<ByteReader>> OpenNamedRows(FileSystem& fs, const std::string& path, const Options& options) {
  Result<FileStat> st = fs.Stat(path);
  if (!st.ok()) return st.status();
  const FileIdentity identity{.dev = st->dev, .ino = st->ino, .stream = st->type == FileType::kOther};
  return OpenParquetRows(fs, path, identity, {.text = options.text_key, .id = options.id_key});
}

// The lines whose id is the one asked for: the first few, and how many.
struct IdLines {
  static constexpr size_t kListed = 5;
  std::vector<uint64_t> first;
  uint64_t count = 0;
  void Add(uint64_t line) {
    if (first.size() < kListed) first.push_back(line);
    ++count;
  }
  // `id "x" is not unique in FILE (lines 3, 9, 12, 15, 20 and 7 more): ...`;
  // scan names each of them FILE:LINE, which is how explain takes one.
  Status NotUnique(const std::string& id, const std::string& file) const {
    std::string lines;
    for (const uint64_t line : first) lines += (lines.empty() ? "" : ", ") + std::to_string(line);
    if (count > first.size()) lines += " and " + std::to_string(count - first.size()) + " more";
    return Status::InvalidArgument("id \"" + id + "\" is not unique in " + ShellQuoted(file) + " (lines " + lines +
                                   "): name one as FILE:LINE");
  }
};

const char* SkipReason(DocumentSketch::Kind kind) {
  switch (kind) {
    case DocumentSketch::Kind::kOk:
      return "";
    case DocumentSketch::Kind::kEmpty:
      return "empty";
    case DocumentSketch::Kind::kTooShort:
      return "too short";
    case DocumentSketch::Kind::kBinary:
      return "binary";
    case DocumentSketch::Kind::kTooLarge:
      return "too large";
  }
  return "";
}

void Finish(const DocumentSketch& sk, ReadDoc* r) {
  r->doc.bytes = sk.bytes;
  r->content = sk.content;
  r->doc.words = sk.words;
  r->doc.shingles = r->set.size();
  r->doc.skipped = SkipReason(sk.kind);
  r->have = true;
}

// Tokens are counted from the token text: words (one space each), or in
// char mode its characters (`chars`, counted only in char mode).
uint64_t CountTokens(ShingleUnit unit, const DocumentSketch& sk, uint64_t chars) {
  return unit == ShingleUnit::kWord ? sk.words : chars;
}

uint64_t Utf8Chars(std::string_view s) {
  uint64_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

// Reads file `path` through `reader` (of `options`), into *r: its
// signature when r->want_sig.
Status ReadFileDocWith(const Options& options, DocumentReader& reader, FileSystem& fs, const std::string& path,
                       uint64_t max_words, ReadDoc* r) {
  r->doc.name = path;
  Result<std::unique_ptr<ByteReader>> in = OpenNamed(fs, path);
  if (!in.ok()) return in.status();
  TokenTextKeeper keep(&r->doc, max_words);
  uint64_t chars = 0;
  reader.set_token_sink([&](std::string_view piece) {
    if (options.shingle == ShingleUnit::kChar) chars += Utf8Chars(piece);
    keep.Add(piece);
  });
  if (r->want_sig) r->sig.assign(static_cast<size_t>(options.num_perm), 0);
  DocumentSketch sk;
  const Status s = reader.ReadStream(**in, r->want_sig ? r->sig.data() : nullptr, r->want_set ? &r->set : nullptr, &sk);
  reader.set_token_sink(nullptr);
  if (!s.ok()) return s;
  Finish(sk, r);
  r->doc.tokens = CountTokens(options.shingle, sk, chars);
  return Status::Ok();
}

Status ReadFileDoc(const Options& options, const MinHasher& mh, FileSystem& fs, const std::string& path,
                   uint64_t max_words, ReadDoc* r) {
  DocumentReader reader(options, mh);
  return ReadFileDocWith(options, reader, fs, path, max_words, r);
}

// Whether the ids asked for as A and as B each name one document of the
// file read: `lines_of` their lines, `ra` and `rb` what was read for them.
Status EachNamesOne(const ExplainInputs& inputs, const IdLines (&lines_of)[2], const ReadDoc& ra, const ReadDoc& rb) {
  for (int k = 0; k < 2; ++k) {
    if (lines_of[k].count > 1) return lines_of[k].NotUnique(k == 0 ? inputs.a : inputs.b, inputs.jsonl_file);
  }
  for (const ReadDoc* r : {&ra, &rb}) {
    if (!r->have) {
      return Status::NotFound(std::string(r == &ra ? inputs.a : inputs.b) +
                              ": no document with this id (or FILE:LINE) in " + ShellQuoted(inputs.jsonl_file));
    }
  }
  return Status::Ok();
}

Status ReadJsonlDocs(const Options& options, const MinHasher& mh, FileSystem& fs, const ExplainInputs& inputs,
                     ReadDoc* ra, ReadDoc* rb) {
  Result<std::unique_ptr<ByteReader>> in = options.input == InputFormat::kParquet
                                               ? OpenNamedRows(fs, inputs.jsonl_file, options)
                                               : OpenNamed(fs, inputs.jsonl_file);
  if (!in.ok()) return in.status();
  JsonlDocReader parser(options, mh);
  JsonlLines lines(std::move(*in), options.max_line);
  JsonlDoc doc;
  const std::string prefix = inputs.jsonl_file + ":";
  IdLines lines_of[2];  // of the id asked for as A and as B
  auto take = [&](std::string_view line, uint64_t number) -> Status {
    const std::string place = prefix + std::to_string(number);
    bool has = false;
    const Status s = parser.Parse(line, &doc, &has);
    for (ReadDoc* r : {ra, rb}) {
      const std::string& asked = r == ra ? inputs.a : inputs.b;
      if (s.ok() && has && !doc.id.empty() && doc.id == asked) lines_of[r == ra ? 0 : 1].Add(number);
      if (r->have) continue;
      const std::string& want = r == ra ? inputs.a : inputs.b;
      const bool by_place = want == place;
      if (!by_place && (!s.ok() || !has || doc.id != want)) continue;
      // FILE:LINE as messages show it (place, unquoted, is what an id is compared with).
      const std::string shown = ShellQuoted(inputs.jsonl_file) + ":" + std::to_string(number);
      if (!s.ok()) return Status::InvalidArgument(shown + ": " + s.message());
      if (!has) return Status::InvalidArgument(shown + ": blank line, not a document");
      r->doc.name = doc.id.empty() ? place : doc.id;
      TokenTextKeeper keep(&r->doc, inputs.max_words);
      uint64_t chars = 0;
      parser.reader().set_token_sink([&](std::string_view piece) {
        if (options.shingle == ShingleUnit::kChar) chars += Utf8Chars(piece);
        keep.Add(piece);
      });
      r->sig.assign(static_cast<size_t>(mh.num_perm()), 0);
      DocumentSketch sk;
      parser.reader().ReadText(doc.text, r->sig.data(), &r->set, &sk);
      parser.reader().set_token_sink(nullptr);
      sk.bytes = doc.text.size();
      Finish(sk, r);
      r->doc.tokens = CountTokens(options.shingle, sk, chars);
    }
    return Status::Ok();
  };
  JsonlLines::Line line;
  for (;;) {  // to the end: an id must name one document
    Result<bool> more = lines.Next(&line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    if (line.too_long) continue;
    if (Status s = take(line.text, line.number); !s.ok()) return s;
  }
  return EachNamesOne(inputs, lines_of, *ra, *rb);
}

// The verification rule of a scan with `options` under --verify `mode`
// (explain says what each setting would report). --exact's margin is the
// user's only when --exact was given.
Verification RuleUnder(const Options& options, VerifyMode mode) {
  Options o = options;
  if (o.verify != mode) {
    o.verify = mode;
    o.exact_margin = Options{}.exact_margin;
  }
  return VerificationOf(o);
}

}  // namespace

namespace {

DocReading Reading(ReadDoc r) {
  DocReading out;
  out.doc = std::move(r.doc);
  out.signature = std::move(r.sig);
  out.shingles = std::move(r.set);
  out.content = r.content;
  return out;
}

}  // namespace

Result<DocReading> ReadDocumentFile(const Options& options, const MinHasher& minhasher, FileSystem& fs,
                                    const std::string& path, uint64_t max_words) {
  ReadDoc r;
  if (Status s = ReadFileDoc(options, minhasher, fs, path, max_words, &r); !s.ok()) return s;
  return Reading(std::move(r));
}

Result<DocReading> ReadDocumentFileUnsigned(DocumentReader& reader, const Options& options, FileSystem& fs,
                                            const std::string& path, uint64_t max_words, bool want_shingles) {
  ReadDoc r;
  r.want_sig = false;
  r.want_set = want_shingles;
  if (Status s = ReadFileDocWith(options, reader, fs, path, max_words, &r); !s.ok()) return s;
  return Reading(std::move(r));
}

DocReading ReadDocumentText(const Options& options, JsonlDocReader& parser, std::string_view text, uint64_t max_words,
                            bool want_shingles) {
  DocReading out;
  TokenTextKeeper keep(&out.doc, max_words);
  uint64_t chars = 0;
  parser.reader().set_token_sink([&](std::string_view piece) {
    if (options.shingle == ShingleUnit::kChar) chars += Utf8Chars(piece);
    keep.Add(piece);
  });
  DocumentSketch sk;
  parser.reader().ReadText(text, nullptr, want_shingles ? &out.shingles : nullptr, &sk);
  parser.reader().set_token_sink(nullptr);
  out.content = sk.content;
  out.doc.bytes = text.size();
  out.doc.words = sk.words;
  out.doc.shingles = out.shingles.size();
  out.doc.skipped = SkipReason(sk.kind);
  out.doc.tokens = CountTokens(options.shingle, sk, chars);
  return out;
}

namespace {

// Whether signatures x and y agree in some band of `banding`.
bool AgreeInABand(const std::vector<uint32_t>& x, const std::vector<uint32_t>& y, Banding banding) {
  for (int band = 0; band < banding.bands; ++band) {
    const auto first = static_cast<std::ptrdiff_t>(band) * banding.rows;
    if (std::equal(x.begin() + first, x.begin() + first + banding.rows, y.begin() + first)) return true;
  }
  return false;
}

// With --relation contains|both: what scan --relation would report, as
// FindContainmentCandidates() and RelationRule judge a pair (and, with
// `both`, FindCandidates()). `indexed`: neither document is skipped.
void ExplainRelation(const Options& options, const Overlap& overlap, const std::vector<uint32_t>& sig_a,
                     const std::vector<uint32_t>& sig_b, bool indexed, PairExplanation* e) {
  e->relation = options.relation;
  const uint64_t na = overlap.size_a, nb = overlap.size_b;
  if (indexed && !e->same_tokens && std::min(na, nb) >= options.min_contained) {
    const std::vector<StrataBanding> bands =
        ContainmentBandings(options.threshold, options.max_ratio, options.num_perm);
    const int d = std::abs(StratumOf(na) - StratumOf(nb));
    if (static_cast<size_t>(d) < bands.size()) {
      const StrataBanding& s = bands[static_cast<size_t>(d)];
      e->strata_apart = d;
      e->containment_banding =
          options.min_jaccard > s.jaccard ? ChooseBanding(options.min_jaccard, options.num_perm) : s.banding;
      e->containment_candidate = AgreeInABand(sig_a, sig_b, e->containment_banding);
    }
  }
  const RelationRule rule = RelationRule::Of(options);
  for (const VerifyMode mode : {VerifyMode::kSignature, VerifyMode::kExact}) {
    Options o = options;
    o.verify = mode;
    std::optional<PairKind> kind;
    if (e->same_tokens) {
      // Copies are near copies: --relation contains alone reports none.
      if (options.relation == Relation::kBoth) kind = PairKind::kSimilar;
    } else if ((e->containment_candidate && MeetsThreshold(e->estimate, ContainmentFloor(o, na, nb))) ||
               (options.relation == Relation::kBoth && e->candidate &&
                MeetsThreshold(e->estimate, CandidateFloor(o)))) {
      kind = mode == VerifyMode::kExact ? rule.Judge(overlap) : rule.JudgeEstimate(e->estimate, na, nb);
    }
    (mode == VerifyMode::kExact ? e->kind_exact : e->kind_signature) = kind;
  }
  e->reported_signature = e->kind_signature.has_value();
  e->reported_exact = e->kind_exact.has_value();
  e->reported_none = false;
}

}  // namespace

Result<PairExplanation> ExplainPair(const Options& options, const ExplainInputs& inputs, FileSystem& fs) {
  const RunContext context{.fs = &fs, .progress = {}, .cancel = nullptr, .result_key = {}};
  Result<std::unique_ptr<Run>> decided = Run::Decide(options, context);
  if (!decided.ok()) return decided.status();
  const Run& run = **decided;
  const MinHasher& mh = run.minhasher();
  ReadDoc ra, rb;
  if (RowsAreDocuments(options.input)) {
    if (Status s = ReadJsonlDocs(options, mh, fs, inputs, &ra, &rb); !s.ok()) return s;
  } else {
    if (inputs.a == "-" && inputs.b == "-") {
      return Status::InvalidArgument("-: standard input can be read once only, not as both documents");
    }
    if (Status s = ReadFileDoc(options, mh, fs, inputs.a, inputs.max_words, &ra); !s.ok()) return s;
    if (Status s = ReadFileDoc(options, mh, fs, inputs.b, inputs.max_words, &rb); !s.ok()) return s;
  }

  PairExplanation e;
  e.num_perm = options.num_perm;
  e.banding = run.banding();
  e.threshold = options.threshold;
  e.exact_margin = options.verify == VerifyMode::kExact ? options.exact_margin : Options{}.exact_margin;
  const Overlap overlap = OverlapOf(ra.set, rb.set);
  e.shared_shingles = overlap.shared;
  e.union_shingles = overlap.size_a + overlap.size_b - overlap.shared;
  e.jaccard = overlap.Jaccard();
  e.containment_a_in_b = overlap.ContainmentOfA();
  e.containment_b_in_a = overlap.ContainmentOfB();
  e.estimate = SignatureAgreement(ra.sig.data(), rb.sig.data(), options.num_perm);
  e.standard_error = std::sqrt(e.jaccard * (1 - e.jaccard) / options.num_perm);
  const int rows = e.banding.rows;
  for (int band = 0; band < e.banding.bands; ++band) {
    const auto first = static_cast<size_t>(band) * static_cast<size_t>(rows);
    if (std::equal(ra.sig.begin() + static_cast<std::ptrdiff_t>(first),
                   ra.sig.begin() + static_cast<std::ptrdiff_t>(first + static_cast<size_t>(rows)),
                   rb.sig.begin() + static_cast<std::ptrdiff_t>(first))) {
      e.agreeing_bands.push_back(band);
    }
  }
  const bool indexed = ra.doc.skipped.empty() && rb.doc.skipped.empty();
  e.same_tokens = indexed && ra.content == rb.content;
  e.candidate = indexed && (!e.agreeing_bands.empty() || e.same_tokens);
  e.candidate_probability = CandidateProbability(e.jaccard, e.banding.bands, rows);
  if (!e.same_tokens) {  // as reported: 1 only for the same tokens
    e.jaccard = DistinctScore(e.jaccard);
    e.estimate = DistinctScore(e.estimate);
  }
  const PairFacts facts{
      .same_tokens = e.same_tokens, .candidate = e.candidate, .estimate = e.estimate, .jaccard = e.jaccard};
  e.reported_signature = Reported(RuleUnder(options, VerifyMode::kSignature), facts);
  e.reported_exact = Reported(RuleUnder(options, VerifyMode::kExact), facts);
  e.reported_none = Reported(RuleUnder(options, VerifyMode::kNone), facts);
  if (options.relation != Relation::kSimilar) ExplainRelation(options, overlap, ra.sig, rb.sig, indexed, &e);
  e.a = std::move(ra.doc);
  e.b = std::move(rb.doc);
  return e;
}

Result<PairExplanation> ExplainPair(const Options& options, const ExplainInputs& inputs) {
  return ExplainPair(options, inputs, FileSystem::Default());
}

}  // namespace neardup
