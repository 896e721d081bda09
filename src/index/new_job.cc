#include "index/new_job.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "base/hash.h"

namespace neardup {
namespace {

// Each field as "name=value\0", so that no two lists of fields hash alike
// by a value running into the next name.
class Fields {
 public:
  void Add(const char* name, const std::string& value) { text_.append(name).append("=").append(value).push_back('\0'); }
  void Add(const char* name, uint64_t value) { Add(name, std::to_string(value)); }
  void Add(const char* name, double value) {
    char s[40];
    std::snprintf(s, sizeof s, "%.17g", value);
    Add(name, std::string(s));
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

NewJob NewJobOf(const Options& o, const IndexKeys& keys) {
  std::vector<std::string> paths;
  for (const std::string& p : o.paths) paths.push_back(keys.KeyOf(p));
  std::vector<std::string> listed;
  for (const std::string& p : o.listed_paths) listed.push_back(keys.KeyOf(p));
  paths = Sorted(std::move(paths));
  listed = Sorted(std::move(listed));

  Fields f;
  for (const std::string& p : paths) f.Add("path", p);
  for (const std::string& p : listed) f.Add("listed", p);
  for (const std::string& g : o.globs) f.Add("glob", g);  // in order: the last matching glob wins
  for (const std::string& i : o.ignore_files) f.Add("ignore-file", i);
  f.Add("no-ignore", uint64_t{o.no_ignore});
  f.Add("hidden", uint64_t{o.hidden});
  f.Add("follow", uint64_t{o.follow});
  f.Add("max-filesize", o.max_filesize);
  f.Add("max-line", o.max_line);
  f.Add("input", std::string(RowsAreDocuments(o.input) ? "jsonl" : "text"));
  f.Add("text-key", o.text_key);
  f.Add("id-key", o.id_key);
  f.Add("min-words", o.min_words);
  f.Add("bands", static_cast<uint64_t>(o.bands));
  f.Add("rows", static_cast<uint64_t>(o.rows));
  f.Add("threshold", o.threshold);
  f.Add("verify", std::string(ToString(o.verify)));
  f.Add("exact-margin", o.exact_margin);
  f.Add("mode", std::string(ToString(o.mode)));
  f.Add("keep", std::string(ToString(o.keep)));
  f.Add("cluster-by", std::string(ToString(o.cluster_by)));

  NewJob job;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016" PRIx64, HashBytes(f.text().data(), f.text().size(), 0));
  job.fingerprint = hex;
  for (const std::string& p : paths) job.description.append(job.description.empty() ? "" : " ").append(p);
  if (!listed.empty()) {
    job.description.append(job.description.empty() ? "" : " ")
        .append(std::to_string(listed.size()))
        .append(" listed paths");
  }
  char t[64];
  std::snprintf(t, sizeof t, " -t %g --verify %s --mode %s", o.threshold, ToString(o.verify), ToString(o.mode));
  job.description.append(t);
  return job;
}

}  // namespace neardup
