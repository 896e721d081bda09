#include "cli/progress.h"

#include <gtest/gtest.h>

namespace neardup::cli {
namespace {

TEST(ProgressTextTest, SizesHaveAUnitAndOneIsSingular) {
  EXPECT_EQ(ShownSize(0), "0 bytes");
  EXPECT_EQ(ShownSize(1), "1 byte");
  EXPECT_EQ(ShownSize(999), "999 bytes");
  EXPECT_EQ(ShownSize(1000), "1.0 kB");
  EXPECT_EQ(ShownSize(3'500'000), "3.5 MB");
  EXPECT_EQ(ShownSize(79'149'000), "79.1 MB");
  EXPECT_EQ(ShownSize(296'400'000), "296 MB");
  EXPECT_EQ(ShownSize(999'600), "1.0 MB");  // never "1000 kB"
  EXPECT_EQ(ShownSize(3'900'000'000), "3.9 GB");
  EXPECT_EQ(Counted(1, "document"), "1 document");
  EXPECT_EQ(Counted(2, "document"), "2 documents");
  EXPECT_EQ(Counted(1, "exact copy", "exact copies"), "1 exact copy");
  EXPECT_EQ(Counted(0, "exact copy", "exact copies"), "0 exact copies");
}

TEST(ProgressTextTest, ReadingShowsTheShareByBytesWhenKnownAndTheTimeLeft) {
  Progress p;
  p.stage = Stage::kReading;
  p.inputs_done = 1;
  p.inputs_total = 2;
  p.bytes = 25'000'000;
  p.bytes_total = 100'000'000;
  p.documents = 1000;
  p.seconds = 10;
  // A quarter of the bytes in 30 s of reading: 90 s left.
  EXPECT_EQ(ProgressText(p, 30), "reading 25% (1/2 files, 25.0 MB), 100 docs/s, 1m30s left");
  // Under a second in the stage: no guess yet.
  EXPECT_EQ(ProgressText(p, 0.5), "reading 25% (1/2 files, 25.0 MB), 100 docs/s");
  // Without a byte total (compressed inputs, streams, --index): by files.
  p.bytes_total = 0;
  EXPECT_EQ(ProgressText(p, 3600), "reading 50% (1/2 files, 25.0 MB), 100 docs/s, 1h00m left");
}

TEST(ProgressTextTest, VerifyingCountsTheDocumentsReadAgain) {
  Progress p;
  p.stage = Stage::kVerifying;
  p.reread = 600;
  p.reread_total = 1500;
  p.seconds = 12.34;
  EXPECT_EQ(ProgressText(p, 4), "verifying 40% (600/1500 documents read again), 12.3 s, 6s left");
}

TEST(ProgressTextTest, ClusteringCountsThePairsLinked) {
  Progress p;
  p.stage = Stage::kClustering;
  p.linked = 131072;
  p.seconds = 3.21;
  EXPECT_EQ(ProgressText(p, 1), "clustering, 131072 pairs linked, 3.2 s");
  p.linked = 0;  // before the first count: its documents and time
  EXPECT_EQ(ProgressText(p, 1), "clustering, 0 documents, 0 bytes, 3.2 s");
}

TEST(ProgressTextTest, OtherStagesShowTheirTime) {
  Progress p;
  p.stage = Stage::kVerifying;
  p.documents = 1;
  p.bytes = 1500;
  p.seconds = 12.34;
  EXPECT_EQ(ProgressText(p, 2), "verifying, 1 document, 1.5 kB, 12.3 s");
}

}  // namespace
}  // namespace neardup::cli
