#include "neardup/quote.h"

#include <cstdint>

namespace neardup {

namespace {

// The length of the valid UTF-8 sequence of a printable character (not a
// C1 control) at s[i] (which is >= 0x80), or 0.
size_t PrintableSequence(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  size_t n = 0;
  uint32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0Fu;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07u;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (byte(i + k) & 0x3Fu);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || (cp >= 0x80 && cp <= 0x9F)) return 0;
  return n;
}

bool Safe(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '%' || c == '+' ||
         c == ',' || c == '-' || c == '.' || c == '/' || c == ':' || c == '@' || c == ']' || c == '_';
}

// Whether c, at position i of a name of `size` bytes, needs no quoting.
bool SafeAt(char c, size_t i, size_t size) {
  if (Safe(c)) return true;
  if (c == '#' || c == '~') return i != 0;
  if (c == '{' || c == '}') return size != 1;
  return false;
}

bool Control(unsigned char c) { return c < 0x20 || c == 0x7F; }

void AppendEscape(std::string* out, unsigned char c) {
  switch (c) {
    case '\a':
      out->append("\\a");
      return;
    case '\b':
      out->append("\\b");
      return;
    case '\f':
      out->append("\\f");
      return;
    case '\n':
      out->append("\\n");
      return;
    case '\r':
      out->append("\\r");
      return;
    case '\t':
      out->append("\\t");
      return;
    case '\v':
      out->append("\\v");
      return;
    default:
      break;
  }
  out->push_back('\\');
  out->push_back(static_cast<char>('0' + (c >> 6)));
  out->push_back(static_cast<char>('0' + ((c >> 3) & 7)));
  out->push_back(static_cast<char>('0' + (c & 7)));
}

// What a name needs to be shown to a shell.
struct QuotingNeeded {
  bool plain = true;            // nothing to quote
  bool double_quotable = true;  // only safe characters, spaces and '
  bool any_single_quote = false;
};

QuotingNeeded QuotingOf(std::string_view name) {
  QuotingNeeded q;
  for (size_t i = 0; i < name.size();) {
    const char c = name[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      const size_t n = PrintableSequence(name, i);
      if (n == 0) {
        q.plain = q.double_quotable = false;
        ++i;
      } else {
        i += n;
      }
      continue;
    }
    if (c == '\'') {
      q.any_single_quote = true;
      q.plain = false;
    } else if (c == ' ') {
      q.plain = false;
    } else if (c == '#' || c == '~') {
      // Special at the start only (as ls: quoted alike elsewhere with a ').
      if (i == 0)
        q.plain = false;
      else
        q.double_quotable = false;
    } else if (c == '{' || c == '}') {
      if (name.size() == 1)
        q.plain = false;
      else
        q.double_quotable = false;  // as ls: quoted alike, though no need
    } else if (!SafeAt(c, i, name.size())) {
      q.plain = q.double_quotable = false;
    }
    ++i;
  }
  return q;
}

// `name` in '...', with $'...' around control characters and bytes that are
// not printable UTF-8, and '\'' for each '.
std::string SingleQuoted(std::string_view name) {
  std::string out = "'";
  bool in_dollar = false;  // inside $'...'
  for (size_t i = 0; i < name.size();) {
    const auto c = static_cast<unsigned char>(name[i]);
    const size_t n = c >= 0x80 ? PrintableSequence(name, i) : 1;
    if (Control(c) || n == 0) {
      if (!in_dollar) out.append("'$'");
      in_dollar = true;
      AppendEscape(&out, c);
      ++i;
      continue;
    }
    if (c == '\'') {
      // The first ' ends '...' or $'...' alike.
      out.append("'\\''");
      in_dollar = false;
      ++i;
      continue;
    }
    if (in_dollar) out.append("''");
    in_dollar = false;
    out.append(name.substr(i, n));
    i += n;
  }
  out.push_back('\'');
  return out;
}

}  // namespace

std::string ShellQuoted(std::string_view name) {
  if (name.empty()) return "''";
  const QuotingNeeded q = QuotingOf(name);
  if (q.plain) return std::string(name);
  if (q.any_single_quote && q.double_quotable) {
    std::string out;
    out.reserve(name.size() + 2);
    out.push_back('"');
    out.append(name);
    out.push_back('"');
    return out;
  }
  return SingleQuoted(name);
}

}  // namespace neardup
