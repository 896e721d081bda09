// JSONL signing: the calling thread reads each file and splits it into
// batches of lines; workers parse and sign the batches; batches are
// committed in input order, so DocIds follow the input.
#include <numeric>
#include <string>

#include "jsonl_doc_reader.h"
#include "sign_internal.h"

namespace neardup {

namespace {

// JSONL lines are signed in batches of about this many bytes or lines.
constexpr size_t kBatchBytes = 1 << 20;
constexpr size_t kBatchLines = 2048;
// Batches in flight per worker: enough to keep every worker busy while the
// reader fills the next, few enough to bound memory (window * kBatchBytes).
constexpr size_t kBatchesPerWorker = 4;

struct Batch {
  explicit Batch(uint32_t f = 0) : file(f) {}
  uint32_t file = 0;
  std::string data;
  std::vector<std::pair<size_t, size_t>> spans;  // offset, length in data
  std::vector<uint64_t> line_numbers;
  // Results.
  std::vector<DocRecord> docs;
  std::vector<uint32_t> sigs;
  std::vector<InputProblem> problems;
  SignCounts counts;
};

void SignBatch(const InputFile& f, size_t num_perm, JsonlDocReader& parser, Batch& b) {
  JsonlDoc doc;
  for (size_t k = 0; k < b.spans.size(); ++k) {
    const std::string_view line(b.data.data() + b.spans[k].first, b.spans[k].second);
    bool has = false;
    const Status s = parser.Parse(line, &doc, &has);
    const uint64_t ln = b.line_numbers[k];
    if (!s.ok()) {
      b.problems.push_back({.file = b.file,
                            .line = ln,
                            .status = Status::Corrupt(f.path + ":" + std::to_string(ln) + ": " + s.message()),
                            .kind = InputProblem::Kind::kMalformed});
      continue;
    }
    if (!has) continue;
    const size_t at = b.sigs.size();
    b.sigs.resize(at + num_perm, UINT32_MAX);
    DocumentSketch sk;
    parser.reader().ReadText(doc.text, b.sigs.data() + at, nullptr, &sk);
    DocRecord r;
    r.name = doc.id.empty() ? f.path + ":" + std::to_string(ln) : doc.id;
    r.file = b.file;
    r.line = ln;
    r.size = doc.text.size();
    r.mtime_ns = f.mtime_ns;
    r.content = sk.content;
    r.kind = KindOf(sk);
    r.reference = f.reference;
    b.docs.push_back(std::move(r));
    b.counts.bytes += sk.bytes;
    b.counts.invalid_utf8 += sk.replaced + doc.replaced;
    b.counts.transcoded += sk.transcoded ? 1 : 0;
  }
  b.data.clear();
  b.data.shrink_to_fit();
}

Status TooLarge(const InputFile& f, uint64_t limit) {
  return Status::InvalidArgument(f.path + ": skipped, more than --max-filesize " + std::to_string(limit) +
                                 " bytes once decompressed");
}

// Reads file `fi` and submits its lines in batches. Problems of the file as
// a whole, and too long lines, go straight to `out`.
void SplitFile(const Options& options, FileSystem& fs, uint32_t fi, bool keep_streams, uint64_t line_base,
               SignProgress& progress, OrderedWork<Batch>& work, SignedCorpus* out) {
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
  JsonlLines lines(std::move(*in), options.max_line);
  JsonlLines::Line line;
  Batch batch(fi);
  for (;;) {
    Result<bool> more = lines.Next(&line);
    progress.bytes += lines.TakeBytes();
    if (!more.ok()) out->problems.push_back({.file = fi, .line = 0, .status = more.status()});
    if (!more.ok() || !*more) break;
    line.number += line_base;
    if (line.too_long) {
      out->problems.push_back({.file = fi,
                               .line = line.number,
                               .status = Status::Corrupt(f.path + ":" + std::to_string(line.number) +
                                                         ": line longer than --max-line " +
                                                         std::to_string(options.max_line) + " bytes"),
                               .kind = InputProblem::Kind::kMalformed});
      continue;
    }
    batch.spans.emplace_back(batch.data.size(), line.text.size());
    batch.data.append(line.text);
    batch.line_numbers.push_back(line.number);
    if (batch.data.size() >= kBatchBytes || batch.spans.size() >= kBatchLines) {
      work.Submit(std::move(batch));
      batch = Batch(fi);
    }
  }
  if (!batch.spans.empty()) work.Submit(std::move(batch));
}

}  // namespace

void SignJsonlFiles(const Options& options, const MinHasher& minhasher, FileSystem& fs, const Workers& workers,
                    bool keep_streams, SignProgress& progress, SignedCorpus* out,
                    const std::vector<uint64_t>* line_base, std::vector<SignCounts>* per_file) {
  const size_t num_perm = static_cast<size_t>(options.num_perm);
  std::vector<std::unique_ptr<JsonlDocReader>> parsers(static_cast<size_t>(workers.threads));
  for (auto& p : parsers) p = std::make_unique<JsonlDocReader>(options, minhasher);
  auto sign = [&](int w, Batch& b) { SignBatch(out->table.files[b.file], num_perm, *parsers[static_cast<size_t>(w)], b); };
  auto commit = [&](Batch& b) {
    progress.documents += b.docs.size();
    out->table.Append(std::move(b.docs), b.sigs);
    for (InputProblem& p : b.problems) out->problems.push_back(std::move(p));
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
  // Progress is ticked by the committing (calling) thread between batches.
  Workers pool = workers;
  OrderedWork<Batch> work(pool, static_cast<size_t>(workers.threads) * kBatchesPerWorker, sign, commit);
  for (uint32_t fi = 0; fi < out->table.files.size() && !workers.Cancelled(); ++fi) {
    const uint64_t base = line_base != nullptr ? (*line_base)[fi] : 0;
    SplitFile(options, fs, fi, keep_streams, base, progress, work, out);
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
