// MailText: an RFC 5322 message -> its body's text (--strip mail).
//
// The header is dropped (its fields up to the first empty line; folded
// lines belong to their field; an mbox "From " line before it is allowed).
// The body is the message's first text/plain part, or, without one, its
// first text/html part read as HtmlText() reads it: MIME multiparts
// (RFC 2046) are walked depth first, parts marked
// "Content-Disposition: attachment" and attached messages (message/rfc822)
// are not read. The part is decoded from its Content-Transfer-Encoding
// (quoted-printable, base64; 7bit, 8bit and binary as they are) and
// converted from its charset to UTF-8: utf-8 and us-ascii are checked
// (invalid sequences become U+FFFD), iso-8859-1 is transcoded, any other
// charset the C library's iconv knows (windows-1252, iso-8859-15, koi8-r,
// shift_jis, ...) through iconv; an unknown charset, or none, is read as
// --encoding says; CRLF line breaks become LF. A message without a text
// part has an empty body.
//
// Memory: the message plus a decoded copy of one part.
//
// Thread safety: a pure function.
//
//   std::string text;
//   if (Status s = MailText(message, Encoding::kUtf8, &text); !s.ok()) ...
#pragma once

#include <string>
#include <string_view>

#include "neardup/options.h"
#include "neardup/status.h"

namespace neardup {

// Replaces *out with the body text of `message` (any bytes), valid UTF-8.
// `fallback` reads a part without a charset, or with one iconv does not
// know. Fails (Corrupt, a message starting "--strip mail: ") when `message`
// is no message (its first line is no header field), when a multipart has
// no boundary or none of its delimiter lines, or when multiparts nest more
// than 32 deep.
Status MailText(std::string_view message, Encoding fallback, std::string* out);

}  // namespace neardup
