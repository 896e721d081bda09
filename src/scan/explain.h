// The inside of explain (neardup/explain.h): one document file read as
// ExplainPair reads it, for the review's texts (review.h), and ExplainPair
// over any FileSystem.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "neardup/explain.h"
#include "neardup/options.h"
#include "neardup/status.h"
#include "sign/minhash.h"
#include "walk/file_system.h"

namespace neardup {

// One document file read as ExplainPair reads it (text input): its facts
// and token text (up to `max_words` words), MinHash signature and sorted
// shingle set. The path "-" is standard input. Errors as OpenInput().
struct DocReading {
  ExplainedDoc doc;
  std::vector<uint32_t> signature;  // num_perm values
  std::vector<uint64_t> shingles;   // sorted, unique
  ContentHash content;              // equal for equal token sequences
};
Result<DocReading> ReadDocumentFile(const Options& options, const MinHasher& minhasher, FileSystem& fs,
                                    const std::string& path, uint64_t max_words);

class DocumentReader;

// The same without the signature (empty), through `reader` (made with
// `options`), which one thread reuses from call to call (the review page);
// without the shingle set either (empty) unless `want_shingles`.
Result<DocReading> ReadDocumentFileUnsigned(DocumentReader& reader, const Options& options, FileSystem& fs,
                                            const std::string& path, uint64_t max_words, bool want_shingles);

class JsonlDocReader;

// One JSONL document's text (its text key, parsed by `parser`) read as
// ReadDocumentFile reads a file, without the signature, and without the
// shingle set unless `want_shingles`.
DocReading ReadDocumentText(const Options& options, JsonlDocReader& parser, std::string_view text, uint64_t max_words,
                            bool want_shingles);

// As ExplainPair(options, inputs), reading through `fs`.
Result<PairExplanation> ExplainPair(const Options& options, const ExplainInputs& inputs, FileSystem& fs);

}  // namespace neardup
