// JSONL signing, block-parallel: the calling thread only reads each file in
// large blocks cut after their last newline (no byte is looked at but the
// block's tail); workers split their blocks into lines, parse and sign them;
// blocks are committed in input order, which is where line numbers, names
// without an id and problem messages get their line numbers. So no thread
// touches every byte twice, and DocIds follow the input.
#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <numeric>
#include <string>

#include "base/hash.h"
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
  std::string message;  // after "PATH:LINE: "
};

struct Block {
  explicit Block(uint32_t f = 0) : file(f) {}
  uint32_t file = 0;
  JsonlBlocks::Block data;  // whole lines, or a line too long to hold
  uint64_t line_bytes = 0;  // data.size, kept once data is freed
  // Results.
  uint64_t lines = 0;
  std::vector<DocRecord> docs;  // line: in the block; name empty when it has no id
  std::vector<uint32_t> sigs;
  std::vector<BlockProblem> problems;
  SignCounts counts;
};

std::string TooLongMessage(uint64_t max_line) {
  return std::string("line longer than --max-line ").append(std::to_string(max_line)).append(" bytes");
}

void SignLine(std::string_view line, uint64_t ln, size_t num_perm, JsonlDocReader& parser, Block& b) {
  JsonlDoc doc;
  bool has = false;
  const Status s = parser.Parse(line, &doc, &has);
  if (!s.ok()) {
    b.problems.push_back({.line = ln, .message = s.message()});
    return;
  }
  if (!has) return;
  const size_t at = b.sigs.size();
  b.sigs.resize(at + num_perm, UINT32_MAX);
  DocumentSketch sk;
  parser.reader().ReadText(doc.text, b.sigs.data() + at, nullptr, &sk);
  DocRecord r;
  r.name = std::move(doc.id);
  r.file = b.file;
  r.line = ln;
  r.line_hash = LineHash(line.data(), line.size());
  r.size = doc.text.size();
  r.content = sk.content;
  r.kind = KindOf(sk);
  b.docs.push_back(std::move(r));
  b.counts.bytes += sk.bytes;
  b.counts.invalid_utf8 += sk.replaced + doc.replaced;
  b.counts.transcoded += sk.transcoded ? 1 : 0;
}

// Splits a block into lines (as every JSONL reader does: BlockLines) and
// signs them.
void SignBlock(uint64_t max_line, size_t num_perm, JsonlDocReader& parser, Block& b) {
  BlockLines lines(b.data, max_line);
  std::string_view text;
  bool too_long = false;
  while (lines.Next(&text, &too_long)) {
    const uint64_t ln = ++b.lines;
    if (too_long) {
      b.problems.push_back({.line = ln, .message = TooLongMessage(max_line)});
    } else {
      SignLine(text, ln, num_perm, parser, b);
    }
  }
  b.data = JsonlBlocks::Block();
}

Status TooLarge(const InputFile& f, uint64_t limit) {
  return Status::InvalidArgument(f.path + ": skipped, more than --max-filesize " + std::to_string(limit) +
                                 " bytes once decompressed");
}

// Reads file `fi` (from ctx.fs, keeping a stream's copy when
// ctx.keep_streams) and submits its blocks. Problems of the file as a whole
// go straight to `out`.
void SplitFile(const SignContext& ctx, uint32_t fi, OrderedWork<Block>& work, SignedCorpus* out) {
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
  Result<std::unique_ptr<ByteReader>> in = OpenForSigning(fs, f, copy);
  if (!in.ok()) {
    out->problems.push_back({.file = fi, .line = 0, .status = in.status()});
    return;
  }
  JsonlBlocks blocks(options.max_line);
  for (;;) {
    Block block(fi);
    uint64_t bytes = 0;
    Result<bool> more = blocks.Next(**in, &block.data, &bytes);
    ctx.progress.bytes += bytes;
    if (!more.ok()) out->problems.push_back({.file = fi, .line = 0, .status = more.status()});
    if (!more.ok() || !*more) break;
    block.line_bytes = block.data.size;
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
void ReserveForInput(uint64_t input_bytes, uint64_t seen_bytes, size_t seen_docs, size_t need,
                     SignatureTable* table) {
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

}  // namespace

void SignJsonlFiles(const SignContext& ctx, SignedCorpus* out, const std::vector<uint64_t>* line_base,
                    std::vector<SignCounts>* per_file) {
  const Options& options = ctx.options;
  const Workers& workers = ctx.workers;
  SignProgress& progress = ctx.progress;
  const size_t num_perm = static_cast<size_t>(options.num_perm);
  std::vector<std::unique_ptr<JsonlDocReader>> parsers(static_cast<size_t>(workers.threads));
  for (auto& p : parsers) p = std::make_unique<JsonlDocReader>(options, ctx.minhasher);
  auto sign = [&](int w, Block& b) { SignBlock(options.max_line, num_perm, *parsers[static_cast<size_t>(w)], b); };
  // Per file, lines committed (from line_base: lines signed by an earlier run).
  std::vector<uint64_t> lines_before =
      line_base != nullptr ? *line_base : std::vector<uint64_t>(out->table.files.size(), 0);
  // The bytes to read, as far as known: not those of a stream, nor those of a
  // file read from where an earlier run stopped (line_base).
  uint64_t input_bytes = 0;
  for (size_t k = 0; k < out->table.files.size(); ++k) {
    const InputFile& f = out->table.files[k];
    if (!f.identity.stream && lines_before[k] == 0) input_bytes += f.size;
  }
  uint64_t seen_bytes = 0;
  size_t seen_docs = 0;
  auto commit = [&](Block& b) {
    const InputFile& f = out->table.files[b.file];
    seen_bytes += b.line_bytes;
    seen_docs += b.docs.size();
    ReserveForInput(input_bytes, seen_bytes, seen_docs, out->table.size() + b.docs.size(), &out->table);
    const uint64_t base = lines_before[b.file];
    for (DocRecord& r : b.docs) {
      r.line += base;
      if (r.name.empty()) r.name = f.path + ":" + std::to_string(r.line);
      r.mtime_ns = f.mtime_ns;
      r.reference = f.reference;
    }
    for (BlockProblem& p : b.problems) {
      const uint64_t ln = base + p.line;
      out->problems.push_back({.file = b.file,
                               .line = ln,
                               .status = Status::Corrupt(f.path + ":" + std::to_string(ln) + ": " + p.message),
                               .kind = InputProblem::Kind::kMalformed});
    }
    lines_before[b.file] += b.lines;
    progress.documents += b.docs.size();
    out->table.Append(std::move(b.docs), b.sigs);
    out->counts += b.counts;
    if (per_file != nullptr) (*per_file)[b.file] += b.counts;
  };
  OrderedWork<Block> work(workers, static_cast<size_t>(workers.threads) * kBlocksPerWorker, sign, commit);
  for (uint32_t fi = 0; fi < out->table.files.size() && !workers.Cancelled(); ++fi) {
    SplitFile(ctx, fi, work, out);
    ++progress.inputs_done;
    if (workers.tick) workers.tick();
  }
  work.Finish();
}

// A JSONL id must name one document. Every document whose id is not unique
// in the run is named FILE:LINE instead, as a document without an id is;
// repeated until no name is taken twice (an id may itself read FILE:LINE).
void RenameDuplicateIds(SignedCorpus* out) {
  auto& docs = out->table.docs;
  const auto& files = out->table.files;
  std::vector<char> renamed(docs.size(), 0);
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<uint32_t> order(docs.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return docs[x].name < docs[y].name; });
    for (size_t lo = 0; lo < order.size();) {
      size_t hi = lo + 1;
      while (hi < order.size() && docs[order[hi]].name == docs[order[lo]].name) ++hi;
      if (hi - lo > 1) {
        const std::string id = docs[order[lo]].name;
        std::string where;
        for (size_t k = lo; k < hi; ++k) {
          DocRecord& d = docs[order[k]];
          const std::string place = files[d.file].path + ":" + std::to_string(d.line);
          if (renamed[order[k]] == 0) where += (where.empty() ? "" : ", ") + place;  // else named so already
          if (d.name != place) {
            d.name = place;
            renamed[order[k]] = 1;
            changed = true;
          }
        }
        const DocRecord& first = docs[order[lo]];
        out->problems.push_back({.file = first.file,
                                 .line = first.line,
                                 .status = Status::InvalidArgument("id \"" + id + "\" is not unique (" + where +
                                                                   "); each of these documents is named FILE:LINE"),
                                 .kind = InputProblem::Kind::kCounted});
        out->counts.duplicate_ids += hi - lo;
      }
      lo = hi;
    }
  }
}

}  // namespace neardup
