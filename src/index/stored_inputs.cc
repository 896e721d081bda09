#include "index/stored_inputs.h"

#include <algorithm>
#include <new>

#include "base/parallel.h"
#include "index/file_plans.h"

namespace neardup {

namespace {

// Documents the matrix read from the index can grow by, at least, before
// the rows are copied into a new one.
constexpr size_t kGrowthDocuments = 65536;

// The entries of out->files the run's keys cover, into out->by_path in path
// order.
void CoveredByPath(StoredInputs* out) {
  for (size_t k = 0; k < out->files.size(); ++k) {
    if (out->keys.Covers(out->files[k].path)) out->by_path.push_back(k);
  }
  SortRuns(out->by_path, [&](size_t a, size_t b) { return out->files[a].path < out->files[b].path; });
}

}  // namespace

Result<StoredInputs> ReadStoredInputs(const Options& options, SignatureIndex& index, const std::atomic<bool>* stop) {
  // One transaction from here to the end of SignWithIndex, committed in
  // batches while writing: reads take SQLite's locks once.
  if (Status s = index.Begin(); !s.ok()) return s;
  // (A run whose walk finds its kept output stops this within a few rows,
  // stored_result.h: every check of `stop` below is before work that
  // would delay it.)
  Result<std::vector<IndexedFile>> files = index.Files(stop);
  if (!files.ok()) return files.status();
  StoredInputs out;
  out.keys = IndexKeys(options);
  out.files = std::move(*files);
  const size_t n = out.files.size();
  const size_t np = static_cast<size_t>(options.num_perm);
  out.first.assign(n, SIZE_MAX);
  out.problems.resize(n);
  CoveredByPath(&out);
  if (stop != nullptr && stop->load()) return Status::Cancelled("stopped");
  const std::vector<size_t>& read = out.by_path;
  std::vector<const IndexedFile*> wanted;
  std::vector<size_t> entry_of_slot;
  size_t total = 0;  // at most what the index's size can hold (SignatureIndex::Files checks)
  for (const size_t k : read) {
    out.first[k] = total;
    total += out.files[k].documents;
    wanted.push_back(&out.files[k]);
    entry_of_slot.push_back(k);
  }
  out.docs.resize(total);
  // Room to grow in place (address space only, not touched unless used):
  // new documents then join the stored rows without a copy of them.
  try {
    out.signatures.reserve((total + total / 2 + kGrowthDocuments) * np);
  } catch (const std::bad_alloc&) {  // strict overcommit: no room reserved
  }
  out.signatures.resize(total * np);  // uninitialized: the loads below write every row read
  std::vector<size_t> loaded(wanted.size(), 0);
  // On the run's threads, each for its own slots (entries, rows). The index
  // checks every row and each entry's count: an error, or every row filled.
  if (Status s = index.LoadDocuments(
          wanted,
          [&](size_t slot, DocRecord&& r, SignatureView sig) {
            const size_t at = out.first[entry_of_slot[slot]] + loaded[slot]++;
            out.docs[at] = std::move(r);
            std::copy(sig.begin(), sig.end(), out.signatures.begin() + at * np);
          },
          Workers::Resolve(options.threads), stop);
      !s.ok()) {
    return s;
  }
  if (Status s = index.LoadProblems(
          wanted, [&](size_t slot, StoredProblem&& p) { out.problems[entry_of_slot[slot]].push_back(std::move(p)); });
      !s.ok()) {
    return s;
  }
  return out;
}

}  // namespace neardup
