// JSONL signing, block-parallel: the calling thread only reads each file in
// large blocks cut after their last newline (no byte is looked at but the
// block's tail); workers split their blocks into lines, parse and sign them;
// blocks are committed in input order, which is where line numbers, names
// without an id and problem messages get their line numbers. So no thread
// touches every byte twice, and DocIds follow the input.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstring>
#include <functional>
#include <iterator>
#include <memory>
#include <new>
#include <numeric>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "base/hash.h"
#include "base/hash_sort.h"
#include "neardup/quote.h"
#include "sign/jsonl_doc_reader.h"
#include "sign/sign_internal.h"

namespace neardup {

namespace {

// Blocks in flight per worker: enough to keep every worker busy while the
// reader fills the next.
constexpr size_t kBlocksPerWorker = 4;

// A document or problem found in a block, its line counted from the block's
// first line (1-based); made global at commit.
struct BlockProblem {
  uint64_t line = 0;
  std::string message;    // after "PATH:LINE: "
  bool not_json = false;  // InputProblem::not_json
};

// Whether a line that failed to parse was meant as a JSON object at all.
bool StartsAsObject(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t\r\f\v");
  return first != std::string_view::npos && line[first] == '{';
}

struct Block {
  explicit Block(uint32_t f = 0) : file(f) {}
  uint32_t file = 0;
  JsonlBlocks::Block data;  // whole lines, or a line too long to hold
  uint64_t line_bytes = 0;  // data.size, kept once data is freed
  bool skipped = false;     // data.too_long: a line over --max-line, of bytes not counted
  // Results.
  uint64_t lines = 0;
  std::vector<DocRecord> docs;  // line: in the block; name empty when it has no id
  // With compact_unsigned, the documents not signed; line: in the block.
  std::vector<UnsignedDoc> unnamed_unsigned;
  std::vector<NamedUnsignedDoc> named_unsigned;
  std::vector<uint32_t> sigs;
  std::vector<SetBitmap> bitmaps;  // with BlockRule::set_bitmaps: one a document of `docs`
  std::vector<BlockProblem> problems;
  SignCounts counts;
};

std::string TooLongMessage(uint64_t max_line) {
  return std::string("line longer than --max-line ").append(std::to_string(max_line)).append(" bytes");
}

// How a block is signed: the same for every block of a run.
struct BlockRule {
  uint64_t max_line = 0;
  size_t num_perm = 0;
  bool compact_unsigned = false;  // SignContext::compact_unsigned
  bool line_hashes = true;        // SignContext::line_hashes
  // SignContext::set_bitmaps, until the run's bitmaps reach their budget
  // (set by the committing thread: the blocks after are dropped anyway).
  bool set_bitmaps = false;
  const std::atomic<bool>* bitmaps_full = nullptr;
  BitmapGate* gate = nullptr;  // SignContext::bitmap_gate
};

// `readable_after`: the bytes of the block after the line (JSON parsing may
// read them). The line's SetBitmap is built by the parser's reader's builder,
// when it has one (SignBlock).
void SignLine(std::string_view line, size_t readable_after, uint64_t ln, const BlockRule& rule, JsonlDocReader& parser,
              Block& b) {
  const size_t num_perm = rule.num_perm;
  JsonlDocView doc;
  bool has = false;
  const Status s = parser.ParseView(line, &doc, &has, readable_after);
  if (!s.ok()) {
    b.problems.push_back({.line = ln, .message = s.message(), .not_json = !StartsAsObject(line)});
    return;
  }
  if (!has) return;
  const size_t at = b.sigs.size();
  b.sigs.resize(at + num_perm, UINT32_MAX);
  DocumentSketch sk;
  SetBitmapBuilder* bitmap = parser.reader().bitmap();
  if (bitmap != nullptr) bitmap->Begin(doc.text.size());
  parser.reader().ReadText(doc.text, b.sigs.data() + at, nullptr, &sk);
  b.counts.bytes += sk.bytes;
  b.counts.invalid_utf8 += sk.replaced + doc.replaced;
  b.counts.transcoded += sk.transcoded ? 1 : 0;
  const DocKind kind = KindOf(sk);
  if (rule.gate != nullptr && kind == DocKind::kOk) rule.gate->Signed({b.sigs.data() + at, num_perm}, sk.bytes);
  if (rule.compact_unsigned && (kind == DocKind::kEmpty || kind == DocKind::kTooShort)) {
    b.sigs.resize(at);  // no row: the document is only counted
    const UnsignedDoc u{.line = ln, .file = b.file, .kind = kind};
    if (doc.id.empty()) {
      b.unnamed_unsigned.push_back(u);
    } else {
      b.named_unsigned.push_back({.doc = u, .name = std::move(doc.id)});
    }
    return;
  }
  DocRecord r;
  r.name = std::move(doc.id);
  r.file = b.file;
  r.line = ln;
  r.offset = static_cast<uint64_t>(line.data() - b.data.data.get());  // in the block, until committed
  if (rule.line_hashes) r.line_hash = LineHash(line.data(), line.size());
  r.size = doc.text.size();
  r.content = sk.content;
  r.shingles = sk.shingles;
  r.kind = kind;
  b.docs.push_back(std::move(r));
  if (rule.set_bitmaps)
    b.bitmaps.push_back(bitmap != nullptr && kind == DocKind::kOk ? bitmap->Finish(sk.bytes) : SetBitmap());
}

// Splits a block into lines (as every JSONL reader does: BlockLines) and
// signs them.
void SignBlock(const BlockRule& rule, JsonlDocReader& parser, SetBitmapBuilder& bitmap_builder, Block& b) {
  const bool bitmaps = rule.set_bitmaps && !rule.bitmaps_full->load(std::memory_order_relaxed) &&
                       (rule.gate == nullptr || rule.gate->Wanted());
  parser.reader().set_bitmap(bitmaps ? &bitmap_builder : nullptr);
  const uint64_t max_line = rule.max_line;
  BlockLines lines(b.data, max_line);
  std::string_view text;
  bool too_long = false;
  while (lines.Next(&text, &too_long)) {
    const uint64_t ln = ++b.lines;
    if (too_long) {
      b.problems.push_back({.line = ln, .message = TooLongMessage(max_line)});
    } else {
      const char* room_end = b.data.data.get() + b.data.data.capacity();
      SignLine(text, static_cast<size_t>(room_end - (text.data() + text.size())), ln, rule, parser, b);
    }
  }
  b.data = JsonlBlocks::Block();
}

// Which committed documents keep their bitmaps: those of the first `budget`
// bytes of text (SignContext::bitmap_text), in input order, so that which
// have one does not depend on the threads. Once the budget is reached,
// `full` tells the workers that no later block needs any.
struct BitmapBudget {
  uint64_t budget = kBitmapTextBudget;
  uint64_t text = 0;  // bytes of the documents committed so far
  std::atomic<bool> full{false};
  // Appends to *out a bitmap (empty: none) for each document of `b`.
  void Commit(Block& b, std::vector<SetBitmap>* out) {
    for (size_t k = 0; k < b.docs.size(); ++k) {
      text += b.docs[k].size;
      if (text > budget || k >= b.bitmaps.size()) {  // a block built once full has none
        full.store(true, std::memory_order_relaxed);
        out->emplace_back();
      } else {
        out->push_back(std::move(b.bitmaps[k]));
      }
    }
  }
};

Status TooLarge(const InputFile& f, uint64_t limit) {
  return Status::InvalidArgument(ShellQuoted(f.path) + ": skipped, more than --max-filesize " + std::to_string(limit) +
                                 " bytes once decompressed");
}

// Reads file `fi` (from ctx.fs, keeping a stream's copy when
// ctx.keep_streams) and submits its blocks. Problems of the file as a whole
// go straight to `out`.
void SplitFile(const SignContext& ctx, uint32_t fi, OrderedWork<Block>& work, SignedCorpus* out,
               const std::function<bool()>& stop) {
  const Options& options = ctx.options;
  FileSystem& fs = ctx.fs;
  const InputFile& f = out->table.files[fi];
  if (options.max_filesize != 0 && !f.identity.stream) {
    // A compressed file may expand past --max-filesize: count first, so
    // that no line of a file that is then skipped was taken.
    Result<bool> over = DecompressedLargerThan(fs, f.path, f.identity, options.max_filesize);
    if (over.ok() && *over) {
      out->problems.push_back(
          {.file = fi, .line = 0, .status = TooLarge(f, options.max_filesize), .kind = InputProblem::Kind::kTooLarge});
      return;
    }
  }
  StreamCopy* copy = nullptr;
  if (ctx.keep_streams && f.identity.stream) {
    out->stream_copies[fi] = std::make_unique<StreamCopy>();
    copy = out->stream_copies[fi].get();
  }
  Result<std::unique_ptr<ByteReader>> in = OpenForSigning(fs, f, copy, options);
  if (!in.ok()) {
    out->problems.push_back({.file = fi, .line = 0, .status = in.status()});
    return;
  }
  JsonlBlocks blocks(options.max_line);
  while (!stop()) {
    Block block(fi);
    uint64_t bytes = 0;
    Result<bool> more = blocks.Next(**in, &block.data, &bytes);
    ctx.progress.bytes += bytes;
    if (!more.ok()) out->problems.push_back({.file = fi, .line = 0, .status = more.status()});
    if (!more.ok() || !*more) break;
    block.line_bytes = block.data.size;
    block.skipped = block.data.too_long;
    if (block.data.size > 0 || block.data.too_long) work.Submit(std::move(block));
  }
}

// Room for the documents of the whole input before the table has to grow:
// growing by doubling would copy the signature matrix, and fault in twice its
// memory, on the thread that commits blocks (the one that also reads).
// Estimated from the documents per byte of the lines committed so far, for
// the bytes of the input files (a compressed file's bytes on disk, which
// underestimates, as do files read from an earlier run's end; growth by
// doubling takes over from there). At most one
// document per 16 input bytes, so an odd first block cannot reserve absurdly.
void ReserveForInput(uint64_t input_bytes, uint64_t seen_bytes, size_t seen_docs, size_t need, SignatureTable* table) {
  if (need <= table->capacity()) return;
  size_t want = need;
  if (seen_bytes > 0 && input_bytes > seen_bytes) {
    const double per_byte = static_cast<double>(seen_docs) / static_cast<double>(seen_bytes);
    const double estimate = per_byte * static_cast<double>(input_bytes) * 1.125 + 64;
    const double cap = static_cast<double>(input_bytes / 16 + 64);
    want = std::max(want, static_cast<size_t>(std::min(estimate, cap)));
  }
  want = std::max(want, 2 * table->capacity());  // never worse than doubling
  try {
    table->Reserve(want);
  } catch (const std::bad_alloc&) {
    // No room for the estimate (strict overcommit): grow as needed.
  }
}

// The committing thread's side of SignJsonlFiles: what it keeps between
// blocks, and how it commits one, in input order: line numbers made global,
// names and problems given their FILE:LINE, the documents appended to the
// table (or drained), the counts and bitmaps kept.
struct BlockCommitter {
  const SignContext& ctx;
  SignedCorpus* out;
  std::vector<SignCounts>* per_file;  // or null
  BitmapBudget* bitmaps;              // null: no bitmaps are kept
  // Per file, lines committed (from line_base: lines signed by an earlier run).
  std::vector<uint64_t> lines_before;
  // Per file, the bytes of the lines committed (kNoOffset: not known).
  std::vector<uint64_t> bytes_before;
  // The bytes to read, as far as known (ReserveForInput), and those seen.
  uint64_t input_bytes = 0;
  uint64_t seen_bytes = 0;
  size_t seen_docs = 0;
  bool drain_failed = false;  // ctx.drain returned false: read no more

  void Commit(Block& b);
  // The block's problems and unsigned documents, their lines after `base`.
  void TakeFindings(const InputFile& f, uint64_t base, Block& b);
};

void BlockCommitter::TakeFindings(const InputFile& f, uint64_t base, Block& b) {
  for (BlockProblem& p : b.problems) {
    const uint64_t ln = base + p.line;
    out->problems.push_back(
        {.file = b.file,
         .line = ln,
         .status = Status::Corrupt(ShellQuoted(f.path) + ":" + std::to_string(ln) + ": " + p.message),
         .kind = InputProblem::Kind::kMalformed,
         .not_json = p.not_json});
  }
  for (UnsignedDoc& u : b.unnamed_unsigned) {
    u.line += base;
    out->unnamed_unsigned.push_back(u);
  }
  for (NamedUnsignedDoc& u : b.named_unsigned) {
    u.doc.line += base;
    out->named_unsigned.push_back(std::move(u));
  }
}

void BlockCommitter::Commit(Block& b) {
  const InputFile& f = out->table.files[b.file];
  seen_bytes += b.line_bytes;
  seen_docs += b.docs.size();
  if (!ctx.drain) ReserveForInput(input_bytes, seen_bytes, seen_docs, out->table.size() + b.docs.size(), &out->table);
  const uint64_t base = lines_before[b.file];
  const uint64_t at = bytes_before[b.file];
  for (DocRecord& r : b.docs) {
    r.line += base;
    r.offset = at == kNoOffset ? kNoOffset : at + r.offset;
    if (r.name.empty()) r.name = f.path + ":" + std::to_string(r.line);
    r.mtime_ns = f.mtime_ns;
    r.reference = f.reference;
  }
  TakeFindings(f, base, b);
  lines_before[b.file] += b.lines;
  if (at != kNoOffset) bytes_before[b.file] = b.skipped ? kNoOffset : at + b.line_bytes;
  ctx.progress.documents += b.docs.size() + b.unnamed_unsigned.size() + b.named_unsigned.size();
  std::vector<SetBitmap> drained;  // with ctx.drain: the block's bitmaps
  if (bitmaps != nullptr) bitmaps->Commit(b, ctx.drain ? &drained : &out->bitmaps);
  if (ctx.drain) {
    if (!drain_failed && !ctx.drain(b.docs, b.sigs, drained)) drain_failed = true;
  } else {
    out->table.Append(std::move(b.docs), b.sigs);
  }
  out->counts += b.counts;
  if (per_file != nullptr) (*per_file)[b.file] += b.counts;
}

}  // namespace

void SignJsonlFiles(const SignContext& ctx, SignedCorpus* out, const std::vector<uint64_t>* line_base,
                    std::vector<SignCounts>* per_file) {
  const Options& options = ctx.options;
  const Workers& workers = ctx.workers;
  std::vector<std::unique_ptr<JsonlDocReader>> parsers(static_cast<size_t>(workers.threads));
  for (auto& p : parsers) {
    p = std::make_unique<JsonlDocReader>(options, ctx.minhasher);
    p->reader().set_count_shingles(ctx.count_shingles);
  }
  std::vector<SetBitmapBuilder> bitmap_builders(static_cast<size_t>(workers.threads));
  BitmapBudget bitmap_budget;
  bitmap_budget.budget = ctx.bitmap_text;
  const bool set_bitmaps = ctx.set_bitmaps;
  const BlockRule rule{.max_line = options.max_line,
                       .num_perm = static_cast<size_t>(options.num_perm),
                       .compact_unsigned = ctx.compact_unsigned,
                       .line_hashes = ctx.line_hashes,
                       .set_bitmaps = set_bitmaps,
                       .bitmaps_full = &bitmap_budget.full,
                       .gate = ctx.bitmap_gate};
  auto sign = [&](int w, Block& b) {
    SignBlock(rule, *parsers[static_cast<size_t>(w)], bitmap_builders[static_cast<size_t>(w)], b);
  };
  BlockCommitter committer{
      .ctx = ctx,
      .out = out,
      .per_file = per_file,
      .bitmaps = set_bitmaps ? &bitmap_budget : nullptr,
      .lines_before = line_base != nullptr ? *line_base : std::vector<uint64_t>(out->table.files.size(), 0),
      .bytes_before = {}};
  // The bytes to read, as far as known: not those of a stream, nor those of a
  // file read from where an earlier run stopped (line_base).
  for (size_t k = 0; k < out->table.files.size(); ++k) {
    const InputFile& f = out->table.files[k];
    if (!f.identity.stream && committer.lines_before[k] == 0) committer.input_bytes += f.size;
  }
  // Where lines start is known in a plain file read from its start.
  committer.bytes_before.assign(out->table.files.size(), kNoOffset);
  for (size_t k = 0; k < out->table.files.size(); ++k) {
    const InputFile& f = out->table.files[k];
    if (committer.lines_before[k] == 0 && LinesAtOffsets(f, options)) committer.bytes_before[k] = 0;
  }
  auto commit = [&committer](Block& b) { committer.Commit(b); };
  OrderedWork<Block> work(workers, static_cast<size_t>(workers.threads) * kBlocksPerWorker, sign, commit);
  // Blocks are committed on this thread (OrderedWork::Submit), so the flag
  // is read where it is set. An interrupt stops within a file too.
  const std::function<bool()> stop = [&] { return committer.drain_failed || workers.Cancelled(); };
  for (uint32_t fi = 0; fi < out->table.files.size() && !stop(); ++fi) {
    SplitFile(ctx, fi, work, out, stop);
    ++ctx.progress.inputs_done;
    if (workers.tick) workers.tick();
  }
  work.Finish();
}

namespace {

// An unsigned document without an id is named FILE:LINE without holding that
// name; only a name that reads the same FILE:LINE can clash with it. Such
// documents are moved to the named ones, with that name, so that the check
// of the names sees them (rare: each move is linear).
void NameUnsignedThatClash(SignedCorpus* out) {
  std::deque<UnsignedDoc>& unnamed = out->unnamed_unsigned;
  std::deque<NamedUnsignedDoc>& named = out->named_unsigned;
  if (unnamed.empty()) return;
  std::unordered_map<std::string_view, uint32_t> file_of;
  for (size_t f = 0; f < out->table.files.size(); ++f) file_of.emplace(out->table.files[f].path, f);
  using Place = std::pair<uint32_t, uint64_t>;
  auto place_less = [](const UnsignedDoc& d, const Place& p) { return Place(d.file, d.line) < p; };
  std::vector<std::pair<Place, std::string>> clashes;  // few: only names that hit an unnamed document
  auto probe = [&](const std::string& name) {
    const size_t colon = name.rfind(':');
    if (colon == std::string::npos || colon + 1 >= name.size() || name[colon + 1] == '0') return;
    uint64_t line = 0;
    const char* end = name.data() + name.size();
    if (std::from_chars(name.data() + colon + 1, end, line).ptr != end) return;
    const auto f = file_of.find(std::string_view(name).substr(0, colon));
    if (f == file_of.end()) return;
    const Place place(f->second, line);
    const auto at = std::lower_bound(unnamed.begin(), unnamed.end(), place, place_less);
    if (at != unnamed.end() && Place(at->file, at->line) == place) clashes.push_back({place, name});
  };
  for (const DocRecord& d : out->table.docs) probe(d.name);
  for (const NamedUnsignedDoc& d : named) probe(d.name);
  if (clashes.empty()) return;
  // Moved in one pass over each list, so that many clashes stay linear.
  std::sort(clashes.begin(), clashes.end());
  clashes.erase(
      std::unique(clashes.begin(), clashes.end(), [](const auto& x, const auto& y) { return x.first == y.first; }),
      clashes.end());
  std::deque<UnsignedDoc> kept;
  std::vector<NamedUnsignedDoc> moved;
  size_t c = 0;
  for (const UnsignedDoc& d : unnamed) {
    while (c < clashes.size() && clashes[c].first < Place(d.file, d.line)) ++c;
    if (c < clashes.size() && clashes[c].first == Place(d.file, d.line)) {
      moved.push_back({.doc = d, .name = std::move(clashes[c].second)});
    } else {
      kept.push_back(d);
    }
  }
  unnamed = std::move(kept);
  std::deque<NamedUnsignedDoc> merged;
  auto at = [](const NamedUnsignedDoc& d) { return Place(d.doc.file, d.doc.line); };
  std::merge(std::make_move_iterator(named.begin()), std::make_move_iterator(named.end()),
             std::make_move_iterator(moved.begin()), std::make_move_iterator(moved.end()), std::back_inserter(merged),
             [&](const NamedUnsignedDoc& x, const NamedUnsignedDoc& y) { return at(x) < at(y); });
  named = std::move(merged);
}

// A position's name hash, ordered by (hash, position).
struct NameAt {
  uint64_t hash = 0;
  uint64_t pos = 0;
  bool operator<(const NameAt& o) const { return hash != o.hash ? hash < o.hash : pos < o.pos; }
};

// The groups of positions < n whose names are equal, of two or more: each
// ascending, the groups in the order of their names. The names are grouped
// by their hashes (radix partitions, internal::ForEachRunOfEqualHashes), and
// compared only within a run of equal hashes, so that a million distinct ids
// cost no sort by string.
template <typename NameFn>
std::vector<std::vector<size_t>> GroupsOfEqualNames(size_t n, NameFn name) {
  std::vector<NameAt> keys(n), scratch;
  std::vector<uint32_t> ends;
  for (size_t k = 0; k < n; ++k) {
    const std::string& s = name(k);
    keys[k] = {.hash = HashBytes(s.data(), s.size(), 0x6e616d6573), .pos = k};
  }
  std::vector<std::vector<size_t>> groups;
  // Only runs of two or more equal hashes come here: a name of its own, by
  // far the most, is passed over without being sorted.
  internal::ForEachRunOfEqualHashes(keys, scratch, ends, [&](const NameAt* first, size_t count) {
    // Names that differ within the run (a hash collision, or many built to
    // collide) part by a stable sort of the run alone: positions stay
    // ascending within a name, and the cost stays n log n whatever the input.
    std::vector<size_t> run;
    for (size_t k = 0; k < count; ++k) run.push_back(first[k].pos);
    std::stable_sort(run.begin(), run.end(), [&](size_t x, size_t y) { return name(x) < name(y); });
    for (size_t a = 0; a < run.size();) {
      size_t b = a + 1;
      while (b < run.size() && name(run[b]) == name(run[a])) ++b;
      if (b - a > 1) {
        groups.emplace_back(run.begin() + static_cast<std::ptrdiff_t>(a), run.begin() + static_cast<std::ptrdiff_t>(b));
      }
      a = b;
    }
  });
  std::sort(groups.begin(), groups.end(),
            [&](const std::vector<size_t>& x, const std::vector<size_t>& y) { return name(x[0]) < name(y[0]); });
  return groups;
}

}  // namespace

// A JSONL id must name one document. Every document whose id is not unique
// in the run is named FILE:LINE instead, as a document without an id is;
// repeated until no name is taken twice (an id may itself read FILE:LINE).
// The documents are those of the table and the unsigned ones with a name,
// merged in input order (entry k < table size: table document k; else
// named unsigned document k - table size).
void RenameDuplicateIds(SignedCorpus* out) {
  NameUnsignedThatClash(out);
  auto& docs = out->table.docs;
  auto& unsigned_docs = out->named_unsigned;
  const auto& files = out->table.files;
  const size_t n_table = docs.size();
  auto name = [&](size_t k) -> std::string& { return k < n_table ? docs[k].name : unsigned_docs[k - n_table].name; };
  auto place = [&](size_t k) {
    return k < n_table ? std::pair(docs[k].file, docs[k].line)
                       : std::pair(unsigned_docs[k - n_table].doc.file, unsigned_docs[k - n_table].doc.line);
  };
  std::vector<size_t> entries(n_table + unsigned_docs.size());
  std::iota(entries.begin(), entries.end(), size_t{0});
  std::inplace_merge(entries.begin(), entries.begin() + static_cast<ptrdiff_t>(n_table), entries.end(),
                     [&](size_t x, size_t y) { return place(x) < place(y); });
  std::vector<char> renamed(entries.size(), 0);  // by position in entries
  for (bool changed = true; changed;) {
    changed = false;
    for (const std::vector<size_t>& group :
         GroupsOfEqualNames(entries.size(), [&](size_t k) -> const std::string& { return name(entries[k]); })) {
      const std::string id = name(entries[group[0]]);
      std::string where;
      for (const size_t k : group) {
        const auto [file, line] = place(entries[k]);
        const std::string at = files[file].path + ":" + std::to_string(line);
        if (renamed[k] == 0) where += (where.empty() ? "" : ", ") + at;  // else named so already
        if (std::string& d = name(entries[k]); d != at) {
          d = at;
          renamed[k] = 1;
          changed = true;
        }
      }
      const auto [file, line] = place(entries[group[0]]);
      out->problems.push_back({.file = file,
                               .line = line,
                               .status = Status::InvalidArgument("id \"" + id + "\" is not unique (" + where +
                                                                 "); each of these documents is named FILE:LINE"),
                               .kind = InputProblem::Kind::kCounted});
      out->counts.duplicate_ids += group.size();
    }
  }
}

}  // namespace neardup
