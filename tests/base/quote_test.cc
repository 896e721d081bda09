#include "neardup/quote.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "test_util.h"

namespace neardup {
namespace {

// Names and what `LC_ALL=C.UTF-8 ls --quoting-style=shell-escape` (GNU
// coreutils) prints for them.
const std::vector<std::pair<std::string, std::string>>& LsQuoted() {
  static const std::vector<std::pair<std::string, std::string>> table = {
      {"plain", "plain"},
      {"a.txt", "a.txt"},
      {"docs/a-1_b,c+d%e:f@g]h.txt", "docs/a-1_b,c+d%e:f@g]h.txt"},
      {"a b", "'a b'"},
      {"a'b", "\"a'b\""},
      {"a'b c", "\"a'b c\""},
      {"a$b", "'a$b'"},
      {"a'b$c", "'a'\\''b$c'"},
      {"a'b!c", "'a'\\''b!c'"},
      {"a\"b", "'a\"b'"},
      {"#a", "'#a'"},
      {"a#", "a#"},
      {"~a", "'~a'"},
      {"a~", "a~"},
      {"{", "'{'"},
      {"}", "'}'"},
      {"{a}", "{a}"},
      {"a=b", "'a=b'"},
      {"=a", "'=a'"},
      {"a!b", "'a!b'"},
      {"a\\b", "'a\\b'"},
      {"a*b", "'a*b'"},
      {"a[b", "'a[b'"},
      {"a^b", "'a^b'"},
      {"a&b", "'a&b'"},
      {"a;b", "'a;b'"},
      {"a|b", "'a|b'"},
      {"a<b", "'a<b'"},
      {"a(b", "'a(b'"},
      {"a`b", "'a`b'"},
      {"a?b", "'a?b'"},
      {"-a", "-a"},
      {"\xC3\xA9", "\xC3\xA9"},
      {"a\nb", "'a'$'\\n''b'"},
      {"a\tb", "'a'$'\\t''b'"},
      {"\x1B[31m", "''$'\\033''[31m'"},
      {"a\x7F"
       "b",
       "'a'$'\\177''b'"},
      {"\xFF", "''$'\\377'"},
      {"a\xC3", "'a'$'\\303'"},
      {"''", "\"''\""},
  };
  return table;
}

TEST(ShellQuotedTest, QuotesAsLsShellEscapeDoes) {
  for (const auto& [name, want] : LsQuoted()) EXPECT_EQ(ShellQuoted(name), want) << want;
  EXPECT_EQ(ShellQuoted(""), "''");
}

// The same names through the real ls, where it has the quoting style.
TEST(ShellQuotedTest, AgreesWithLsOnThisMachine) {
  testing::TempDir dir;
  for (const auto& [name, want] : LsQuoted()) {
    if (name.find('/') != std::string::npos) continue;
    testing::WriteFile(dir / name, "");
  }
  const testing::RunResult r = testing::RunProcess(
      {"/usr/bin/env", "LC_ALL=C.UTF-8", "ls", "--quoting-style=shell-escape", "-1", dir.path()}, dir.path());
  if (r.exit_code != 0) GTEST_SKIP() << "no GNU ls with --quoting-style: " << r.err;
  std::map<std::string, std::string> quoted;  // by ls's line
  for (const auto& [name, want] : LsQuoted()) {
    if (name.find('/') == std::string::npos) quoted[ShellQuoted(name)] = name;
  }
  size_t start = 0;
  size_t seen = 0;
  while (start < r.out.size()) {
    const size_t end = r.out.find('\n', start);
    const std::string line = r.out.substr(start, end - start);
    start = end == std::string::npos ? r.out.size() : end + 1;
    if (line == ".maxrss" || line == "'.maxrss'") continue;
    EXPECT_EQ(quoted.count(line), 1u) << "ls printed " << line;
    ++seen;
  }
  EXPECT_EQ(seen, quoted.size());
}

}  // namespace
}  // namespace neardup
