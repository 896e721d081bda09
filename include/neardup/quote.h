// ShellQuoted: a path (or any bytes) as it is shown in a message on stderr,
// quoted as `ls --quoting-style=shell-escape` quotes it in a UTF-8 locale,
// so that a name with spaces, shell specials, control characters or bytes
// that are not UTF-8 reads as one shell word and never moves the terminal.
//
//  - a name of safe characters only (letters, digits, `%+,-./:@]_`, UTF-8
//    text that is not a control character, `#` and `~` past the first
//    byte, `{` and `}` in a longer name) is unchanged: docs/a.txt;
//  - a name whose only other character is `'` (with spaces, say) is put in
//    double quotes: "it's here";
//  - any other name is put in single quotes, a `'` in it written '\'', and
//    each control character or byte that is not UTF-8 as $'\n', $'\t',
//    $'\033' between them: 'a'$'\n''b'.
//
// One difference: ls writes a name holding both a `'` and a control
// character with an extra '' in front; this does not (the same word to a
// shell).
//
// Public so that the front end quotes the paths of its own messages (-o,
// --files-from) as the core does; implemented in src/base/quote.cc.
//
// Thread safety: a pure function.
#pragma once

#include <string>
#include <string_view>

namespace neardup {

// `name` quoted as above; '' for an empty name.
std::string ShellQuoted(std::string_view name);

}  // namespace neardup
