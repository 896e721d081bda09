// Sign() (sign.h) in parts: text files in sign.cc, JSONL in sign_jsonl.cc.
#pragma once

#include "neardup/document.h"
#include "neardup/sign.h"

namespace neardup {

// What a sketch's outcome makes of the document.
DocKind KindOf(const DocumentSketch& sk);

// Appends the documents of the JSONL `out->table.files` to `out->table`,
// in input order; problems and counts to `out`.
void SignJsonlFiles(const Options& options, const MinHasher& minhasher, FileSystem& fs, const Workers& workers,
                    bool keep_streams, SignProgress& progress, SignedCorpus* out);

// Names FILE:LINE every document whose name is not unique in `out->table`.
void RenameDuplicateIds(SignedCorpus* out);

}  // namespace neardup
