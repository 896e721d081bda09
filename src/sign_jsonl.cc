// JSONL signing, block-parallel: the calling thread only reads each file in
// large blocks cut after their last newline (no byte is looked at but the
// block's tail); workers split their blocks into lines, parse and sign them;
// blocks are committed in input order, which is where line numbers, names
// without an id and problem messages get their line numbers. So no thread
// touches every byte twice, and DocIds follow the input.
#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>

#include "jsonl_doc_reader.h"
#include "sign_internal.h"

namespace neardup {

namespace {

// Bytes read per block: large enough that a block's fixed costs vanish,
// small enough that threads * kBlocksPerWorker blocks fit in memory easily.
constexpr size_t kBlockBytes = 1 << 20;
// Blocks in flight per worker: enough to keep every worker busy while the
// reader fills the next.
constexpr size_t kBlocksPerWorker = 4;

// Bytes that grow at the end without being initialized first.
struct Bytes {
  std::unique_ptr<char[]> data;
  size_t size = 0;
  size_t capacity = 0;
  // Room for `n` bytes in all, keeping the first `size`; grows by doubling,
  // so a long line read block after block is copied a bounded number of times.
  void Reserve(size_t n) {
    if (n <= capacity) return;
    const size_t cap = std::max(n, 2 * capacity);
    std::unique_ptr<char[]> bigger(new char[cap]);
    if (size > 0) std::memcpy(bigger.get(), data.get(), size);
    data = std::move(bigger);
    capacity = cap;
  }
};

// A document or problem found in a block, its line counted from the block's
// first line (1-based); made global at commit.
struct BlockProblem {
  uint64_t line = 0;
  std::string message;  // after "PATH:LINE: "
};

struct Block {
  explicit Block(uint32_t f = 0) : file(f) {}
  uint32_t file = 0;
  Bytes data;              // whole lines; the last may lack its newline at the end of the file
  bool too_long = false;   // stands for one line too long to hold (data empty)
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
  r.size = doc.text.size();
  r.content = sk.content;
  r.kind = KindOf(sk);
  b.docs.push_back(std::move(r));
  b.counts.bytes += sk.bytes;
  b.counts.invalid_utf8 += sk.replaced + doc.replaced;
  b.counts.transcoded += sk.transcoded ? 1 : 0;
}

// Splits a block into lines (without "\n" or "\r\n", as LineSplitter) and
// signs them.
void SignBlock(uint64_t max_line, size_t num_perm, JsonlDocReader& parser, Block& b) {
  if (b.too_long) {
    b.lines = 1;
    b.problems.push_back({.line = 1, .message = TooLongMessage(max_line)});
    return;
  }
  const char* p = b.data.data.get();
  const char* const end = p + b.data.size;
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    const char* line_end = nl != nullptr ? nl : end;
    size_t len = static_cast<size_t>(line_end - p);
    if (len > 0 && p[len - 1] == '\r') --len;
    const uint64_t ln = ++b.lines;
    if (len > max_line) {
      b.problems.push_back({.line = ln, .message = TooLongMessage(max_line)});
    } else {
      SignLine(std::string_view(p, len), ln, num_perm, parser, b);
    }
    p = nl != nullptr ? nl + 1 : end;
  }
  b.data = Bytes();
}

Status TooLarge(const InputFile& f, uint64_t limit) {
  return Status::InvalidArgument(f.path + ": skipped, more than --max-filesize " + std::to_string(limit) +
                                 " bytes once decompressed");
}

// Cuts one input into blocks of whole lines, reading straight into the
// block's memory. The partial line at a block's end starts the next one. A
// partial line past max_line + 1 bytes (a CR before the newline is not part
// of the line) is dropped up to its newline and stands as a too_long block,
// so no line is ever held past the limit.
class BlockCutter {
 public:
  explicit BlockCutter(uint64_t max_line) : max_line_(max_line) {}

  // Reads until a block of whole lines is ready. OK(true) with its bytes in
  // *out (possibly none; then see TakeTooLong()); OK(false) at the end.
  Result<bool> Next(ByteReader& in, Bytes* out, uint64_t* bytes_read) {
    while (!done_) {
      buf_.Reserve(buf_.size + kBlockBytes);
      Result<size_t> got = in.Read(buf_.data.get() + buf_.size, kBlockBytes);
      if (!got.ok()) return got.status();
      *bytes_read += *got;
      if (*got == 0) {
        done_ = true;  // a last line without a newline, unless it is being dropped
        if (skipping_) buf_.size = 0;
        *out = std::move(buf_);
        return true;
      }
      size_t from = buf_.size;  // the bytes before hold no newline
      buf_.size += *got;
      char* base = buf_.data.get();
      if (skipping_) {
        const void* nl = std::memchr(base + from, '\n', buf_.size - from);
        if (nl == nullptr) {
          buf_.size = 0;
          continue;
        }
        skipping_ = false;
        const size_t rest = static_cast<size_t>(base + buf_.size - (static_cast<const char*>(nl) + 1));
        std::memmove(base, static_cast<const char*>(nl) + 1, rest);
        buf_.size = rest;
        from = 0;
      }
      const void* last = memrchr(base + from, '\n', buf_.size - from);
      if (last == nullptr) {
        if (buf_.size > max_line_ + 1) {
          buf_.size = 0;
          skipping_ = true;
          too_long_ = true;
          *out = Bytes();
          return true;
        }
        continue;
      }
      const size_t cut = static_cast<size_t>(static_cast<const char*>(last) + 1 - base);
      Bytes next;
      next.Reserve(std::max(buf_.size - cut, kBlockBytes));
      std::memcpy(next.data.get(), base + cut, buf_.size - cut);
      next.size = buf_.size - cut;
      buf_.size = cut;
      *out = std::move(buf_);
      buf_ = std::move(next);
      return true;
    }
    return false;
  }
  // After Next(): whether a too_long block is to be submitted after its block.
  bool TakeTooLong() {
    const bool t = too_long_;
    too_long_ = false;
    return t;
  }

 private:
  uint64_t max_line_;
  Bytes buf_;
  bool skipping_ = false;
  bool too_long_ = false;
  bool done_ = false;
};

// Reads file `fi` and submits its blocks. Problems of the file as a whole
// go straight to `out`.
void SplitFile(const Options& options, FileSystem& fs, uint32_t fi, bool keep_streams, SignProgress& progress,
               OrderedWork<Block>& work, SignedCorpus* out) {
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
  if (keep_streams && f.identity.stream) {
    out->stream_copies[fi] = std::make_unique<StreamCopy>();
    copy = out->stream_copies[fi].get();
  }
  Result<std::unique_ptr<ByteReader>> in = OpenForSigning(fs, f, copy);
  if (!in.ok()) {
    out->problems.push_back({.file = fi, .line = 0, .status = in.status()});
    return;
  }
  BlockCutter cutter(options.max_line);
  for (;;) {
    Block block(fi);
    uint64_t bytes = 0;
    Result<bool> more = cutter.Next(**in, &block.data, &bytes);
    progress.bytes += bytes;
    if (!more.ok()) out->problems.push_back({.file = fi, .line = 0, .status = more.status()});
    if (!more.ok() || !*more) break;
    if (block.data.size > 0) work.Submit(std::move(block));
    if (cutter.TakeTooLong()) {
      Block marker(fi);
      marker.too_long = true;
      work.Submit(std::move(marker));
    }
  }
}

}  // namespace

void SignJsonlFiles(const Options& options, const MinHasher& minhasher, FileSystem& fs, const Workers& workers,
                    bool keep_streams, SignProgress& progress, SignedCorpus* out,
                    const std::vector<uint64_t>* line_base, std::vector<SignCounts>* per_file) {
  const size_t num_perm = static_cast<size_t>(options.num_perm);
  std::vector<std::unique_ptr<JsonlDocReader>> parsers(static_cast<size_t>(workers.threads));
  for (auto& p : parsers) p = std::make_unique<JsonlDocReader>(options, minhasher);
  auto sign = [&](int w, Block& b) { SignBlock(options.max_line, num_perm, *parsers[static_cast<size_t>(w)], b); };
  // Per file, lines committed (from line_base: lines signed by an earlier run).
  std::vector<uint64_t> lines_before =
      line_base != nullptr ? *line_base : std::vector<uint64_t>(out->table.files.size(), 0);
  auto commit = [&](Block& b) {
    const InputFile& f = out->table.files[b.file];
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
    out->counts.bytes += b.counts.bytes;
    out->counts.invalid_utf8 += b.counts.invalid_utf8;
    out->counts.transcoded += b.counts.transcoded;
    if (per_file != nullptr) {
      SignCounts& c = (*per_file)[b.file];
      c.bytes += b.counts.bytes;
      c.invalid_utf8 += b.counts.invalid_utf8;
      c.transcoded += b.counts.transcoded;
    }
  };
  OrderedWork<Block> work(workers, static_cast<size_t>(workers.threads) * kBlocksPerWorker, sign, commit);
  for (uint32_t fi = 0; fi < out->table.files.size() && !workers.Cancelled(); ++fi) {
    SplitFile(options, fs, fi, keep_streams, progress, work, out);
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
