#include "text/jsonl.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace neardup {
namespace {

struct Parsed {
  Status status;
  bool has_doc = false;
  JsonlDoc doc;
};

Parsed ParseLine(std::string_view line, std::string text_key = "text", std::string id_key = "id") {
  JsonlLineParser parser(std::move(text_key), std::move(id_key));
  Parsed parsed;
  parsed.status = parser.Parse(line, &parsed.doc, &parsed.has_doc);
  return parsed;
}

void ExpectCorrupt(std::string_view line, const std::string& message) {
  SCOPED_TRACE(std::string(line));
  const Parsed parsed = ParseLine(line);
  EXPECT_EQ(parsed.status.code(), Status::Code::kCorrupt);
  EXPECT_EQ(parsed.status.message(), message);
  EXPECT_FALSE(parsed.has_doc);
}

TEST(JsonlLineParserTest, ReadsTextAndStringId) {
  const Parsed parsed = ParseLine(R"({"id": "doc-1", "text": "hello world", "meta": {"n": [1, 2.5, true, null]}})");
  ASSERT_TRUE(parsed.status.ok()) << parsed.status.message();
  EXPECT_TRUE(parsed.has_doc);
  EXPECT_EQ(parsed.doc.id, "doc-1");
  EXPECT_EQ(parsed.doc.text, "hello world");
}

TEST(JsonlLineParserTest, ReusedParserReadsSuccessiveLines) {
  JsonlLineParser parser("text", "id");
  const std::vector<std::pair<std::string, std::string>> lines = {
      {R"({"text":"a long first line with several words in it","id":1})", "a long first line with several words in it"},
      {R"({"text":"short"})", "short"},
      {R"(  {"text" : "with spaces"}  )", "with spaces"},
      {R"({"text":""})", ""},
  };
  JsonlDoc doc;
  for (const auto& [line, text] : lines) {
    bool has_doc = false;
    ASSERT_TRUE(parser.Parse(line, &doc, &has_doc).ok()) << line;
    EXPECT_TRUE(has_doc);
    EXPECT_EQ(doc.text, text);
  }
  EXPECT_EQ(doc.id,
            "");  // the last line has no id; the previous one is not kept
}

// ParseView gives what Parse gives, with the text borrowed from the parser
// and good until the next line: escapes, an id before or after the text, a
// repaired line, a blank line and a bad one, in turn on one parser.
TEST(JsonlLineParserTest, ViewOfTheTextIsWhatParseCopies) {
  const std::vector<std::string> lines = {
      R"({"id": "a", "text": "plain words here"})",
      R"({"text": "tab\there \"quoted\" \u00e9t\u00e9", "id": 7})",
      "{\"text\": \"caf\xE9 au lait\", \"id\": \"latin-1 byte\"}",
      "   ",
      R"({"text": 5})",
      R"({"meta": {"k": [1, 2, "x"]}, "text": "after a nested field"})",
  };
  JsonlLineParser copying("text", "id");
  JsonlLineParser viewing("text", "id");
  for (const std::string& line : lines) {
    SCOPED_TRACE(line);
    JsonlDoc doc;
    bool has = false;
    const Status copied = copying.Parse(line, &doc, &has);
    JsonlDocView view;
    bool has_view = false;
    const Status viewed = viewing.ParseView(line, &view, &has_view);
    EXPECT_EQ(viewed.ok(), copied.ok());
    EXPECT_EQ(viewed.message(), copied.message());
    EXPECT_EQ(has_view, has);
    if (!has) continue;
    EXPECT_EQ(view.text, doc.text);
    EXPECT_EQ(view.id, doc.id);
    EXPECT_EQ(view.replaced, doc.replaced);
  }
}

// A line parsed where it lies, with bytes readable after it, gives what a
// parsed copy gives: the same documents, statuses and messages, for good
// lines and bad ones alike; with fewer bytes after it than the padding, the
// parser copies it instead.
TEST(JsonlLineParserTest, LineParsedWhereItLiesIsWhatACopyGives) {
  const std::vector<std::string> lines = {
      R"({"id": "a", "text": "plain words here"})",
      R"({"text": "tab\there \"quoted\" \u00e9t\u00e9", "id": 7})",
      "{\"text\": \"caf\xE9 au lait\", \"id\": \"latin-1 byte\"}",
      "\xEF\xBB\xBF{\"text\": \"after a byte order mark\"}",
      "   ",
      R"({"text": 5})",
      R"({"id": 12)",
      R"({"text": "unclosed)",
      R"({"text": "x"} trailing)",
      R"({"meta": {"k": [1, 2, "x"]}, "text": "after a nested field", "n": 3.5e2})",
      R"({"other": "no text key", "id": 1})",
      R"({"id": 12345678901234567890, "text": "a long number id"})",
      R"(["not", "an", "object"])",
      R"(tru)",
  };
  // What lies after the line: bytes that would close a string, an object or
  // an array, or go on with a number, were they taken for the line's.
  const std::vector<std::string> afters = {"\"}]0123456789e-\\\"}]{[\"", "0123456789e+9\"}",
                                           " \n{\"text\": \"next line\"}\n"};
  for (const size_t room :
       {size_t{0}, size_t{1}, size_t{16}, JsonlLineParser::kParsePadding, JsonlLineParser::kParsePadding + 7}) {
    for (const std::string& after : afters) {
      JsonlLineParser copying("text", "id");
      JsonlLineParser in_place("text", "id");
      for (const std::string& line : lines) {
        SCOPED_TRACE(line + " / " + std::to_string(room) + " / " + after);
        std::string block = line;
        while (block.size() < line.size() + room) block += after;
        block.resize(line.size() + room);
        JsonlDocView copy;
        bool has_copy = false;
        const Status copied = copying.ParseView(line, &copy, &has_copy);
        const std::string copied_text(copy.text);
        JsonlDocView view;
        bool has_view = false;
        const Status viewed = in_place.ParseView(std::string_view(block.data(), line.size()), &view, &has_view, room);
        EXPECT_EQ(viewed.ok(), copied.ok());
        EXPECT_EQ(viewed.message(), copied.message());
        EXPECT_EQ(has_view, has_copy);
        EXPECT_EQ(std::string(view.text), copied_text);
        EXPECT_EQ(view.id, copy.id);
        EXPECT_EQ(view.replaced, copy.replaced);
      }
    }
  }
}

TEST(JsonlLineParserTest, UnescapesText) {
  const Parsed parsed = ParseLine(R"({"text":"line\nnext\ttab \"q\" back\\slash caf\u00e9 smile \ud83d\ude00 \/"})");
  ASSERT_TRUE(parsed.status.ok()) << parsed.status.message();
  EXPECT_EQ(parsed.doc.text, "line\nnext\ttab \"q\" back\\slash caf\xC3\xA9 smile \xF0\x9F\x98\x80 /");
}

TEST(JsonlLineParserTest, KeepsRawUtf8Text) {
  const Parsed parsed = ParseLine("{\"text\":\"caf\xC3\xA9 \xE2\x82\xAC\"}");
  ASSERT_TRUE(parsed.status.ok());
  EXPECT_EQ(parsed.doc.text, "caf\xC3\xA9 \xE2\x82\xAC");
}

TEST(JsonlLineParserTest, NumericIdIsWrittenAsInInput) {
  EXPECT_EQ(ParseLine(R"({"id":42,"text":"x"})").doc.id, "42");
  EXPECT_EQ(ParseLine(R"({"id": 42 ,"text":"x"})").doc.id, "42");
  EXPECT_EQ(ParseLine(R"({"id":-7,"text":"x"})").doc.id, "-7");
  EXPECT_EQ(ParseLine(R"({"id":1.50,"text":"x"})").doc.id, "1.50");
  EXPECT_EQ(ParseLine(R"({"id":1e3,"text":"x"})").doc.id, "1e3");
  EXPECT_EQ(ParseLine(R"({"id":18446744073709551615,"text":"x"})").doc.id, "18446744073709551615");
  // Beyond 64 bits: still valid JSON, kept verbatim.
  EXPECT_EQ(ParseLine(R"({"id":123456789012345678901234567890,"text":"x"})").doc.id, "123456789012345678901234567890");
}

TEST(JsonlLineParserTest, BigNumbersElsewhereAreAccepted) {
  const Parsed parsed = ParseLine(R"({"hash":123456789012345678901234567890,"x":1e999,"text":"t"})");
  ASSERT_TRUE(parsed.status.ok()) << parsed.status.message();
  EXPECT_EQ(parsed.doc.text, "t");
}

TEST(JsonlLineParserTest, MissingOrNullIdIsEmpty) {
  const Parsed no_id = ParseLine(R"({"text":"x"})");
  ASSERT_TRUE(no_id.status.ok());
  EXPECT_EQ(no_id.doc.id, "");
  const Parsed null_id = ParseLine(R"({"id":null,"text":"x"})");
  ASSERT_TRUE(null_id.status.ok());
  EXPECT_EQ(null_id.doc.id, "");
}

TEST(JsonlLineParserTest, IdOfOtherTypeIsCorrupt) {
  ExpectCorrupt(R"({"id":true,"text":"x"})", "\"id\" is not a string or a number");
  ExpectCorrupt(R"({"id":[1],"text":"x"})", "\"id\" is not a string or a number");
}

TEST(JsonlLineParserTest, CustomKeys) {
  const Parsed parsed = ParseLine(R"({"text":"not this","body":"this","uid":"u7","id":"no"})", "body", "uid");
  ASSERT_TRUE(parsed.status.ok());
  EXPECT_EQ(parsed.doc.text, "this");
  EXPECT_EQ(parsed.doc.id, "u7");
}

TEST(JsonlLineParserTest, EscapedKeyMatchesItsUnescapedName) {
  const Parsed parsed = ParseLine(R"({"t\u0065xt":"found"})");
  ASSERT_TRUE(parsed.status.ok());
  EXPECT_EQ(parsed.doc.text, "found");
}

TEST(JsonlLineParserTest, SameKeyForTextAndId) {
  const Parsed parsed = ParseLine(R"({"k":"both"})", "k", "k");
  ASSERT_TRUE(parsed.status.ok());
  EXPECT_EQ(parsed.doc.text, "both");
  EXPECT_EQ(parsed.doc.id, "both");
}

TEST(JsonlLineParserTest, FirstOccurrenceOfAKeyCounts) {
  const Parsed parsed = ParseLine(R"({"text":"first","text":"second"})");
  ASSERT_TRUE(parsed.status.ok());
  EXPECT_EQ(parsed.doc.text, "first");
}

TEST(JsonlLineParserTest, MissingTextKeyIsCorrupt) {
  ExpectCorrupt(R"({"id":1,"body":"x"})", "missing key \"text\" (keys: \"id\", \"body\")");
  const Parsed parsed = ParseLine(R"({"text":"x"})", "content", "id");
  EXPECT_EQ(parsed.status.code(), Status::Code::kCorrupt);
  EXPECT_EQ(parsed.status.message(), "missing key \"content\" (keys: \"text\")");
  ExpectCorrupt("{}", "missing key \"text\" (the object has no key)");
  // A few keys, each cut short, control bytes shown as '?'.
  ExpectCorrupt(R"({"a\u0001b":1,"a_key_longer_than_twenty_four_bytes":2,"c":3,"d":4,"e":5,"f":6,"g":7})",
                "missing key \"text\" (keys: \"a?b\", \"a_key_longer_than_twenty...\", \"c\", \"d\", \"e\", ... 7 keys "
                "in all)");
}

TEST(JsonlLineParserTest, NonStringTextIsCorrupt) {
  ExpectCorrupt(R"({"text":42})", "\"text\" is not a string");
  ExpectCorrupt(R"({"text":null})", "\"text\" is not a string");
  ExpectCorrupt(R"({"text":["a"]})", "\"text\" is not a string");
  ExpectCorrupt(R"({"text":{"a":"b"}})", "\"text\" is not a string");
}

TEST(JsonlLineParserTest, TopLevelNotAnObjectIsCorrupt) {
  ExpectCorrupt(R"(["text","x"])", "not a JSON object");
  ExpectCorrupt(R"("text")", "not a JSON object");
  ExpectCorrupt("42", "not a JSON object");
}

TEST(JsonlLineParserTest, MalformedJsonIsCorrupt) {
  const std::vector<std::string> lines = {
      R"({"text":"unclosed)",
      R"({"text":"a")",
      R"({"text":"a",})",
      R"({"text" "a"})",
      R"({"text":"a"} x)",
      R"({"text":"a"}})",
      R"({"text":"a"}{"text":"b"})",
      // Malformed values in fields that are not read are found too.
      R"({"x":tru,"text":"a"})",
      R"({"x":nul,"text":"a"})",
      R"({"x":[1 2],"text":"a"})",
      R"({"x":{"a" 1},"text":"a"})",
      R"({"x":01,"text":"a"})",
      R"({"x":1.,"text":"a"})",
      R"({"x":"\q","text":"a"})",
      R"({"text":"a","x":[1,]})",
      R"({"id":-,"text":"a"})",
      R"({"text":"bad escape \x"})",
      R"({"text":"lone surrogate \ud800"})",
      "{\"text\":\"raw\x01control\"}",
  };
  for (const std::string& line : lines) {
    SCOPED_TRACE(line);
    const Parsed parsed = ParseLine(line);
    EXPECT_EQ(parsed.status.code(), Status::Code::kCorrupt);
    EXPECT_FALSE(parsed.status.message().empty());
    EXPECT_FALSE(parsed.has_doc);
  }
}

TEST(JsonlLineParserTest, MalformedJsonCarriesSimdjsonMessage) {
  const Parsed parsed = ParseLine(R"({"text" "a"})");
  EXPECT_EQ(parsed.status.code(), Status::Code::kCorrupt);
  EXPECT_NE(parsed.status.message().find("improper structure"), std::string::npos) << parsed.status.message();
}

std::string Nested(size_t depth) {
  return R"({"text":"a","x":)" + std::string(depth, '[') + std::string(depth, ']') + "}";
}

TEST(JsonlLineParserTest, NestingUpTo1000IsAccepted) { EXPECT_TRUE(ParseLine(Nested(1000)).status.ok()); }

TEST(JsonlLineParserTest, TooDeepNestingIsCorrupt) {
  for (const size_t depth : {1001, 5000}) {
    const Parsed parsed = ParseLine(Nested(depth));
    EXPECT_EQ(parsed.status.code(), Status::Code::kCorrupt);
    EXPECT_NE(parsed.status.message().find("too deep"), std::string::npos) << parsed.status.message();
  }
}

TEST(JsonlLineParserTest, InvalidUtf8IsReplacedAndCounted) {
  Parsed parsed = ParseLine("{\"text\":\"bad \xFF byte\"}");
  ASSERT_TRUE(parsed.status.ok()) << parsed.status.message();
  EXPECT_EQ(parsed.doc.text, "bad \xEF\xBF\xBD byte");
  EXPECT_EQ(parsed.doc.replaced, 1u);
  parsed = ParseLine("{\"other\":\"\xC3\",\"text\":\"ok\"}");
  ASSERT_TRUE(parsed.status.ok());
  EXPECT_EQ(parsed.doc.text, "ok");
  EXPECT_EQ(parsed.doc.replaced, 1u);
  parsed = ParseLine("{\"text\":\"fine\"}");
  EXPECT_EQ(parsed.doc.replaced, 0u);
}

TEST(JsonlLineParserTest, InvalidUtf8InIdTextAndKeysIsReplaced) {
  // A truncated sequence before a quote never swallows the quote: the line
  // keeps its structure, and each ill-formed sequence is one U+FFFD.
  const std::string kFffd = "\xEF\xBF\xBD";
  Parsed parsed = ParseLine("{\"text\":\"abc\xE2\x82\",\"id\":\"x\xC3\"}");
  ASSERT_TRUE(parsed.status.ok()) << parsed.status.message();
  EXPECT_EQ(parsed.doc.text, "abc" + kFffd);
  EXPECT_EQ(parsed.doc.id, "x" + kFffd);
  EXPECT_EQ(parsed.doc.replaced, 2u);

  // Overlongs, surrogates and code points above U+10FFFF are invalid too;
  // the valid sequence after a broken one is kept.
  parsed = ParseLine("{\"text\":\"\xC0\xAF \xED\xA0\x80 \xF4\x90\x80\x80 \xE2\x82\xE2\x82\xAC\"}");
  ASSERT_TRUE(parsed.status.ok()) << parsed.status.message();
  EXPECT_EQ(parsed.doc.text, kFffd + kFffd + " " + kFffd + kFffd + kFffd + " " + kFffd + kFffd + kFffd + kFffd + " " +
                                 kFffd + "\xE2\x82\xAC");
  EXPECT_EQ(parsed.doc.replaced, 10u);

  // In a key, the replaced key is a different key.
  parsed = ParseLine("{\"te\xFFxt\":\"no\",\"text\":\"yes\"}");
  ASSERT_TRUE(parsed.status.ok()) << parsed.status.message();
  EXPECT_EQ(parsed.doc.text, "yes");
  EXPECT_EQ(parsed.doc.replaced, 1u);

  // A line that is malformed besides is still malformed.
  parsed = ParseLine("{\"text\":\"\xFF\"");
  EXPECT_EQ(parsed.status.code(), Status::Code::kCorrupt);
  EXPECT_FALSE(parsed.has_doc);
}

TEST(JsonlLineParserTest, ReplacedCountIsPerLine) {
  JsonlLineParser parser("text", "id");
  JsonlDoc doc;
  bool has_doc = false;
  ASSERT_TRUE(parser.Parse("{\"text\":\"\xFF\xFF\"}", &doc, &has_doc).ok());
  EXPECT_EQ(doc.replaced, 2u);
  ASSERT_TRUE(parser.Parse("{\"text\":\"fine\"}", &doc, &has_doc).ok());
  EXPECT_EQ(doc.replaced, 0u);
  EXPECT_EQ(doc.text, "fine");
}

TEST(JsonlLineParserTest, BlankLineHasNoDoc) {
  for (std::string_view line : {"", " ", "\t  \r"}) {
    const Parsed parsed = ParseLine(line);
    EXPECT_TRUE(parsed.status.ok());
    EXPECT_FALSE(parsed.has_doc);
  }
}

TEST(JsonlLineParserTest, IgnoresUtf8Bom) {
  const Parsed parsed = ParseLine("\xEF\xBB\xBF{\"text\":\"a\"}");
  ASSERT_TRUE(parsed.status.ok()) << parsed.status.message();
  EXPECT_EQ(parsed.doc.text, "a");
  EXPECT_FALSE(ParseLine("\xEF\xBB\xBF").has_doc);
  EXPECT_TRUE(ParseLine("\xEF\xBB\xBF").status.ok());
}

TEST(JsonlLineParserTest, RecoversAfterABadLine) {
  JsonlLineParser parser("text", "id");
  JsonlDoc doc;
  bool has_doc = true;
  EXPECT_FALSE(parser.Parse(R"({"text":)", &doc, &has_doc).ok());
  EXPECT_FALSE(has_doc);
  ASSERT_TRUE(parser.Parse(R"({"text":"fine","id":"b"})", &doc, &has_doc).ok());
  EXPECT_TRUE(has_doc);
  EXPECT_EQ(doc.text, "fine");
  EXPECT_EQ(doc.id, "b");
}

// ---------------------------------------------------------------------------

struct Line {
  std::string text;
  uint64_t number;
  bool operator==(const Line&) const = default;
};

std::vector<Line> Drain(LineSplitter* splitter) {
  std::vector<Line> lines;
  std::string_view line;
  uint64_t number = 0;
  while (splitter->Next(&line, &number)) lines.push_back({std::string(line), number});
  return lines;
}

std::vector<Line> SplitInChunks(std::string_view input, const std::vector<size_t>& cuts) {
  LineSplitter splitter;
  std::vector<Line> lines;
  size_t start = 0;
  for (size_t cut : cuts) {
    splitter.Feed(input.substr(start, cut - start));
    for (Line& l : Drain(&splitter)) lines.push_back(std::move(l));
    start = cut;
  }
  splitter.Feed(input.substr(start));
  for (Line& l : Drain(&splitter)) lines.push_back(std::move(l));
  splitter.Finish();
  for (Line& l : Drain(&splitter)) lines.push_back(std::move(l));
  return lines;
}

TEST(LineSplitterTest, SplitsLfAndCrlfAndNumbersLines) {
  const std::vector<Line> expected = {{"first", 1}, {"second", 2}, {"", 3}, {"fourth\rcr-inside", 4},
                                      {"", 5},      {"last", 6}};
  EXPECT_EQ(SplitInChunks("first\nsecond\r\n\nfourth\rcr-inside\r\n\r\nlast", {}), expected);
}

TEST(LineSplitterTest, LastLineWithoutNewlineComesAfterFinish) {
  LineSplitter splitter;
  splitter.Feed("a\nb");
  EXPECT_EQ(Drain(&splitter), (std::vector<Line>{{"a", 1}}));
  EXPECT_TRUE(Drain(&splitter).empty());
  splitter.Finish();
  EXPECT_EQ(Drain(&splitter), (std::vector<Line>{{"b", 2}}));
  EXPECT_TRUE(Drain(&splitter).empty());
}

TEST(LineSplitterTest, TrailingNewlineGivesNoExtraLine) {
  EXPECT_EQ(SplitInChunks("a\nb\n", {}), (std::vector<Line>{{"a", 1}, {"b", 2}}));
  EXPECT_EQ(SplitInChunks("a\r\n", {}), (std::vector<Line>{{"a", 1}}));
  EXPECT_TRUE(SplitInChunks("", {}).empty());
}

TEST(LineSplitterTest, CrAtEndOfLastLineIsDropped) {
  EXPECT_EQ(SplitInChunks("a\nb\r", {}), (std::vector<Line>{{"a", 1}, {"b", 2}}));
}

TEST(LineSplitterTest, AnySingleCutGivesTheSameLines) {
  const std::string input =
      "{\"id\":1,\"text\":\"one\"}\r\n\n{\"id\":2,\"text\":\"two\\nlines\"}"
      "\n\r\n{\"text\":\"end\"}";
  const std::vector<Line> expected = SplitInChunks(input, {});
  ASSERT_EQ(expected.size(), 5u);
  EXPECT_EQ(expected[0].text, "{\"id\":1,\"text\":\"one\"}");
  EXPECT_EQ(expected[1].text, "");
  EXPECT_EQ(expected[3].text, "");
  EXPECT_EQ(expected[4], (Line{"{\"text\":\"end\"}", 5}));
  for (size_t cut = 0; cut <= input.size(); ++cut) {
    EXPECT_EQ(SplitInChunks(input, {cut}), expected) << "cut at " << cut;
  }
  for (size_t a = 0; a <= input.size(); ++a) {
    for (size_t b = a; b <= input.size(); ++b) {
      ASSERT_EQ(SplitInChunks(input, {a, b}), expected) << "cuts at " << a << ", " << b;
    }
  }
}

TEST(LineSplitterTest, ByteAtATimeGivesTheSameLines) {
  const std::string input = "alpha\r\nbeta\n\ngamma\r\n";
  std::vector<size_t> cuts;
  for (size_t i = 1; i < input.size(); ++i) cuts.push_back(i);
  EXPECT_EQ(SplitInChunks(input, cuts), (std::vector<Line>{{"alpha", 1}, {"beta", 2}, {"", 3}, {"gamma", 4}}));
}

TEST(LineSplitterTest, ManyLinesAcrossCompaction) {
  // Enough bytes to pass the compaction threshold several times, fed in odd
  // chunk sizes while lines are consumed.
  std::string input;
  for (int i = 0; i < 20000; ++i) input += "line number " + std::to_string(i) + "\n";
  LineSplitter splitter;
  uint64_t expected_number = 0;
  std::string_view line;
  uint64_t number = 0;
  for (size_t start = 0; start < input.size(); start += 777) {
    splitter.Feed(std::string_view(input).substr(start, 777));
    while (splitter.Next(&line, &number)) {
      ASSERT_EQ(number, expected_number + 1);
      ASSERT_EQ(line, "line number " + std::to_string(expected_number));
      ++expected_number;
    }
  }
  splitter.Finish();
  EXPECT_FALSE(splitter.Next(&line, &number));
  EXPECT_EQ(expected_number, 20000u);
}

TEST(LineSplitterTest, LongLineInSmallChunks) {
  // Linear, not quadratic: 8 MiB in 16-byte chunks takes well under a second;
  // rescanning the pending line at each Next() would read 2 TB.
  const auto start_time = std::chrono::steady_clock::now();
  const std::string long_line(8 << 20, 'x');
  LineSplitter splitter;
  std::string_view line;
  uint64_t number = 0;
  for (size_t start = 0; start < long_line.size(); start += 16) {
    splitter.Feed(std::string_view(long_line).substr(start, 16));
    ASSERT_FALSE(splitter.Next(&line, &number));
    if ((start & 0xFFFFF) == 0) {
      ASSERT_LT(std::chrono::steady_clock::now() - start_time, std::chrono::seconds(20))
          << "quadratic scanning? at byte " << start;
    }
  }
  splitter.Feed("\nnext");
  ASSERT_TRUE(splitter.Next(&line, &number));
  EXPECT_EQ(line.size(), long_line.size());
  EXPECT_EQ(number, 1u);
  splitter.Finish();
  ASSERT_TRUE(splitter.Next(&line, &number));
  EXPECT_EQ(line, "next");
  EXPECT_EQ(number, 2u);
}

// Lines as SplitInChunks gives them, with a line too long marked "<too long>".
std::vector<Line> SplitWithLimit(std::string_view input, uint64_t max_line, size_t step) {
  LineSplitter splitter(max_line);
  std::vector<Line> lines;
  auto drain = [&] {
    std::string_view line;
    uint64_t number = 0;
    while (splitter.Next(&line, &number)) {
      lines.push_back({splitter.too_long() ? std::string("<too long>") : std::string(line), number});
    }
  };
  for (size_t start = 0; start < input.size(); start += step) {
    splitter.Feed(input.substr(start, step));
    drain();
  }
  splitter.Finish();
  drain();
  return lines;
}

TEST(LineSplitterTest, LineOverTheLimitIsReportedEmptyWithItsNumber) {
  const std::string input = "12345\n123456\r\n1234567\nok\n12345678";
  const std::vector<Line> expected = {{"12345", 1}, {"123456", 2}, {"<too long>", 3}, {"ok", 4}, {"<too long>", 5}};
  // Whatever the chunking, the same lines are too long.
  for (size_t step = 1; step <= input.size(); ++step) {
    EXPECT_EQ(SplitWithLimit(input, 6, step), expected) << "step " << step;
  }
  // Without a limit, every line is kept.
  EXPECT_EQ(SplitWithLimit(input, 0, 4)[2], (Line{"1234567", 3}));
}

TEST(LineSplitterTest, LineOverTheLimitIsNeverBuffered) {
  // 64 MiB of one line in 64 KiB chunks, with a 1 MiB limit: the splitter
  // never holds more than the limit (checked through the views it returns
  // and the line after it, which must still come out whole).
  LineSplitter splitter(1 << 20);
  const std::string chunk(64 << 10, 'x');
  std::string_view line;
  uint64_t number = 0;
  for (int i = 0; i < 1024; ++i) {
    splitter.Feed(chunk);
    ASSERT_FALSE(splitter.Next(&line, &number));
  }
  splitter.Feed("\n{\"text\":\"after\"}\n");
  ASSERT_TRUE(splitter.Next(&line, &number));
  EXPECT_TRUE(splitter.too_long());
  EXPECT_TRUE(line.empty());
  EXPECT_EQ(number, 1u);
  ASSERT_TRUE(splitter.Next(&line, &number));
  EXPECT_FALSE(splitter.too_long());
  EXPECT_EQ(line, "{\"text\":\"after\"}");
  EXPECT_EQ(number, 2u);
}

}  // namespace
}  // namespace neardup
