// NewJobOf: the --new job of a run is its canonical PATHs and the options
// that decide its documents and what it reports, and nothing else.
#include "index/new_job.h"

#include <gtest/gtest.h>

#include <string>

#include "index/index_keys.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::TempDir;
using testing::WriteFile;

NewJob JobOf(const Options& o) { return NewJobOf(o, IndexKeys(o)); }

Options NewRun(const TempDir& dir) {
  Options o;
  o.paths = {dir / "c", dir / "d"};
  o.index = dir / "ix.db";
  o.new_only = true;
  return o;
}

TEST(NewJobTest, SpellingsOrderAndHowTheOutputIsWrittenAreOneJob) {
  TempDir dir;
  WriteFile(dir / "c/a", "a");
  WriteFile(dir / "d/b", "b");
  const NewJob job = JobOf(NewRun(dir));
  EXPECT_EQ(job.fingerprint.size(), 16u);
  EXPECT_EQ(job.description, (dir / "c") + " " + (dir / "d") + " -t 0.8 --verify exact --mode pairs");

  Options o = NewRun(dir);
  o.paths = {dir / "d/", dir.path() + "//c/../c"};
  o.threads = 3;
  o.kept_dir = dir / "kept";
  o.pair_memory = 1 << 20;
  o.lock_wait = 5;
  EXPECT_EQ(JobOf(o).fingerprint, job.fingerprint);
  EXPECT_EQ(JobOf(o).description, job.description);
}

TEST(NewJobTest, OtherPathsOrOptionsThatDecideWhatIsReportedAreAnotherJob) {
  TempDir dir;
  WriteFile(dir / "c/sub/a", "a");
  WriteFile(dir / "d/b", "b");
  const std::string job = JobOf(NewRun(dir)).fingerprint;
  const auto differs = [&](const char* what, auto change) {
    Options o = NewRun(dir);
    change(o);
    EXPECT_NE(JobOf(o).fingerprint, job) << what;
  };
  differs("a subfolder", [&](Options& o) { o.paths = {dir / "c/sub", dir / "d"}; });
  differs("one path fewer", [&](Options& o) { o.paths = {dir / "c"}; });
  differs("-t", [](Options& o) { o.threshold = 0.9; });
  differs("--bands", [](Options& o) {
    o.bands = 16;
    o.rows = 8;
  });
  differs("--verify", [](Options& o) { o.verify = VerifyMode::kSignature; });
  differs("--exact-all", [](Options& o) { o.exact_margin = 0; });
  differs("--mode", [](Options& o) { o.mode = Mode::kClusters; });
  differs("--keep", [](Options& o) { o.keep = KeepRule::kLongest; });
  differs("--cluster-by", [](Options& o) { o.cluster_by = ClusterBy::kConnected; });
  differs("--glob", [](Options& o) { o.globs = {"*.txt"}; });
  differs("--hidden", [](Options& o) { o.hidden = true; });
  differs("-L", [](Options& o) { o.follow = true; });
  differs("--min-words", [](Options& o) { o.min_words = 5; });
  differs("--input", [](Options& o) { o.input = InputFormat::kJsonl; });
  differs("--text-key", [](Options& o) { o.text_key = "body"; });
  differs("--max-filesize", [](Options& o) { o.max_filesize = 1000; });
}

}  // namespace
}  // namespace neardup
