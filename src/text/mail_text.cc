#include "text/mail_text.h"

#include <iconv.h>

#include <cerrno>
#include <cstdint>
#include <vector>

#include "text/decode.h"
#include "text/html_text.h"

namespace neardup {
namespace {

constexpr int kMaxDepth = 32;

Status Malformed(const std::string& why) { return Status::Corrupt("--strip mail: " + why); }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool Blank(char c) { return c == ' ' || c == '\t'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (Blank(s.front()) || s.front() == '\r' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (Blank(s.back()) || s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

// The line starting at *pos, without its LF or CRLF; *pos moves past it.
std::string_view NextLine(std::string_view s, size_t* pos) {
  size_t end = s.find('\n', *pos);
  const size_t next = end == std::string_view::npos ? s.size() : end + 1;
  if (end == std::string_view::npos) end = s.size();
  std::string_view line = s.substr(*pos, end - *pos);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  *pos = next;
  return line;
}

// The length of the field name when `line` starts a header field ("Name:",
// RFC 5322 2.2: printable ASCII but ':'; obsolete white space before the
// colon allowed), else 0.
size_t FieldNameLength(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && line[i] > ' ' && line[i] < 127 && line[i] != ':') ++i;
  size_t colon = i;
  while (colon < line.size() && Blank(line[colon])) ++colon;
  return i > 0 && colon < line.size() && line[colon] == ':' ? i : 0;
}

// One MIME entity: what its header says of it, and its body.
struct Entity {
  std::string type = "text/plain";  // type/subtype, lower case
  std::string boundary;
  std::string charset;   // lower case; empty when not given
  std::string transfer;  // Content-Transfer-Encoding, lower case
  bool attachment = false;
  std::string_view body;
};

// A header field's value split at ';' outside quoted strings: the first
// piece lower case, then each "name=value" parameter (name lower case,
// value unquoted).
struct FieldValue {
  std::string main;
  std::vector<std::pair<std::string, std::string>> params;
};

FieldValue SplitValue(std::string_view value) {
  FieldValue out;
  std::vector<std::string> pieces(1);
  bool quoted = false;
  for (size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (quoted && c == '\\' && i + 1 < value.size()) {
      pieces.back().push_back(value[++i]);
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ';' && !quoted) {
      pieces.emplace_back();
    } else {
      pieces.back().push_back(c);
    }
  }
  out.main = Lower(Trim(pieces[0]));
  for (size_t i = 1; i < pieces.size(); ++i) {
    const size_t eq = pieces[i].find('=');
    if (eq == std::string::npos) continue;
    out.params.emplace_back(Lower(Trim(std::string_view(pieces[i]).substr(0, eq))),
                            std::string(Trim(std::string_view(pieces[i]).substr(eq + 1))));
  }
  return out;
}

void TakeField(const std::string& name, std::string_view value, Entity* e) {
  if (name == "content-type") {
    const FieldValue v = SplitValue(value);
    // RFC 2045 5.2: a type without a subtype is read as the default.
    if (v.main.find('/') != std::string::npos) e->type = v.main;
    for (const auto& [k, val] : v.params) {
      if (k == "boundary") e->boundary = val;
      if (k == "charset") e->charset = Lower(val);
    }
  } else if (name == "content-transfer-encoding") {
    e->transfer = SplitValue(value).main;
  } else if (name == "content-disposition") {
    e->attachment = SplitValue(value).main == "attachment";
  }
}

// Reads the header of `text` into an Entity. `top`: the message itself, whose
// first line must be a header field (after an mbox "From " line); a MIME
// part's header may be empty or missing.
Status ReadEntity(std::string_view text, bool top, Entity* e) {
  size_t pos = 0;
  if (top && text.substr(0, 5) == "From ") NextLine(text, &pos);
  std::string name;
  std::string value;
  auto flush = [&] {
    if (!name.empty()) TakeField(name, value, e);
    name.clear();
    value.clear();
  };
  bool first = true;
  while (pos < text.size()) {
    const size_t start = pos;
    const std::string_view line = NextLine(text, &pos);
    if (line.empty()) break;
    if (Blank(line[0]) && !first) {
      value.append(line);  // a folded line (RFC 5322 2.2.3)
      continue;
    }
    const size_t n = FieldNameLength(line);
    if (n == 0) {
      if (top && first) return Malformed("not a mail message: its first line is no header field");
      pos = start;  // no header here: the body starts at this line
      break;
    }
    flush();
    name = Lower(line.substr(0, n));
    value = line.substr(line.find(':') + 1);
    first = false;
  }
  flush();
  e->body = text.substr(pos);
  return Status::Ok();
}

// The body parts of a multipart body between its delimiter lines
// "--boundary" and "--boundary--" (RFC 2046 5.1.1); the line break before
// a delimiter belongs to it. A missing close delimiter ends the last part at
// the end of the body.
Status SplitParts(std::string_view body, const std::string& boundary, std::vector<std::string_view>* parts) {
  const std::string delimiter = "--" + boundary;
  size_t pos = 0;
  size_t part_start = std::string_view::npos;
  bool closed = false;
  while (pos < body.size() && !closed) {
    const size_t start = pos;
    const std::string_view line = NextLine(body, &pos);
    if (line.substr(0, delimiter.size()) != delimiter) continue;
    std::string_view rest = line.substr(delimiter.size());
    closed = rest.substr(0, 2) == "--";
    if (closed) rest.remove_prefix(2);
    if (!Trim(rest).empty()) continue;  // a line that only starts like the delimiter
    if (part_start != std::string_view::npos) {
      size_t end = start;
      if (end > part_start && body[end - 1] == '\n') --end;
      if (end > part_start && body[end - 1] == '\r') --end;
      parts->push_back(body.substr(part_start, end - part_start));
    }
    part_start = pos;
  }
  if (part_start == std::string_view::npos) return Malformed("a multipart body has no line \"" + delimiter + "\"");
  if (!closed) parts->push_back(body.substr(part_start));
  return Status::Ok();
}

// The first text/plain and the first text/html part, depth first.
struct Found {
  Entity plain;
  Entity html;
  bool has_plain = false;
  bool has_html = false;
};

Status Walk(std::string_view text, bool top, int depth, Found* found) {
  Entity e;
  if (Status s = ReadEntity(text, top, &e); !s.ok()) return s;
  if (e.attachment && !top) return Status::Ok();
  if (e.type.starts_with("multipart/")) {
    if (depth >= kMaxDepth) return Malformed("multiparts nest more than " + std::to_string(kMaxDepth) + " deep");
    if (e.boundary.empty()) return Malformed(e.type + " without a boundary parameter");
    std::vector<std::string_view> parts;
    if (Status s = SplitParts(e.body, e.boundary, &parts); !s.ok()) return s;
    for (const std::string_view part : parts) {
      if (Status s = Walk(part, false, depth + 1, found); !s.ok() || found->has_plain) return s;
    }
  } else if (e.type == "text/plain" && !found->has_plain) {
    found->plain = e;
    found->has_plain = true;
  } else if (e.type == "text/html" && !found->has_html) {
    found->html = e;
    found->has_html = true;
  }
  return Status::Ok();
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Quoted-printable (RFC 2045 6.7): "=XX" is a byte, "=" at a line's end (then
// white space) a soft line break; any other "=" is kept as it is.
std::string QuotedPrintable(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '=') {
      out.push_back(in[i]);
      continue;
    }
    if (i + 2 < in.size() && HexValue(in[i + 1]) >= 0 && HexValue(in[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(in[i + 1]) * 16 + HexValue(in[i + 2])));
      i += 2;
      continue;
    }
    size_t j = i + 1;
    while (j < in.size() && Blank(in[j])) ++j;
    if (j < in.size() && in[j] == '\r') ++j;
    if (j == in.size() || in[j] == '\n') {
      i = j;  // a soft line break
    } else {
      out.push_back('=');
    }
  }
  return out;
}

// Base64 (RFC 2045 6.8): characters outside the alphabet (line breaks,
// padding) are ignored.
std::string Base64(std::string_view in) {
  std::string out;
  out.reserve(in.size() / 4 * 3);
  uint32_t bits = 0;
  int held = 0;
  for (const char c : in) {
    int v = -1;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    if (c >= '0' && c <= '9') v = c - '0' + 52;
    if (c == '+') v = 62;
    if (c == '/') v = 63;
    if (v < 0) continue;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    held += 6;
    if (held >= 8) {
      held -= 8;
      out.push_back(static_cast<char>((bits >> held) & 0xFF));
    }
  }
  return out;
}

std::string Decoded(const Entity& e) {
  if (e.transfer == "quoted-printable") return QuotedPrintable(e.body);
  if (e.transfer == "base64") return Base64(e.body);
  return std::string(e.body);
}

void DecodeWith(Encoding encoding, std::string_view bytes, std::string* out) {
  TextDecoder decoder(encoding);
  decoder.Feed(bytes, out);
  decoder.Finish(out);
}

// `bytes` in charset `charset` through iconv; false when iconv does not know
// it. A byte iconv cannot convert becomes U+FFFD.
bool ConvertWithIconv(const std::string& charset, std::string_view bytes, std::string* out) {
  iconv_t cd = iconv_open("UTF-8", charset.c_str());
  if (cd == reinterpret_cast<iconv_t>(-1)) return false;
  std::string in(bytes);  // iconv takes a non-const pointer
  char* from = in.data();
  size_t left = in.size();
  char buffer[4096];
  while (left > 0) {
    char* to = buffer;
    size_t room = sizeof buffer;
    const size_t rc = iconv(cd, &from, &left, &to, &room);
    out->append(buffer, static_cast<size_t>(to - buffer));
    if (rc == static_cast<size_t>(-1) && errno != E2BIG) {
      out->append("\xEF\xBF\xBD");  // U+FFFD for a byte it cannot read
      ++from;
      --left;
      iconv(cd, nullptr, nullptr, nullptr, nullptr);
    }
  }
  iconv_close(cd);
  return true;
}

// `text` with each CRLF as LF (mail's line break on the wire, and the local one).
std::string LocalBreaks(std::string text) {
  size_t kept = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    text[kept++] = text[i];
  }
  text.resize(kept);
  return text;
}

// The part's text, decoded, in UTF-8, its line breaks LF.
std::string PartText(const Entity& e, Encoding fallback) {
  const std::string bytes = LocalBreaks(Decoded(e));
  std::string out;
  const std::string& c = e.charset;
  if (c == "utf-8" || c == "utf8" || c == "us-ascii" || c == "ascii") {
    DecodeWith(Encoding::kUtf8, bytes, &out);
  } else if (c == "iso-8859-1" || c == "latin1" || c == "latin-1") {
    DecodeWith(Encoding::kLatin1, bytes, &out);
  } else if (c.empty() || !ConvertWithIconv(c, bytes, &out)) {
    out.clear();
    DecodeWith(fallback, bytes, &out);
  }
  return out;
}

}  // namespace

Status MailText(std::string_view message, Encoding fallback, std::string* out) {
  out->clear();
  Found found;
  if (Status s = Walk(message, true, 0, &found); !s.ok()) return s;
  if (found.has_plain) {
    *out = PartText(found.plain, fallback);
  } else if (found.has_html) {
    return HtmlText(PartText(found.html, fallback), out);
  }
  return Status::Ok();
}

}  // namespace neardup
