// Sign() (sign.h) in parts: text files in sign.cc, JSONL in sign_jsonl.cc.
#pragma once

#include <functional>
#include <vector>

#include "sign/document.h"
#include "sign/sign.h"

namespace neardup {

// What a sketch's outcome makes of the document.
DocKind KindOf(const DocumentSketch& sk);

// Signs the text files `out->table.files` into `out->table` (row i is file
// i); problems and counts to `out`. With `per_file` (sized to the files),
// each file's counts are added to its entry too (for the index). With
// `file_done`, called (from a worker) once file i's row, counts and problem
// are in place: ok false when the file had a problem. Row i and per_file[i]
// are not written again after that call.
void SignTextFiles(const SignContext& ctx, SignedCorpus* out, std::vector<SignCounts>* per_file,
                   const std::function<void(size_t i, bool ok)>& file_done = {});

// Appends the documents of the JSONL `out->table.files` to `out->table`,
// in input order; problems and counts to `out`. With `line_base`, file i's
// bytes are taken to start after line line_base[i] (the index resumes a
// file that grew: its reader starts at the new bytes), so its line numbers
// continue from there. `per_file` as SignTextFiles.
void SignJsonlFiles(const SignContext& ctx, SignedCorpus* out, const std::vector<uint64_t>* line_base,
                    std::vector<SignCounts>* per_file);

// Names FILE:LINE every document whose name is not unique in `out->table`
// and its unsigned documents (unnamed_unsigned, named_unsigned) together.
void RenameDuplicateIds(SignedCorpus* out);

}  // namespace neardup
