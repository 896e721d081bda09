// BuildReview over any FileSystem (review.h), for tests of the documents
// that cannot be read again.
#pragma once

#include <cstdint>

#include "neardup/options.h"
#include "neardup/report.h"
#include "neardup/review.h"
#include "walk/file_system.h"

namespace neardup {

// As BuildReview(report, options, max_words, progress), reading through `fs`.
Review BuildReview(const Report& report, const Options& options, uint64_t max_words, FileSystem& fs,
                   const ReviewProgress& progress = {});
// As BuildReviewInBatches(report, options, max_words, sink, progress),
// reading through `fs`.
Review BuildReviewInBatches(const Report& report, const Options& options, uint64_t max_words, FileSystem& fs,
                            const ReviewSink& sink, const ReviewProgress& progress = {});

}  // namespace neardup
