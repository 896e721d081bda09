#include "cli/commands.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>

#include "cli/output.h"
#include "cli/progress.h"
#include "neardup/banding.h"
#include "neardup/pipeline.h"
#include "neardup/writers.h"

namespace neardup::cli {

namespace {

// Reads a list of paths separated by `sep` from FILE or stdin ("-").
Status ReadPathList(const std::string& file, char sep, std::vector<std::string>* out) {
  std::string data;
  if (file == "-") {
    data.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(file, std::ios::binary);
    if (!in) return Status::IoError(file + ": cannot open list of paths");
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) return Status::IoError(file + ": read error");
  }
  size_t start = 0;
  while (start < data.size()) {
    size_t end = data.find(sep, start);
    if (end == std::string::npos) end = data.size();
    std::string path = data.substr(start, end - start);
    if (sep == '\n' && !path.empty() && path.back() == '\r') path.pop_back();
    if (!path.empty()) out->push_back(std::move(path));
    start = end + 1;
  }
  return Status::Ok();
}

std::string Summary(const Report& r) {
  const Stats& s = r.stats;
  std::string line = std::to_string(s.documents) + " documents (" +
                     std::to_string((s.bytes + 500000) / 1000000) + " MB), " + std::to_string(s.empty) +
                     " empty, " + std::to_string(s.skipped()) + " skipped, " + std::to_string(s.unreadable) +
                     " unreadable";
  if (s.exact_duplicates > 0) line += ", " + std::to_string(s.exact_duplicates) + " exact copies";
  if (s.malformed_lines > 0) line += ", " + std::to_string(s.malformed_lines) + " malformed lines";
  if (s.invalid_utf8 > 0) line += ", " + std::to_string(s.invalid_utf8) + " invalid UTF-8 replaced";
  if (s.transcoded > 0) line += ", " + std::to_string(s.transcoded) + " transcoded from UTF-16";
  line += "; " + std::to_string(s.candidates) + " candidate pairs, ";
  if (r.params.mode == Mode::kPairs) {
    line += std::to_string(s.pairs) + " pairs reported";
  } else {
    line += std::to_string(s.clusters) + " clusters of " + std::to_string(s.clustered) + " documents, " +
            std::to_string(s.removable) + " removable (" +
            std::to_string((s.removable_bytes + 500000) / 1000000) + " MB)";
  }
  char secs[32];
  std::snprintf(secs, sizeof secs, "; %.2f s", s.seconds);
  return line + secs;
}

std::string SkipDetail(const Stats& s) {
  std::string d;
  auto add = [&](uint64_t n, const char* what) {
    if (n == 0) return;
    if (!d.empty()) d += ", ";
    d += std::to_string(n) + " " + what;
  };
  add(s.hidden, "hidden");
  add(s.glob, "excluded by --glob");
  add(s.too_large, "over --max-filesize");
  add(s.binary, "binary");
  add(s.too_short, "under --min-words");
  return d;
}

}  // namespace

ExitCode RunScan(const CliOptions& cli) {
  Options options = cli.scan;
  for (const auto& f : cli.files_from) {
    if (Status s = ReadPathList(f, '\n', &options.listed_paths); !s.ok()) {
      spdlog::error("{}", s.message());
      return ExitCode::kError;
    }
  }
  for (const auto& f : cli.files0_from) {
    if (Status s = ReadPathList(f, '\0', &options.listed_paths); !s.ok()) {
      spdlog::error("{}", s.message());
      return ExitCode::kError;
    }
  }

  // Open the output first: a bad -o path fails before the work, not after.
  Result<std::unique_ptr<Output>> out = Output::Open(cli.output);
  if (!out.ok()) {
    spdlog::error("{}", out.status().message());
    return ExitCode::kError;
  }

  const bool show_progress = cli.progress.value_or(::isatty(STDERR_FILENO) != 0);
  ProgressLine progress(show_progress);
  RunContext ctx;
  Stage last_stage = Stage::kWalking;
  ctx.progress = [&progress, &last_stage](const Progress& p) {
    if (p.stage != last_stage) {
      progress.Clear();
      spdlog::debug("{} after {:.2f} s ({} documents, {} bytes read)", ToString(p.stage), p.seconds, p.documents,
                    p.bytes);
      last_stage = p.stage;
    }
    progress.Update(p);
  };
  Result<Report> result = FindDuplicates(options, ctx);
  progress.Clear();
  if (!result.ok()) {
    spdlog::error("{}", result.status().message());
    return ExitCode::kError;
  }
  const Report& report = *result;
  for (const Status& p : report.problems) spdlog::warn("{}", p.message());
  if (report.stats.special > 0) {
    spdlog::info("{} special files (fifos, sockets, devices) found while walking were not read",
                 report.stats.special);
  }
  const Params& pa = report.params;
  spdlog::info("{} {}-shingles, {} permutations, {} bands x {} rows, threshold {}, verify {}, seed {}",
               ToString(pa.shingle), pa.ngram, pa.num_perm, pa.bands, pa.rows, pa.threshold,
               ToString(pa.verify), pa.seed);

  WriteReport(report, cli.format, (*out)->stream(), cli.terminator);
  if (Status s = (*out)->Commit(); !s.ok()) {
    spdlog::error("{}", s.message());
    return ExitCode::kError;
  }
  if (cli.verbosity >= 0) {
    std::string line = "neardup: " + Summary(report);
    const std::string detail = SkipDetail(report.stats);
    if (!detail.empty()) line += " (skipped: " + detail + ")";
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  if (report.stats.unreadable > 0) return ExitCode::kError;
  const bool any = report.params.mode == Mode::kPairs ? !report.pairs.empty() : !report.clusters.empty();
  return any ? ExitCode::kFound : ExitCode::kNothing;
}

ExitCode RunParams(const Options& options, std::ostream& out) {
  const Banding b = options.bands > 0 ? Banding{options.bands, options.rows}
                                      : ChooseBanding(options.threshold, options.num_perm);
  const double t = options.threshold;
  char line[160];
  std::snprintf(line, sizeof line, "threshold %.4g, num_perm %d: bands %d x rows %d (%d of %d permutations in LSH)\n",
                t, options.num_perm, b.bands, b.rows, b.bands * b.rows, options.num_perm);
  out << line;
  std::snprintf(line, sizeof line, "approximate LSH threshold (1/b)^(1/r) = %.4f\n",
                ApproximateThreshold(b.bands, b.rows));
  out << line << "\n  similarity  P(candidate) = 1-(1-s^r)^b\n";
  for (int i = 1; i <= 10; ++i) {
    const double s = i / 10.0;
    std::snprintf(line, sizeof line, "  %10.1f  %.4f\n", s, CandidateProbability(s, b.bands, b.rows));
    out << line;
  }
  const double p = CandidateProbability(t, b.bands, b.rows);
  std::snprintf(line, sizeof line,
                "\nat the threshold s = %.4g: %.4f of the pairs become candidates; %.2f%% are missed\n", t, p,
                (1.0 - p) * 100.0);
  out << line;
  return ExitCode::kFound;
}

}  // namespace neardup::cli
