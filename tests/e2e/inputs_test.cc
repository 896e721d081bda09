// End to end on messy real-world input: the real binary on files made in a
// temporary directory (links and loops, UTF-16 and Latin-1, binary files,
// thousands of empty files, broken and compressed JSONL, text without spaces,
// width variants, path lists, globs, size limits, a 1 GB file).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "compress_util.h"
#include "e2e/run_neardup.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Gzip;
using testing::Join;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunOptions;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::With;
using testing::WriteFile;
using testing::Zstd;

using Pairs = std::vector<std::pair<std::string, std::string>>;

std::string Text(uint64_t seed, size_t words = 300) { return Join(RandomWords(words, seed)); }

// Runs `neardup scan -f json ARGS...` and parses stdout.
nlohmann::json ScanJson(const TempDir& dir, std::vector<std::string> args, RunResult* result = nullptr,
                        const std::string& stdin_path = "/dev/null") {
  RunResult r = RunNeardup(With({"scan", "-f", "json"}, args), dir.path(), RunOptions().Stdin(stdin_path));
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << "stdout: " << r.out << "\nstderr: " << r.err;
  if (result != nullptr) *result = std::move(r);
  return j;
}

Pairs PairsOf(const nlohmann::json& j) {
  Pairs out;
  if (!j.contains("pairs")) return out;
  for (const auto& p : j["pairs"]) out.emplace_back(p["a"].get<std::string>(), p["b"].get<std::string>());
  return out;
}

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

// UTF-8 -> code points (the tests write valid UTF-8 only).
std::vector<uint32_t> CodePoints(const std::string& utf8) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < utf8.size();) {
    const auto b = static_cast<unsigned char>(utf8[i]);
    const size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    uint32_t cp = len == 1 ? b : len == 2 ? (b & 0x1Fu) : len == 3 ? (b & 0x0Fu) : (b & 0x07u);
    for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(utf8[i + k]) & 0x3Fu);
    out.push_back(cp);
    i += len;
  }
  return out;
}

// UTF-8 -> UTF-16 with a BOM, little or big endian.
std::string Utf16WithBom(const std::string& utf8, bool big_endian) {
  std::string out;
  auto unit = [&](uint32_t u) {
    const char lo = static_cast<char>(u & 0xFF);
    const char hi = static_cast<char>(u >> 8);
    out.push_back(big_endian ? hi : lo);
    out.push_back(big_endian ? lo : hi);
  };
  unit(0xFEFF);
  for (uint32_t cp : CodePoints(utf8)) {
    if (cp < 0x10000) {
      unit(cp);
    } else {
      unit(0xD800 + ((cp - 0x10000) >> 10));
      unit(0xDC00 + ((cp - 0x10000) & 0x3FF));
    }
  }
  return out;
}

// UTF-8 -> Latin-1. REQUIRES: every code point is below U+0100.
std::string Latin1(const std::string& utf8) {
  std::string out;
  for (uint32_t cp : CodePoints(utf8)) out.push_back(static_cast<char>(cp));
  return out;
}

// --- 1. Symbolic links -------------------------------------------------------

TEST(InputsTest, SymlinkLoopIsReportedOnceAndTheWalkFinishes) {
  TempDir dir;
  const std::string base = Text(1);
  const std::string other = Text(2);
  WriteFile(dir / "r/a.txt", base);
  WriteFile(dir / "r/sub/deeper/a_copy.txt", base);
  WriteFile(dir / "r/unrelated.txt", Text(3));
  WriteFile(dir / "outside/o.txt", other);
  WriteFile(dir / "r/real/o_copy.txt", other);
  ASSERT_EQ(::symlink("../..", (dir / "r/sub/deeper/up").c_str()), 0);  // loop: points at r
  ASSERT_EQ(::symlink("../outside", (dir / "r/ext").c_str()), 0);       // a directory outside r

  RunResult r;
  nlohmann::json j = ScanJson(dir, {"-L", dir / "r"}, &r);
  // The loop is a warning, not an unreadable file: the pairs decide the status.
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Count(r.err, "symlink loop"), 1u) << r.err;
  EXPECT_NE(r.err.find("neardup: " + dir / "r/sub/deeper/up: symlink loop, not followed"), std::string::npos) << r.err;
  EXPECT_EQ(j["stats"]["unreadable"], 0);
  EXPECT_EQ(j["stats"]["documents"], 5);
  EXPECT_EQ(PairsOf(j), (Pairs{{dir / "r/a.txt", dir / "r/sub/deeper/a_copy.txt"},
                               {dir / "r/ext/o.txt", dir / "r/real/o_copy.txt"}}));

  // Without -L neither link is followed: no warning, the outside copy is not read.
  j = ScanJson(dir, {dir / "r"}, &r);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("loop"), std::string::npos) << r.err;
  EXPECT_EQ(j["stats"]["documents"], 4);
  EXPECT_EQ(PairsOf(j), (Pairs{{dir / "r/a.txt", dir / "r/sub/deeper/a_copy.txt"}}));
}

// --- 2. UTF-16 ---------------------------------------------------------------

TEST(InputsTest, Utf16WithBomEqualsItsUtf8TwinAndIsCountedAsTranscoded) {
  TempDir dir;
  // Accents, CJK and an emoji (a surrogate pair in UTF-16) among plain words.
  const std::string text = Text(4, 150) + " café Ångström 東京 😀 " + Text(5, 150) + "\r\n";
  WriteFile(dir / "d/utf8.txt", text);
  WriteFile(dir / "d/utf16le.txt", Utf16WithBom(text, /*big_endian=*/false));
  WriteFile(dir / "d/utf16be.txt", Utf16WithBom(text, /*big_endian=*/true));
  WriteFile(dir / "d/other.txt", Text(6));

  RunResult r;
  const nlohmann::json j = ScanJson(dir, {"--exact", dir / "d"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(PairsOf(j), (Pairs{{dir / "d/utf16be.txt", dir / "d/utf16le.txt"},
                               {dir / "d/utf16be.txt", dir / "d/utf8.txt"},
                               {dir / "d/utf16le.txt", dir / "d/utf8.txt"}}));
  for (const auto& p : j["pairs"]) {
    EXPECT_EQ(p["estimate"], 1);
    EXPECT_EQ(p["jaccard"], 1);
  }
  EXPECT_EQ(j["stats"]["transcoded"], 2);
  EXPECT_EQ(j["stats"]["invalid_utf8"], 0);
  EXPECT_EQ(j["stats"]["exact_duplicates"], 2);
  EXPECT_NE(r.err.find(", 2 transcoded from UTF-16"), std::string::npos) << r.err;
}

// --- 3. Latin-1 --------------------------------------------------------------

TEST(InputsTest, Latin1MailReadAsLatin1EqualsItsUtf8Twin) {
  TempDir dir;
  // No byte of this text is a UTF-8 continuation byte in Latin-1 (0x80-0xBF),
  // so read as UTF-8 each accented letter is one invalid sequence.
  const std::string mail =
      "From: Zoë Müller <zoe@example.org>\nSubject: Réunion à Zürich\n\n"
      "Bonjour à tous, la réunion du comité aura lieu à Zürich près de la gare. " +
      Text(7, 120) + " Je vous prie d'agréer mes salutations distinguées, Zoë Müller. Ça va? Straße Øresund Æble";
  std::string edited = mail;
  edited.replace(edited.find("comité"), 7, "comités");
  edited += " " + Text(8, 6);
  size_t high_bytes = 0;
  for (const char c : Latin1(mail) + Latin1(edited)) high_bytes += static_cast<unsigned char>(c) >= 0x80;
  ASSERT_GT(high_bytes, 30u);

  WriteFile(dir / "latin1/mail.txt", Latin1(mail));
  WriteFile(dir / "latin1/reply.txt", Latin1(edited));
  WriteFile(dir / "utf8/mail.txt", mail);
  WriteFile(dir / "utf8/reply.txt", edited);

  // --encoding applies to every input, so the twins are compared across two
  // runs: the Latin-1 files read as Latin-1 give exactly what the UTF-8 files
  // give (same shingles: same estimate and same exact Jaccard).
  RunResult r;
  const nlohmann::json as_latin1 = ScanJson(dir, {"--exact", "--encoding", "latin1", dir / "latin1"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json as_utf8 = ScanJson(dir, {"--exact", dir / "utf8"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(as_latin1["pairs"].size(), 1u);
  ASSERT_EQ(as_utf8["pairs"].size(), 1u);
  EXPECT_EQ(as_latin1["pairs"][0]["estimate"], as_utf8["pairs"][0]["estimate"]);
  EXPECT_EQ(as_latin1["pairs"][0]["jaccard"], as_utf8["pairs"][0]["jaccard"]);
  EXPECT_LT(as_utf8["pairs"][0]["jaccard"].get<double>(), 1.0);
  EXPECT_EQ(as_latin1["stats"]["invalid_utf8"], 0);

  // And within one run: the Latin-1 mail and a Latin-1 copy that differs only
  // in its line ends and spacing are one document.
  std::string crlf;
  for (const char c : Latin1(mail)) {
    crlf += c == '\n' ? std::string("\r\n") : c == ' ' ? std::string("  ") : std::string(1, c);
  }
  WriteFile(dir / "latin1/mail_crlf.txt", crlf);
  const nlohmann::json copies =
      ScanJson(dir, {"--encoding", "latin1", dir / "latin1/mail.txt", dir / "latin1/mail_crlf.txt"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(copies["pairs"].size(), 1u);
  EXPECT_EQ(copies["pairs"][0]["estimate"], 1);

  // Read as UTF-8 (the default), every Latin-1 letter is replaced and counted.
  const nlohmann::json mangled = ScanJson(dir, {"--exact", dir / "latin1/mail.txt", dir / "latin1/reply.txt"}, &r);
  EXPECT_LE(r.exit_code, 1) << r.err;
  EXPECT_EQ(mangled["stats"]["invalid_utf8"], high_bytes);
  EXPECT_EQ(mangled["stats"]["documents"], 2);
  EXPECT_NE(r.err.find(std::to_string(high_bytes) + " invalid UTF-8 replaced"), std::string::npos) << r.err;
}

// --- 4. Binary files ------------------------------------------------------------

TEST(InputsTest, NulInTheFirstBlockIsBinaryAndANulAfterItIsText) {
  TempDir dir;
  std::string text = Text(9, 20000);  // about 120 KB
  ASSERT_GT(text.size(), 100'000u);
  // A NUL in place of a space separates words just as the space did.
  auto with_nul_at_space = [&](size_t at_least) {
    std::string s = text;
    s[s.find(' ', at_least)] = '\0';
    return s;
  };
  WriteFile(dir / "d/plain.txt", text);
  WriteFile(dir / "d/nul_at_100.txt", with_nul_at_space(100));
  WriteFile(dir / "d/nul_at_65535.txt", [&] {
    std::string s = text;
    s[65535] = '\0';  // the last byte of the 64 KiB probe
    return s;
  }());
  WriteFile(dir / "d/nul_after_64k.txt", with_nul_at_space(70'000));
  // A UTF-16 file is full of NULs but is text.
  WriteFile(dir / "d/utf16.txt", Utf16WithBom(Text(10), false));
  WriteFile(dir / "d/utf16_copy.txt", Text(10));

  RunResult r;
  const nlohmann::json j = ScanJson(dir, {dir / "d"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(j["stats"]["binary"], 2);
  EXPECT_EQ(j["stats"]["documents"], 4);
  EXPECT_EQ(PairsOf(j), (Pairs{{dir / "d/nul_after_64k.txt", dir / "d/plain.txt"},
                               {dir / "d/utf16.txt", dir / "d/utf16_copy.txt"}}));
  EXPECT_EQ(j["pairs"][0]["estimate"], 1);
  EXPECT_NE(r.err.find("(skipped: 2 binary)"), std::string::npos) << r.err;
}

// --- 5. Many empty files -----------------------------------------------------------

TEST(InputsTest, TwentyThousandEmptyFilesAndOnePair) {
  TempDir dir;
  // 20 directories of 1000 files. Most are zero bytes; some hold only white
  // space or punctuation (no word).
  for (int i = 0; i < 20000; ++i) {
    const std::string sub = dir / ("e/" + std::to_string(i / 1000));
    if (i % 1000 == 0) std::filesystem::create_directories(sub);
    const std::string content = i % 1000 == 1 ? " \n\t " : i % 1000 == 2 ? "-- ... !?" : "";
    std::ofstream(sub + "/" + std::to_string(i) + ".txt", std::ios::binary) << content;
  }
  WriteFile(dir / "e/x.txt", Text(11));
  WriteFile(dir / "e/y.txt", Text(11));

  RunResult r;
  const nlohmann::json j = ScanJson(dir, {dir / "e"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(j["stats"]["empty"], 20000);
  EXPECT_EQ(j["stats"]["documents"], 2);
  EXPECT_EQ(j["stats"]["unreadable"], 0);
  EXPECT_EQ(PairsOf(j), (Pairs{{dir / "e/x.txt", dir / "e/y.txt"}}));
  // The size in kB, never "(0 MB)" (#27).
  const uint64_t bytes = j["stats"]["bytes"];
  ASSERT_GE(bytes, 1000u);
  ASSERT_LT(bytes, 99950u);
  char size[32];
  std::snprintf(size, sizeof size, "%.1f kB", static_cast<double>(bytes) / 1000);
  EXPECT_NE(r.err.find("2 documents (" + std::string(size) + "), 20000 empty"), std::string::npos) << r.err;
}

// --- 6. JSONL ----------------------------------------------------------------

// Lines 3, 5 and 6 are bad: malformed JSON, no text key, a text that is a number.
std::string MessyJsonl() {
  const std::string a = Text(12, 120);
  std::string a_edit = a;
  a_edit.replace(a_edit.find(' '), 1, " edited ");
  const std::string b = Text(13, 120);
  auto line = [](const std::string& fields) { return "{" + fields + "}\n"; };
  return line(R"("url":"https://a.example/1","content":")" + a + "\"") +
         line(R"("url":"https://b.example/1","content":")" + b + "\"") +
         R"({"url":"https://bad.example","content":"an unterminated string)" + std::string("\n") +
         "\n" +  // a blank line is skipped silently
         line(R"("url":"https://nokey.example","body":")" + a + "\"") +
         line(R"("url":"https://number.example","content":42)") +
         line(R"("url":"https://a.example/2","content":")" + a_edit + "\"") +
         line(R"("content":")" + b + "\",\"lang\":\"en\"") +  // no url: named FILE:LINE
         line(R"("url":"https://c.example/1","content":")" + Text(14, 120) + "\"");
}

TEST(InputsTest, MalformedJsonlLinesAreWarnedAboutAndTheRunGoesOn) {
  TempDir dir;
  const std::string file = dir / "j/docs.jsonl";
  WriteFile(file, MessyJsonl());

  RunResult r;
  nlohmann::json j = ScanJson(dir, {"--input", "jsonl", "--text-key", "content", "--id-key", "url", file}, &r);
  // Malformed lines are warnings; the run goes on, and the status is 2:
  // documents asked for were not read.
  ASSERT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("neardup: " + file + ":3: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("neardup: " + file + ":5: missing key \"content\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("neardup: " + file + ":6: \"content\" is not a string"), std::string::npos) << r.err;
  EXPECT_EQ(Count(r.err, "neardup: " + file + ":"), 3u) << r.err;
  EXPECT_EQ(j["stats"]["malformed_lines"], 3);
  EXPECT_EQ(j["stats"]["documents"], 5);
  EXPECT_NE(r.err.find("3 malformed lines"), std::string::npos) << r.err;
  // Pairs are sorted by name: "/tmp/...:8" comes before "https://...".
  EXPECT_EQ(PairsOf(j), (Pairs{{file + ":8", "https://b.example/1"}, {"https://a.example/1", "https://a.example/2"}}));

  // An id key no line has: every document is named FILE:LINE.
  j = ScanJson(dir, {"--input", "jsonl", "--text-key", "content", "--id-key", "name", file}, &r);
  ASSERT_EQ(r.exit_code, 2) << r.err;  // the same malformed lines
  EXPECT_EQ(PairsOf(j), (Pairs{{file + ":1", file + ":7"}, {file + ":2", file + ":8"}}));
}

// The encoding applies to the JSONL file: a Latin-1 file is transcoded before
// its lines are parsed (nothing is invalid UTF-8 then), and the text inside is
// not decoded a second time: "CAFÉ" (0xC9) and "café" (0xE9) are one word.
TEST(InputsTest, Latin1JsonlIsTranscodedOnce) {
  TempDir dir;
  const std::string body = Text(15, 120);
  WriteFile(dir / "l1/a.jsonl", "{\"id\":\"upper\",\"text\":\"CAF\xC9 " + body + "\"}\n");
  WriteFile(dir / "l1/b.jsonl", "{\"id\":\"lower\",\"text\":\"caf\xE9 " + body + "\"}\n");
  WriteFile(dir / "l1/c.jsonl", "{\"id\":\"plain\",\"text\":\"cafe " + body + "\"}\n");
  RunResult r;
  const nlohmann::json j =
      ScanJson(dir, {"--input", "jsonl", "--encoding", "latin1", "--exact", "-t", "0.99", dir / "l1"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(j["stats"]["invalid_utf8"], 0);
  EXPECT_EQ(j["stats"]["exact_duplicates"], 1);
  EXPECT_EQ(PairsOf(j), (Pairs{{"lower", "upper"}}));
}

TEST(InputsTest, CompressedJsonlGivesTheSamePairsAsThePlainFile) {
  TempDir dir;
  const std::string jsonl = MessyJsonl();
  const size_t half = jsonl.find('\n', jsonl.size() / 2) + 1;
  WriteFile(dir / "plain/docs.jsonl", jsonl);
  // Two gzip members and two zstd frames, as `cat a.gz b.gz` makes.
  WriteFile(dir / "gz/docs.jsonl.gz", Gzip(jsonl.substr(0, half)) + Gzip(jsonl.substr(half)));
  WriteFile(dir / "zst/docs.jsonl.zst", Zstd(jsonl.substr(0, half)) + Zstd(jsonl.substr(half)));

  // Without an id key ("id" by default; these lines have "url") the names
  // hold the file name: compare them without it.
  auto scan = [&](const std::string& file) {
    RunResult r;
    const nlohmann::json j = ScanJson(dir, {"--input", "jsonl", "--text-key", "content", file}, &r);
    EXPECT_EQ(r.exit_code, 2) << r.err;  // 3 malformed lines
    EXPECT_EQ(j["stats"]["malformed_lines"], 3);
    EXPECT_NE(r.err.find("neardup: " + file + ":5: missing key"), std::string::npos) << r.err;
    Pairs pairs = PairsOf(j);
    for (auto& [a, b] : pairs) {
      a = a.substr(file.size());
      b = b.substr(file.size());
    }
    return std::make_pair(pairs, j["stats"]["bytes"].get<uint64_t>());
  };
  const auto plain = scan(dir / "plain/docs.jsonl");
  EXPECT_EQ(plain.first, (Pairs{{":1", ":7"}, {":2", ":8"}}));
  EXPECT_EQ(scan(dir / "gz/docs.jsonl.gz"), plain);
  EXPECT_EQ(scan(dir / "zst/docs.jsonl.zst"), plain);
}

// --- 7. Scripts without spaces, width variants ----------------------------------------

const char kJapanese[] =
    "私たちの町では毎年秋になると小さな祭りが開かれます。駅前の通りには朝早くから屋台が並び、"
    "焼きそばやたこ焼きの香りが風に乗って広がります。子どもたちは浴衣を着て、親に手を引かれながら"
    "金魚すくいの店の前に集まります。夕方になると神社の境内で太鼓の音が響き始め、地元の若者たちが"
    "神輿を担いで商店街を練り歩きます。祭りの準備は夏の終わりから始まり、町内会の人々が何度も集まって"
    "提灯の飾り付けや交通整理の段取りを話し合います。年配の方々は昔の祭りの様子を懐かしそうに語り、"
    "若い世代はその話に耳を傾けながら伝統を受け継いでいきます。最後の夜には川辺で花火が打ち上げられ、"
    "多くの人が空を見上げて一年の思い出を振り返ります。\n";

const char kJapaneseOther[] =
    "新しいソフトウェアの開発では、まず利用者が本当に必要としている機能を丁寧に調べることが大切です。"
    "会議室に集まった技術者たちは、画面の設計図を壁に貼り出し、操作の流れを一つずつ確認しました。"
    "試作品を作った後は、実際の利用者に使ってもらい、分かりにくい部分や動作の遅い部分について意見を"
    "集めます。その結果をもとに設計を見直し、再び試作品を作るという作業を何度も繰り返します。"
    "こうした地道な積み重ねこそが、長く愛される製品を生み出す近道なのだと、開発責任者は静かに語りました。\n";

std::string ReplaceOnce(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

TEST(InputsTest, JapaneseEditIsPairedWithWordShinglesAndUnrelatedTextIsNot) {
  TempDir dir;
  // Three characters changed in about 300.
  std::string edited = ReplaceOnce(kJapanese, "毎年秋", "毎年春");
  edited = ReplaceOnce(edited, "焼きそば", "焼き鳥");
  edited = ReplaceOnce(edited, "太鼓", "大鼓");
  WriteFile(dir / "ja/festival.txt", kJapanese);
  WriteFile(dir / "ja/festival_edit.txt", edited);
  WriteFile(dir / "ja/software.txt", kJapaneseOther);

  RunResult r;
  const nlohmann::json j = ScanJson(dir, {"--exact", dir / "ja"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(j["params"]["shingle"], "word");
  EXPECT_EQ(PairsOf(j), (Pairs{{dir / "ja/festival.txt", dir / "ja/festival_edit.txt"}}));
  // Each changed character is a word: 3 of about 300 five-word shingles
  // become 15 different ones on each side.
  const double jaccard = j["pairs"][0]["jaccard"].get<double>();
  EXPECT_GT(jaccard, 0.85);
  EXPECT_LT(jaccard, 0.95);

  // Even at a low threshold the unrelated text pairs with neither.
  const nlohmann::json low = ScanJson(dir, {"--exact", "-t", "0.2", dir / "ja"}, &r);
  EXPECT_EQ(PairsOf(low), (Pairs{{dir / "ja/festival.txt", dir / "ja/festival_edit.txt"}}));
}

// Fullwidth letters and digits (U+FF01..U+FF5E), the ideographic space, and
// halfwidth katakana with separate voiced marks.
TEST(InputsTest, WidthVariantsAreEqualAfterNfkc) {
  TempDir dir;
  const std::string ascii =
      "Order ABC-123 shipped to Tokyo on 2024-05-01 " + Text(15, 100) + " カタカナ ガギグ テスト ABC";
  std::string wide;
  for (const uint32_t cp : CodePoints(ascii)) {
    uint32_t w = cp;
    if (cp > 0x20 && cp < 0x7F) w = cp + 0xFEE0;  // fullwidth form
    if (cp == ' ') w = 0x3000;                    // ideographic space
    if (w < 0x80) {
      wide.push_back(static_cast<char>(w));
    } else if (w < 0x800) {
      wide.push_back(static_cast<char>(0xC0 | (w >> 6)));
      wide.push_back(static_cast<char>(0x80 | (w & 0x3F)));
    } else {
      wide.push_back(static_cast<char>(0xE0 | (w >> 12)));
      wide.push_back(static_cast<char>(0x80 | ((w >> 6) & 0x3F)));
      wide.push_back(static_cast<char>(0x80 | (w & 0x3F)));
    }
  }
  wide = ReplaceOnce(wide, "カタカナ", "ｶﾀｶﾅ");
  wide = ReplaceOnce(wide, "ガギグ", "ｶﾞｷﾞｸﾞ");
  wide = ReplaceOnce(wide, "テスト", "ﾃｽﾄ");
  ASSERT_NE(wide.find("ＡＢＣ"), std::string::npos);
  WriteFile(dir / "w/narrow.txt", ascii);
  WriteFile(dir / "w/wide.txt", wide);
  WriteFile(dir / "w/other.txt", Text(16, 100));

  for (const char* unit : {"word", "char"}) {
    RunResult r;
    const nlohmann::json j = ScanJson(dir, {"--exact", "--shingle", unit, dir / "w"}, &r);
    ASSERT_EQ(r.exit_code, 0) << unit << ": " << r.err;
    EXPECT_EQ(PairsOf(j), (Pairs{{dir / "w/narrow.txt", dir / "w/wide.txt"}})) << unit;
    EXPECT_EQ(j["pairs"][0]["jaccard"], 1) << unit;
    EXPECT_EQ(j["stats"]["exact_duplicates"], 1) << unit;
  }
}

// --- 8. Lists of paths ------------------------------------------------------------

TEST(InputsTest, FilesFromReadsOnlyTheListedFiles) {
  TempDir dir;
  const std::string base = Text(17);
  WriteFile(dir / "d/a.txt", base);
  WriteFile(dir / "d/with space.txt", base);
  WriteFile(dir / "d/sub/listed_dir_file.txt", base);
  WriteFile(dir / "d/not_listed.txt", base);
  WriteFile(dir / "d/.hidden_listed.txt", base);  // listed paths are read even if hidden
  const std::string list = dir / "list.txt";
  // CRLF line ends and blank lines, as lists edited on Windows have.
  WriteFile(list, dir / "d/a.txt" + "\r\n\r\n" + dir / "d/with space.txt" + "\r\n" + dir / "d/sub" + "\n" +
                      dir / "d/.hidden_listed.txt");
  const Pairs expected = {{dir / "d/.hidden_listed.txt", dir / "d/a.txt"},
                          {dir / "d/.hidden_listed.txt", dir / "d/sub/listed_dir_file.txt"},
                          {dir / "d/.hidden_listed.txt", dir / "d/with space.txt"},
                          {dir / "d/a.txt", dir / "d/sub/listed_dir_file.txt"},
                          {dir / "d/a.txt", dir / "d/with space.txt"},
                          {dir / "d/sub/listed_dir_file.txt", dir / "d/with space.txt"}};

  RunResult r;
  nlohmann::json j = ScanJson(dir, {"--files-from", list}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(j["stats"]["documents"], 4);
  EXPECT_EQ(PairsOf(j), expected);

  j = ScanJson(dir, {"--files-from", "-"}, &r, list);  // the list on stdin
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(PairsOf(j), expected);

  // A listed file that does not exist: a warning and status 2, the rest reported.
  WriteFile(list, dir / "d/a.txt" + "\n" + dir / "d/gone.txt" + "\n" + dir / "d/with space.txt\n");
  j = ScanJson(dir, {"--files-from", list}, &r);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("neardup: " + dir / "d/gone.txt"), std::string::npos) << r.err;
  EXPECT_EQ(PairsOf(j), (Pairs{{dir / "d/a.txt", dir / "d/with space.txt"}}));
}

TEST(InputsTest, Files0FromTakesFindPrint0OnStdin) {
  TempDir dir;
  const std::string base = Text(18);
  // A newline in a name: only a NUL-separated list can carry it.
  WriteFile(dir / "d/new\nline.txt", base);
  WriteFile(dir / "d/x_one.txt", base);
  WriteFile(dir / "d/sub/x_two.txt", base);
  WriteFile(dir / "d/skipped.txt", base);

  const RunResult found = RunProcess(
      {"/usr/bin/find", dir / "d", "-name", "*line.txt", "-print0", "-o", "-name", "x_*", "-print0"}, dir.path());
  ASSERT_EQ(found.exit_code, 0) << found.err;
  ASSERT_EQ(Count(found.out, std::string(1, '\0')), 3u);
  const std::string list = dir / "list0";
  WriteFile(list, found.out);

  RunResult r;
  nlohmann::json j = ScanJson(dir, {"--files0-from", "-"}, &r, list);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(j["stats"]["documents"], 3);
  EXPECT_EQ(PairsOf(j), (Pairs{{dir / "d/new\nline.txt", dir / "d/sub/x_two.txt"},
                               {dir / "d/new\nline.txt", dir / "d/x_one.txt"},
                               {dir / "d/sub/x_two.txt", dir / "d/x_one.txt"}}));

  j = ScanJson(dir, {"--files0-from", list}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(j["stats"]["documents"], 3);
}

// --- 9. Globs, hidden files, size limit --------------------------------------------------

TEST(InputsTest, GlobsHiddenAndMaxFilesize) {
  TempDir dir;
  const std::string small = Text(19, 60);  // well under 1 KiB
  const std::string big = Text(20, 400);   // well over
  ASSERT_LT(small.size(), 1024u);
  ASSERT_GT(big.size(), 1024u);
  WriteFile(dir / "d/a.txt", small);
  WriteFile(dir / "d/keep/b.txt", small);
  WriteFile(dir / "d/keep/c.md", small);
  WriteFile(dir / "d/skip/d.txt", small);
  WriteFile(dir / "d/skip/deep/e.txt", small);
  WriteFile(dir / "d/.hidden/f.txt", small);
  WriteFile(dir / "d/.g.txt", small);
  WriteFile(dir / "d/big1.txt", big);
  WriteFile(dir / "d/keep/big2.txt", big);
  const std::string d = dir / "d/";

  RunResult r;
  nlohmann::json j = ScanJson(dir, {"-g", "*.txt", "-g", "!skip/**", dir / "d"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(PairsOf(j), (Pairs{{d + "a.txt", d + "keep/b.txt"}, {d + "big1.txt", d + "keep/big2.txt"}}));
  EXPECT_EQ(j["stats"]["glob"], 3);    // c.md, skip/d.txt, skip/deep/e.txt
  EXPECT_EQ(j["stats"]["hidden"], 2);  // .hidden, .g.txt
  EXPECT_NE(r.err.find("(skipped: 2 hidden, 3 excluded by --glob)"), std::string::npos) << r.err;

  j = ScanJson(dir, {"-g", "*.txt", "-g", "!skip/**", "--hidden", dir / "d"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(j["stats"]["documents"], 6);
  EXPECT_EQ(j["stats"]["hidden"], 0);
  EXPECT_EQ(PairsOf(j).size(), 7u);  // 6 among the four small files, 1 between the big ones
  EXPECT_EQ(PairsOf(j)[0], std::make_pair(d + ".g.txt", d + ".hidden/f.txt"));

  j = ScanJson(dir, {"--max-filesize", "1K", dir / "d"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(j["stats"]["too_large"], 2);
  EXPECT_EQ(j["stats"]["documents"], 5);
  EXPECT_EQ(PairsOf(j).size(), 10u);  // the five small files, not hidden
  for (const auto& [a, b] : PairsOf(j)) EXPECT_EQ(b.find("big"), std::string::npos) << b;
  EXPECT_NE(r.err.find("2 over --max-filesize"), std::string::npos) << r.err;
}

// --- 10. A 1 GB file --------------------------------------------------------------

TEST(InputsTest, OneGigabyteFileIsReadWithBoundedMemory) {
  const char* big = std::getenv("NEARDUP_BIG_TESTS");
  if (big == nullptr || std::string(big) != "1") GTEST_SKIP() << "set NEARDUP_BIG_TESTS=1 to run";
  TempDir dir;
  // 1 GiB of text in 64 different blocks, without holding it in memory.
  constexpr uint64_t kSize = 1ULL << 30;
  {
    std::filesystem::create_directories(dir / "d");
    std::ofstream out(dir / "d/big.txt", std::ios::binary);
    std::vector<std::string> blocks;
    for (uint64_t s = 0; s < 64; ++s) blocks.push_back(Join(RandomWords(100'000, 1000 + s, 50'000)) + "\n");
    uint64_t written = 0;
    for (size_t k = 0; written < kSize; ++k) {
      const std::string& block = blocks[k % blocks.size()];
      const size_t n = static_cast<size_t>(std::min<uint64_t>(block.size(), kSize - written));
      out.write(block.data(), static_cast<std::streamsize>(n));
      written += n;
    }
    ASSERT_TRUE(out.good());
  }
  WriteFile(dir / "d/small_a.txt", Text(21));
  WriteFile(dir / "d/small_b.txt", Text(21));
  ASSERT_EQ(std::filesystem::file_size(dir / "d/big.txt"), kSize);

  long max_rss_kb = 0;
  const RunResult r = RunNeardup({"scan", "-f", "json", dir / "d"}, dir.path(), RunOptions().MaxRss(&max_rss_kb));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["stats"]["documents"], 3);
  EXPECT_EQ(j["stats"]["bytes"].get<uint64_t>(), kSize + 2 * Text(21).size());
  EXPECT_EQ(PairsOf(j), (Pairs{{dir / "d/small_a.txt", dir / "d/small_b.txt"}}));
  EXPECT_LT(max_rss_kb, 200 * 1024) << "peak RSS " << max_rss_kb / 1024 << " MB";
  std::cerr << "[ info     ] 1 GiB scan: peak RSS " << max_rss_kb / 1024 << " MB\n";
}

// --- 11. --min-words ---------------------------------------------------------------

TEST(InputsTest, MinWordsSkipsAndCountsShortDocuments) {
  TempDir dir;
  WriteFile(dir / "d/long_a.txt", Text(22, 50));
  WriteFile(dir / "d/long_b.txt", Text(22, 50));
  WriteFile(dir / "d/short_a.txt", Text(23, 5));  // two short copies: a pair without the limit
  WriteFile(dir / "d/short_b.txt", Text(23, 5));
  WriteFile(dir / "d/ten.txt", Text(24, 10));
  WriteFile(dir / "d/nineteen.txt", Text(25, 19));
  WriteFile(dir / "d/twenty.txt", Text(26, 20));  // exactly at the limit: kept
  WriteFile(dir / "d/empty.txt", "");             // empty, not short

  RunResult r;
  nlohmann::json j = ScanJson(dir, {"--min-words", "20", dir / "d"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(j["stats"]["too_short"], 4);
  EXPECT_EQ(j["stats"]["empty"], 1);
  EXPECT_EQ(j["stats"]["documents"], 3);
  EXPECT_EQ(PairsOf(j), (Pairs{{dir / "d/long_a.txt", dir / "d/long_b.txt"}}));
  EXPECT_NE(r.err.find("(skipped: 4 under --min-words)"), std::string::npos) << r.err;

  j = ScanJson(dir, {dir / "d"}, &r);  // default 1: the short copies pair up
  EXPECT_EQ(j["stats"]["too_short"], 0);
  EXPECT_EQ(PairsOf(j),
            (Pairs{{dir / "d/long_a.txt", dir / "d/long_b.txt"}, {dir / "d/short_a.txt", dir / "d/short_b.txt"}}));
}

}  // namespace
}  // namespace neardup
