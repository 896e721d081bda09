// Fuzz harness: bytes -> LineSplitter -> JsonlLineParser.
//
// Checks that:
//   - LineSplitter, fed in random chunks, gives the lines of a plain split at
//     '\n' (one CR before it dropped, no extra line after a final '\n'),
//     numbered 1, 2, ...;
//   - JsonlLineParser (three key choices, one parser reused across lines)
//     agrees with nlohmann::json as a reference: a line it accepts is a JSON
//     object for nlohmann too, with the same text; a line nlohmann reads as an
//     object with exactly one string text key and a usable id is accepted,
//     with the same text and (string) id; a line is blank exactly when it is
//     JSON white space; accepted text is valid UTF-8.
// Cases where the two parsers may differ by design (duplicate keys: we take
// the first, nlohmann the last; nesting deeper than our limit; a second BOM,
// which nlohmann skips; a NUL byte, where nlohmann stops reading; invalid
// UTF-8, which jsonl.h rules on) are left out of the comparison.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harnesses.h"
#include "text/jsonl.h"

namespace neardup::fuzz {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

struct Line {
  std::string text;
  uint64_t number = 0;
};

// The lines of `bytes`, split the simple way.
std::vector<std::string> ReferenceLines(std::string_view bytes) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < bytes.size()) {
    size_t end = bytes.find('\n', start);
    const size_t next = end == std::string_view::npos ? bytes.size() : end + 1;
    if (end == std::string_view::npos) end = bytes.size();
    std::string_view line = bytes.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.emplace_back(line);
    start = next;
  }
  return lines;
}

bool CheckSplitter(std::string_view bytes, uint64_t seed, std::vector<std::string>* lines) {
  LineSplitter splitter;
  std::vector<Line> got;
  auto take = [&] {
    std::string_view line;
    uint64_t number = 0;
    while (splitter.Next(&line, &number)) got.push_back({std::string(line), number});
  };
  SplitMix rng(seed);
  size_t pos = 0;
  while (pos < bytes.size()) {
    const size_t len = rng.Next() % 4 == 0 ? rng.Below(200) : rng.Below(8);
    const size_t end = std::min(bytes.size(), pos + len);
    splitter.Feed(bytes.substr(pos, end - pos));
    take();
    pos = end;
  }
  splitter.Finish();
  take();
  *lines = ReferenceLines(bytes);
  NEARDUP_FUZZ_CHECK(got.size() == lines->size());
  for (size_t i = 0; i < got.size(); ++i) {
    NEARDUP_FUZZ_CHECK(got[i].text == (*lines)[i]);
    NEARDUP_FUZZ_CHECK(got[i].number == i + 1);
  }
  return true;
}

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Whether a number outside strings overflows a double. JSON leaves the range
// of numbers to implementations: nlohmann rejects such a line, while the
// parser accepts it as long as the overflowing number is not the text (an id
// number is kept as written, another member is skipped).
bool HasOverflowingNumber(std::string_view line) {
  bool in_string = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t end = i;
      while (end < line.size() && std::string_view("+-.eE0123456789").find(line[end]) != std::string_view::npos) ++end;
      const std::string number(line.substr(i, end - i));
      if (std::isinf(std::strtod(number.c_str(), nullptr))) return true;
      i = end - 1;
    }
  }
  return false;
}

// What nlohmann::json makes of a line, for the keys of interest.
struct Reference {
  bool parsed = false;  // valid JSON
  bool object = false;  // ... and an object
  int text_count = 0;   // occurrences of the text key at the top level
  int id_count = 0;     // ... of the id key
  int max_depth = 0;
  nlohmann::json value;
};

Reference ParseReference(std::string_view line, const std::string& text_key, const std::string& id_key) {
  Reference ref;
  auto callback = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    ref.max_depth = std::max(ref.max_depth, depth);
    if (event == nlohmann::json::parse_event_t::key && depth == 1 && parsed.is_string()) {
      const auto& key = parsed.get_ref<const std::string&>();
      if (key == text_key) ++ref.text_count;
      if (key == id_key) ++ref.id_count;
    }
    return true;
  };
  ref.value = nlohmann::json::parse(line.begin(), line.end(), callback, /*allow_exceptions=*/false);
  ref.parsed = !ref.value.is_discarded();
  ref.object = ref.parsed && ref.value.is_object();
  return ref;
}

bool CheckParser(JsonlLineParser& parser, const std::string& text_key, const std::string& id_key,
                 std::string_view line) {
  JsonlDoc doc;
  bool has_doc = true;
  const Status status = parser.Parse(line, &doc, &has_doc);
  NEARDUP_FUZZ_CHECK(status.ok() || status.code() == Status::Code::kCorrupt);
  NEARDUP_FUZZ_CHECK(!(has_doc && !status.ok()));
  std::string_view body = line;
  if (body.starts_with(kBom)) body.remove_prefix(kBom.size());
  const bool blank = std::all_of(body.begin(), body.end(), IsJsonSpace);
  NEARDUP_FUZZ_CHECK(blank == (status.ok() && !has_doc));
  if (blank) return true;
  if (has_doc) NEARDUP_FUZZ_CHECK(IsValidUtf8(doc.text) && IsValidUtf8(doc.id));

  // Invalid UTF-8 is for the parser's own contract (jsonl.h), not nlohmann's;
  // nlohmann takes a NUL byte for the end of the input.
  if (!IsValidUtf8(body) || body.find('\0') != std::string_view::npos) return true;
  const Reference ref = ParseReference(body, text_key, id_key);
  const bool comparable = !body.starts_with(kBom) && ref.max_depth <= 900 && ref.text_count <= 1 && ref.id_count <= 1 &&
                          !HasOverflowingNumber(body);
  if (!comparable) return true;
  if (has_doc) {
    // Accepted here: nlohmann reads the same object and text.
    NEARDUP_FUZZ_CHECK(ref.object);
    NEARDUP_FUZZ_CHECK(ref.text_count == 1);
    const nlohmann::json& text = ref.value[text_key];
    NEARDUP_FUZZ_CHECK(text.is_string() && text.get_ref<const std::string&>() == doc.text);
  }
  if (!ref.object || ref.text_count != 1) {
    NEARDUP_FUZZ_CHECK(!status.ok());
    return true;
  }
  const nlohmann::json& text = ref.value[text_key];
  const nlohmann::json* id = ref.id_count == 1 ? &ref.value[id_key] : nullptr;
  const bool id_usable = id == nullptr || id->is_null() || id->is_string() || id->is_number();
  if (!text.is_string() || !id_usable) {
    NEARDUP_FUZZ_CHECK(!status.ok());
    return true;
  }
  NEARDUP_FUZZ_CHECK(status.ok() && has_doc);
  NEARDUP_FUZZ_CHECK(doc.text == text.get_ref<const std::string&>());
  if (id == nullptr || id->is_null()) NEARDUP_FUZZ_CHECK(doc.id.empty());
  if (id != nullptr && id->is_string()) NEARDUP_FUZZ_CHECK(doc.id == id->get_ref<const std::string&>());
  if (id != nullptr && id->is_number()) NEARDUP_FUZZ_CHECK(!doc.id.empty());
  return true;
}

bool Run(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const uint64_t seed = size * 31 + (size > 0 ? data[0] : 0);
  std::vector<std::string> lines;
  if (!CheckSplitter(bytes, seed, &lines)) return false;
  const std::pair<std::string, std::string> keys[] = {{"text", "id"}, {"id", "text"}, {"t", "t"}};
  for (const auto& [text_key, id_key] : keys) {
    JsonlLineParser parser(text_key, id_key);
    for (const std::string& line : lines) {
      if (!CheckParser(parser, text_key, id_key, line)) return false;
    }
  }
  return true;
}

}  // namespace

int JsonlFuzz(const uint8_t* data, size_t size) {
  Run(data, size);
  return 0;
}

}  // namespace neardup::fuzz

#ifndef NEARDUP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return neardup::fuzz::JsonlFuzz(data, size); }
#endif
