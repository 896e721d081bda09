// Replays the committed fuzz seeds (tests/fuzz/corpus/<harness>/) through the
// fuzz harnesses in every build, with or without libFuzzer, so that each
// crash the fuzzers found stays fixed and the harnesses' invariants hold on
// the seeds. The harnesses are compiled into this test with
// NEARDUP_FUZZ_REPLAY (no LLVMFuzzerTestOneInput).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "fuzz/harnesses.h"
#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using Harness = int (*)(const uint8_t* data, size_t size);

// The seed being replayed, for failure messages.
std::string g_seed;

void RecordFailure(const char* check, const char* file, int line) {
  ADD_FAILURE_AT(file, line) << "fuzz invariant failed on seed " << g_seed << ": " << check;
}

// The files of tests/fuzz/corpus/<name>, sorted.
std::vector<std::filesystem::path> Seeds(const std::string& name) {
  std::vector<std::filesystem::path> seeds;
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::path(::neardup::testing::SourceDir()) / "tests/fuzz/corpus" / name;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file()) seeds.push_back(entry.path());
  }
  EXPECT_FALSE(ec) << dir << ": " << ec.message();
  std::sort(seeds.begin(), seeds.end());
  return seeds;
}

void Replay(const std::string& name, Harness harness) {
  const std::vector<std::filesystem::path> seeds = Seeds(name);
  EXPECT_GE(seeds.size(), 4u) << "seed corpus of " << name;
  fuzz::SetFailureHandler(RecordFailure);
  for (const auto& seed : seeds) {
    g_seed = seed.string();
    const std::string data = testing::ReadFile(g_seed);
    EXPECT_EQ(harness(reinterpret_cast<const uint8_t*>(data.data()), data.size()), 0) << g_seed;
    // Every prefix too: truncated input is the commonest mutation there is.
    for (size_t n = 0; n < data.size(); n += 1 + data.size() / 64) {
      harness(reinterpret_cast<const uint8_t*>(data.data()), n);
    }
  }
  fuzz::SetFailureHandler(nullptr);
}

TEST(FuzzReplayTest, DecodeSeeds) { Replay("decode", fuzz::DecodeFuzz); }

TEST(FuzzReplayTest, JsonlSeeds) { Replay("jsonl", fuzz::JsonlFuzz); }

TEST(FuzzReplayTest, GlobSeeds) { Replay("glob", fuzz::GlobFuzz); }

TEST(FuzzReplayTest, TableSeeds) { Replay("table", fuzz::TableFuzz); }

TEST(FuzzReplayTest, IndexSeeds) { Replay("index", fuzz::IndexFuzz); }

TEST(FuzzReplayTest, BandsSeeds) { Replay("bands", fuzz::BandsFuzz); }

TEST(FuzzReplayTest, PairsSeeds) { Replay("pairs", fuzz::PairsFuzz); }

TEST(FuzzReplayTest, MetaSeeds) { Replay("meta", fuzz::MetaFuzz); }

TEST(FuzzReplayTest, BitmapsSeeds) { Replay("bitmaps", fuzz::BitmapsFuzz); }

TEST(FuzzReplayTest, StripSeeds) { Replay("strip", fuzz::StripFuzz); }

TEST(FuzzReplayTest, EmptyInputIsFine) {
  fuzz::SetFailureHandler(RecordFailure);
  g_seed = "(empty)";
  for (Harness harness : {fuzz::DecodeFuzz, fuzz::JsonlFuzz, fuzz::GlobFuzz, fuzz::TableFuzz, fuzz::IndexFuzz,
                          fuzz::BandsFuzz, fuzz::PairsFuzz, fuzz::MetaFuzz, fuzz::BitmapsFuzz, fuzz::StripFuzz}) {
    EXPECT_EQ(harness(nullptr, 0), 0);
  }
  fuzz::SetFailureHandler(nullptr);
}

}  // namespace
}  // namespace neardup
