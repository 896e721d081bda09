// HtmlText: an HTML document -> the text a reader sees (--strip html).
//
// The page is parsed whole by Gumbo (libgumbo, Google's implementation of
// the HTML5 parsing algorithm, as a browser parses: malformed markup, missing
// end tags and entities are resolved the same way). What is not shown is
// left out: tags and their attributes, comments, <head> (and so <title>,
// which a browser shows in its tab, not in the page, and which sites repeat
// on every page), <script>, <style>, <template>, <noscript> (a reader with
// scripts on does not see it), <iframe> and <object> fallback content, and
// any element with the `hidden` attribute. Character references are
// decoded. Runs of white space become one space; a block element (p, div,
// li, h1-h6, tr, section, article, table cells, ...) and <br> start a new
// line, so lines are the page's blocks.
//
// Memory: the input plus Gumbo's tree, a few times the input's size.
//
// Thread safety: a pure function.
//
//   std::string text;
//   if (Status s = HtmlText(page, &text); !s.ok()) ...
#pragma once

#include <string>
#include <string_view>

#include "neardup/status.h"

namespace neardup {

// Replaces *out with the text of `html`. REQUIRES: `html` is valid UTF-8
// (TextDecoder output). The output is valid UTF-8, its lines trimmed and
// without empty lines. Fails (Corrupt) only when the parser gives up (no
// memory for the tree).
Status HtmlText(std::string_view html, std::string* out);

}  // namespace neardup
