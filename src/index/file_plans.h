// FilePlans: what a run with an index does with each walked file: reuse its
// stored documents, sign only the lines appended since it was stored, or
// sign it whole (sign_indexed.h says when). PlanFiles() decides, from the
// stat of each walked file, the index's entry of its key and, where the stat
// proves nothing, the file's bytes.
//
// Thread safety: PlanFiles() hashes files on the run's workers and returns
// once they are done; the rest are values.
//
//   const Reading reading(options);
//   FilePlans fp = PlanFiles({files, keys}, std::move(stored.files), stored.by_path, reading, fs, workers);
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "base/types.h"
#include "index/signature_index.h"
#include "neardup/options.h"
#include "walk/file_system.h"

namespace neardup {

// The reading fingerprints of a run, for plain and for compressed files.
struct Reading {
  uint64_t plain = 0;
  uint64_t compressed = 0;
  bool jsonl = false;
  explicit Reading(const Options& o);
  uint64_t For(const std::string& path) const;
};

// What to do with a walked file: sign it whole, reuse its stored documents,
// or sign only the lines appended since it was stored.
enum class Plan : uint8_t { kSign, kReuse, kAppend };

// The index's file entries and, per walked file, what to do with it.
struct FilePlans {
  std::vector<IndexedFile> stored;  // the index's file entries
  std::vector<Plan> plan;           // by walked file
  std::vector<size_t> entry;        // by walked file: index into stored, or SIZE_MAX
  std::vector<uint8_t> walked;      // by stored entry: 1 when walked in this run
  // By walked file: 1 for a file reused because its bytes hash as stored
  // (IndexedFile::raw_hash) although its stat is not the stored one, or is
  // too close to when the index saw it to prove anything: its entry gets
  // the stat seen now (IndexUpdate::StoreStats).
  std::vector<uint8_t> restat;
  // By walked file: 1 for a file signed whole whose entry may hold its
  // documents (same size and options): they are compared with the stored
  // ones (CountVerified), and when they are the same they count as reused,
  // not new.
  std::vector<uint8_t> compare;
  // By walked file: 1 for a file whose key another walked file has (not
  // expected: the walk lists a file once): neither reused nor stored.
  std::vector<uint8_t> shared_key;
};

// Sorts `v`, made of a few ascending runs, by merging the runs: the stored
// entries come in row order, which is path order within what each run added
// (a walk's order), so an index's entries are one run per run that added
// files. Many runs: a plain sort.
template <class Less>
void SortRuns(std::vector<size_t>& v, Less less) {
  constexpr size_t kMaxRuns = 64;
  std::vector<size_t> bounds{0};
  for (size_t i = 1; i < v.size(); ++i) {
    if (!less(v[i], v[i - 1])) continue;
    bounds.push_back(i);
    if (bounds.size() > kMaxRuns) {
      std::sort(v.begin(), v.end(), less);
      return;
    }
  }
  bounds.push_back(v.size());
  while (bounds.size() > 2) {  // merge runs pairwise until one is left
    std::vector<size_t> merged{0};
    for (size_t k = 0; k + 1 < bounds.size(); k += 2) {
      if (k + 2 < bounds.size()) {
        std::inplace_merge(v.begin() + static_cast<ptrdiff_t>(bounds[k]),
                           v.begin() + static_cast<ptrdiff_t>(bounds[k + 1]),
                           v.begin() + static_cast<ptrdiff_t>(bounds[k + 2]), less);
      }
      merged.push_back(bounds[std::min(k + 2, bounds.size() - 1)]);
    }
    bounds.swap(merged);
  }
}

// The walked files and their keys in the index: keys[i] is files[i]'s.
struct WalkedKeys {
  const std::vector<InputFile>& files;
  const std::vector<std::string>& keys;
};

// Decides, per walked file, whether its stored documents are reused, only
// its appended lines are signed, or it is signed whole. A walked file's entry
// is found by a merge of the walked files' keys and `by_path` (the entries
// under the run's paths, in key order: every entry a walk can meet).
//
// Metadata is not content: an entry read with the same options whose file
// has the stored size but another stat (chmod, touch, a hard link, a copy
// put in its place), or the stored stat too recent to prove anything (racily
// clean), is proven by its bytes: the file is read and hashed (on the run's
// workers), and when the hash is the stored one its documents are reused
// (restat). An entry with no stored hash (0: written before text files had
// one, or a file not read whole) cannot be proven so: signed again.
// Files are hashed through `fs` on `workers`.
FilePlans PlanFiles(const WalkedKeys& walked, std::vector<IndexedFile> stored, const std::vector<size_t>& by_path,
                    const Reading& reading, FileSystem& fs, const Workers& workers);

}  // namespace neardup
