// JSONL lines with simdjson's On-Demand API, and a line splitter.
//
// Why On-Demand with a full walk rather than the DOM: the DOM parser rejects
// a whole line when any number in it is out of 64-bit range (a big integer in
// a field we never read), and cannot give a number's text as written, which
// we want for numeric ids. On-Demand gives the raw token; to keep "malformed
// JSON is Corrupt" true for the fields we do not read (On-Demand skips them
// without looking inside), ValidateValue() visits every value of the line.
// Both are about 3 GB/s on typical lines: stage 1 is the runtime-dispatched
// SIMD kernel in either API.

#include "text/jsonl.h"

#include <simdjson.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "base/utf8.h"

namespace neardup {
namespace {

namespace od = simdjson::ondemand;

// Values nested deeper than this are rejected (DEPTH_ERROR). It bounds the
// recursion of ValidateValue() and stays below the parser's max_depth (1024
// by default; unoptimized builds assert that On-Demand never goes deeper).
constexpr int kMaxDepth = 1000;

// LineSplitter compacts its buffer once this many consumed bytes lead it (and
// they are at least half of it), so each byte is moved O(1) times.
constexpr size_t kCompactMin = 64 * 1024;

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view TrimTrailingSpace(std::string_view s) {
  while (!s.empty() && IsJsonSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// True when `token` is a JSON number:
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? Checked by grammar rather than
// by simdjson's number parser, which refuses integers beyond 64 bits and
// exponents beyond double range: those are valid JSON, and an id like
// 123456789012345678901234 is kept as written.
bool IsJsonNumber(std::string_view token) {
  size_t i = 0;
  const size_t n = token.size();
  if (i < n && token[i] == '-') ++i;
  if (i == n) return false;
  if (token[i] == '0') {
    ++i;
  } else if (IsDigit(token[i])) {
    while (i < n && IsDigit(token[i])) ++i;
  } else {
    return false;
  }
  if (i < n && token[i] == '.') {
    ++i;
    if (i == n || !IsDigit(token[i])) return false;
    while (i < n && IsDigit(token[i])) ++i;
  }
  if (i < n && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    if (i < n && (token[i] == '+' || token[i] == '-')) ++i;
    if (i == n || !IsDigit(token[i])) return false;
    while (i < n && IsDigit(token[i])) ++i;
  }
  return i == n;
}

Status FromSimdjson(simdjson::error_code error) {
  // Unreachable in practice (Parse() repairs invalid UTF-8 first); simdjson
  // validates the whole line up front, and its message adds nothing to this.
  if (error == simdjson::UTF8_ERROR) return Status::Corrupt("invalid UTF-8");
  return Status::Corrupt(simdjson::error_message(error));
}

// Visits `value` and everything inside it, so that a malformed part anywhere
// in the line is reported (On-Demand alone skips unread values unchecked).
simdjson::error_code ValidateValue(od::value& value, int depth) {
  if (depth > kMaxDepth) return simdjson::DEPTH_ERROR;
  od::json_type type;
  if (auto error = value.type().get(type)) return error;
  switch (type) {
    case od::json_type::object: {
      od::object object;
      if (auto error = value.get_object().get(object)) return error;
      for (auto field_result : object) {
        od::field field;
        if (auto error = std::move(field_result).get(field)) return error;
        std::string_view key;  // unescaping the key checks its escapes
        if (auto error = field.unescaped_key().get(key)) return error;
        if (auto error = ValidateValue(field.value(), depth + 1)) return error;
      }
      return simdjson::SUCCESS;
    }
    case od::json_type::array: {
      od::array array;
      if (auto error = value.get_array().get(array)) return error;
      for (auto element_result : array) {
        od::value element;
        if (auto error = std::move(element_result).get(element)) return error;
        if (auto error = ValidateValue(element, depth + 1)) return error;
      }
      return simdjson::SUCCESS;
    }
    case od::json_type::string: {
      std::string_view unused;
      return value.get_string().get(unused);
    }
    case od::json_type::number:
      return IsJsonNumber(TrimTrailingSpace(value.raw_json_token())) ? simdjson::SUCCESS : simdjson::NUMBER_ERROR;
    case od::json_type::boolean: {
      const std::string_view token = TrimTrailingSpace(value.raw_json_token());
      if (token == "true") return simdjson::SUCCESS;
      return token == "false" ? simdjson::SUCCESS : simdjson::T_ATOM_ERROR;
    }
    case od::json_type::null:
      return TrimTrailingSpace(value.raw_json_token()) == "null" ? simdjson::SUCCESS : simdjson::N_ATOM_ERROR;
  }
  return simdjson::TAPE_ERROR;
}

}  // namespace

struct JsonlLineParser::Impl {
  std::string text_key;
  std::string id_key;
  od::parser parser;
  // The current line plus SIMDJSON_PADDING bytes; grows, never shrinks.
  std::unique_ptr<char[]> buffer;
  size_t capacity = 0;
  // A line with invalid UTF-8, repaired; reused across lines.
  std::string repaired;

  // Parses `line` where it lies when `readable_after` covers simdjson's
  // padding, else from a padded copy in `buffer`.
  Status Parse(std::string_view line, JsonlDocView* doc, size_t readable_after);
  // What ReadFields found of the text and id keys.
  struct KeysFound {
    bool text = false;
    bool id = false;
    bool text_not_string = false;
    bool id_bad_type = false;
  };
  // Reads the fields of `object` into *doc: the first text and id keys'
  // values; every other value is only validated. An error for JSON that is
  // not valid.
  Status ReadFields(od::object& object, JsonlDocView* doc, KeysFound* found);
  // `line` itself when `readable_after` covers simdjson's padding, else its
  // copy in `buffer` followed by the padding; *allocated: the bytes readable
  // from its start.
  std::string_view Padded(std::string_view line, size_t readable_after, size_t* allocated);
  // " (keys: \"a\", \"b\", ...)": the first keys of the object at `json`
  // (`size` bytes, `allocated` readable, parsed once already), for a missing
  // text key.
  std::string KeysOf(const char* json, size_t size, size_t allocated);
};

namespace {

// A key as shown in a message: at most 24 bytes (cut at a UTF-8 character
// boundary, "..." after), control bytes as '?', quoted.
std::string ShownKey(std::string_view key) {
  constexpr size_t kMaxShown = 24;
  std::string shown = "\"";
  size_t end = key.size();
  if (end > kMaxShown) {
    end = kMaxShown;
    while (end > 0 && (static_cast<unsigned char>(key[end]) & 0xC0) == 0x80) --end;
  }
  for (const char c : key.substr(0, end)) shown.push_back(static_cast<unsigned char>(c) < 0x20 ? '?' : c);
  if (end < key.size()) shown += "...";
  return shown + "\"";
}

}  // namespace

std::string JsonlLineParser::Impl::KeysOf(const char* json, size_t size, size_t allocated) {
  constexpr size_t kMaxKeys = 5;
  od::document document;
  od::object object;
  if (parser.iterate(json, size, allocated).get(document) || document.get_object().get(object)) return "";
  std::string keys;
  size_t count = 0;
  for (auto field_result : object) {
    od::field field;
    std::string_view key;
    if (std::move(field_result).get(field) || field.unescaped_key().get(key)) break;
    if (count < kMaxKeys) keys += (count > 0 ? ", " : "") + ShownKey(key);
    ++count;
  }
  if (count == 0) return " (the object has no key)";
  if (count > kMaxKeys) keys += ", ... " + std::to_string(count) + " keys in all";
  return " (keys: " + keys + ")";
}

JsonlLineParser::JsonlLineParser(std::string text_key, std::string id_key) : impl_(std::make_unique<Impl>()) {
  impl_->text_key = std::move(text_key);
  impl_->id_key = std::move(id_key);
}

JsonlLineParser::~JsonlLineParser() = default;

const size_t JsonlLineParser::kParsePadding = simdjson::SIMDJSON_PADDING;

Status JsonlLineParser::Parse(std::string_view line, JsonlDoc* doc, bool* has_doc) {
  JsonlDocView view;
  view.id = std::move(doc->id);  // its capacity, for a JsonlDoc the caller reuses
  Status status = ParseView(line, &view, has_doc);
  doc->id = std::move(view.id);
  doc->replaced = view.replaced;
  doc->text.assign(view.text);
  return status;
}

Status JsonlLineParser::ParseView(std::string_view line, JsonlDocView* doc, bool* has_doc, size_t readable_after) {
  assert(doc != nullptr && has_doc != nullptr);
  *has_doc = false;
  // A UTF-8 BOM (first line of a file from some Windows tools) is ignored.
  if (line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
  if (std::all_of(line.begin(), line.end(), IsJsonSpace)) return Status::Ok();
  doc->replaced = 0;
  Status status = impl_->Parse(line, doc, readable_after);
  if (!status.ok() && !simdjson::validate_utf8(line.data(), line.size())) {
    // Invalid bytes (a Latin-1 mail pasted into UTF-8 data) become U+FFFD,
    // counted, rather than costing the whole line. simdjson checks UTF-8 as
    // it indexes the line and rejects invalid bytes anywhere in it, so a
    // line that failed is checked alone, and when its UTF-8 is at fault it is
    // repaired and parsed again; a valid line (nearly all) is checked once
    // and not copied.
    impl_->repaired.clear();
    doc->replaced = AppendUtf8Repaired(line, &impl_->repaired);
    status = impl_->Parse(impl_->repaired, doc, 0);
  }
  *has_doc = status.ok();
  return status;
}

std::string_view JsonlLineParser::Impl::Padded(std::string_view line, size_t readable_after, size_t* allocated) {
  if (readable_after >= simdjson::SIMDJSON_PADDING) {
    *allocated = line.size() + readable_after;
    return line;
  }
  const size_t needed = line.size() + simdjson::SIMDJSON_PADDING;
  if (needed > capacity) {
    capacity = std::max(needed, capacity * 2);
    buffer = std::make_unique_for_overwrite<char[]>(capacity);
  }
  std::memcpy(buffer.get(), line.data(), line.size());
  // simdjson may read the padding; give it defined bytes.
  std::memset(buffer.get() + line.size(), ' ', simdjson::SIMDJSON_PADDING);
  *allocated = capacity;
  return {buffer.get(), line.size()};
}

Status JsonlLineParser::Impl::Parse(std::string_view line, JsonlDocView* doc, size_t readable_after) {
  size_t allocated = 0;
  const char* json = Padded(line, readable_after, &allocated).data();
  od::document document;
  if (auto error = parser.iterate(json, line.size(), allocated).get(document)) {
    return FromSimdjson(error);
  }
  od::json_type type;
  if (auto error = document.type().get(type)) return FromSimdjson(error);
  if (type != od::json_type::object) return Status::Corrupt("not a JSON object");
  od::object object;
  if (auto error = document.get_object().get(object)) return FromSimdjson(error);

  doc->id.clear();
  doc->text = {};
  KeysFound found;
  if (Status s = ReadFields(object, doc, &found); !s.ok()) return s;
  // Anything after the closing brace (besides spaces) is an error.
  const char* trailing = nullptr;
  if (document.current_location().get(trailing) == simdjson::SUCCESS) {
    return FromSimdjson(simdjson::TRAILING_CONTENT);
  }
  if (!found.text) return Status::Corrupt("missing key \"" + text_key + "\"" + KeysOf(json, line.size(), allocated));
  if (found.text_not_string) return Status::Corrupt("\"" + text_key + "\" is not a string");
  if (found.id_bad_type) return Status::Corrupt("\"" + id_key + "\" is not a string or a number");
  return Status::Ok();
}

Status JsonlLineParser::Impl::ReadFields(od::object& object, JsonlDocView* doc, KeysFound* found) {
  // The first occurrence of a key counts; later ones are only validated.
  for (auto field_result : object) {
    od::field field;
    if (auto error = std::move(field_result).get(field)) return FromSimdjson(error);
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) return FromSimdjson(error);
    od::value& value = field.value();
    const bool is_text = !found->text && key == text_key;
    const bool is_id = !found->id && key == id_key;
    if (!is_text && !is_id) {
      if (auto error = ValidateValue(value, 1)) return FromSimdjson(error);
      continue;
    }
    found->text = found->text || is_text;
    found->id = found->id || is_id;
    od::json_type value_type;
    if (auto error = value.type().get(value_type)) return FromSimdjson(error);
    if (value_type == od::json_type::string) {
      std::string_view s;
      if (auto error = value.get_string().get(s)) return FromSimdjson(error);
      // The text stays in simdjson's string buffer until the next line.
      if (is_text) doc->text = s;
      if (is_id) doc->id.assign(s);
      continue;
    }
    if (is_id && value_type == od::json_type::number) {
      const std::string_view token = TrimTrailingSpace(value.raw_json_token());
      if (!IsJsonNumber(token)) return FromSimdjson(simdjson::NUMBER_ERROR);
      doc->id.assign(token);
    } else {
      if (auto error = ValidateValue(value, 1)) return FromSimdjson(error);
      // A null id counts as no id; other types are an error.
      if (is_id && value_type != od::json_type::null) found->id_bad_type = true;
    }
    if (is_text) found->text_not_string = true;
  }
  return Status::Ok();
}

void LineSplitter::Feed(std::string_view bytes) {
  assert(!finished_);
  if (pos_ == buf_.size() || (pos_ >= kCompactMin && pos_ >= buf_.size() / 2)) {
    // Drop the lines already returned; every offset kept is >= pos_.
    buf_.erase(0, pos_);
    scan_ = scan_ >= pos_ ? scan_ - pos_ : 0;
    tail_ = tail_ >= pos_ ? tail_ - pos_ : 0;
    for (size_t& at : too_long_at_) at -= pos_;
    pos_ = 0;
  }
  if (max_line_ == 0) {
    buf_.append(bytes);
    return;
  }
  while (!bytes.empty()) {
    const size_t newline = bytes.find('\n');
    if (newline == std::string_view::npos) {
      AppendPartial(bytes);
      return;
    }
    AppendPartial(bytes.substr(0, newline));
    // The line ends here: kept whole, or as the empty stand-in of a long one.
    buf_ += '\n';
    skipping_ = false;
    tail_ = buf_.size();
    bytes.remove_prefix(newline + 1);
  }
}

void LineSplitter::AppendPartial(std::string_view bytes) {
  if (skipping_) return;
  // max_line + 1: a CR before the newline is not part of the line.
  if (buf_.size() - tail_ + bytes.size() > max_line_ + 1) {
    buf_.resize(tail_);
    scan_ = std::min(scan_, tail_);
    too_long_at_.push_back(tail_);
    skipping_ = true;
    return;
  }
  buf_.append(bytes);
}

void LineSplitter::Finish() {
  finished_ = true;
  // A line too long at the end of the input still counts as a line.
  if (skipping_) {
    buf_ += '\n';
    skipping_ = false;
    tail_ = buf_.size();
  }
}

bool LineSplitter::Next(std::string_view* line, uint64_t* line_number) {
  assert(line != nullptr && line_number != nullptr);
  if (pos_ == buf_.size()) return false;
  // scan_ remembers how far an earlier call looked for '\n', so a long line
  // fed in small chunks is scanned once.
  const size_t newline = buf_.find('\n', std::max(scan_, pos_));
  size_t end;
  size_t next;
  if (newline != std::string::npos) {
    end = newline;
    next = newline + 1;
  } else if (finished_) {
    // A last line without "\n"; a CR before the end is dropped like one
    // before "\n".
    end = buf_.size();
    next = buf_.size();
  } else {
    scan_ = buf_.size();
    return false;
  }
  if (end > pos_ && buf_[end - 1] == '\r') --end;
  too_long_ = false;
  if (!too_long_at_.empty() && too_long_at_.front() == pos_) {
    too_long_at_.pop_front();
    too_long_ = true;
  } else if (max_line_ != 0 && end - pos_ > max_line_) {
    too_long_ = true;  // max_line + 1 bytes without a CR at the end
  }
  *line = too_long_ ? std::string_view() : std::string_view(buf_).substr(pos_, end - pos_);
  *line_number = ++line_number_;
  pos_ = next;
  scan_ = next;
  return true;
}

}  // namespace neardup
