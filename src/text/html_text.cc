#include "text/html_text.h"

#include <gumbo.h>

#include <vector>

#include "base/utf8.h"

namespace neardup {
namespace {

// Elements whose content a reader does not see.
bool Hidden(const GumboElement& e) {
  switch (e.tag) {
    case GUMBO_TAG_HEAD:
    case GUMBO_TAG_TITLE:
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_OBJECT:
      return true;
    default:
      return gumbo_get_attribute(&e.attributes, "hidden") != nullptr;
  }
}

// Elements that begin and end a line (CSS display: block, list-item,
// table-row, table-cell and the like in a browser's default style sheet).
bool Block(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_ADDRESS:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_BODY:
    case GUMBO_TAG_BR:
    case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_CENTER:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_DIR:
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_DL:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_FORM:
    case GUMBO_TAG_H1:
    case GUMBO_TAG_H2:
    case GUMBO_TAG_H3:
    case GUMBO_TAG_H4:
    case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_HGROUP:
    case GUMBO_TAG_HR:
    case GUMBO_TAG_HTML:
    case GUMBO_TAG_LEGEND:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_MAIN:
    case GUMBO_TAG_MENU:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_OPTION:
    case GUMBO_TAG_P:
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_SUMMARY:
    case GUMBO_TAG_TABLE:
    case GUMBO_TAG_TBODY:
    case GUMBO_TAG_TD:
    case GUMBO_TAG_TFOOT:
    case GUMBO_TAG_TH:
    case GUMBO_TAG_THEAD:
    case GUMBO_TAG_TR:
    case GUMBO_TAG_UL:
      return true;
    default:
      return false;
  }
}

bool Space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

// Collects text with white space collapsed: a run of spaces is one space
// within a line, none at a line's ends, and breaks never make empty lines.
class TextOut {
 public:
  explicit TextOut(std::string* out) : out_(out) { out_->clear(); }

  void Text(std::string_view text) {
    for (const char c : text) {
      if (Space(c)) {
        space_ = true;
        continue;
      }
      if (space_ && !out_->empty() && out_->back() != '\n') out_->push_back(' ');
      space_ = false;
      out_->push_back(c);
    }
  }
  void Break() {
    space_ = false;
    if (!out_->empty() && out_->back() != '\n') out_->push_back('\n');
  }
  void Finish() {
    if (!out_->empty() && out_->back() == '\n') out_->pop_back();
  }

 private:
  std::string* out_;
  bool space_ = false;
};

// Walks the tree depth first with a stack of its own (pages nest deeper than
// a thread's stack allows recursion). A null entry closes a block element.
void CollectText(const GumboNode* root, TextOut& text) {
  std::vector<const GumboNode*> stack{root};
  while (!stack.empty()) {
    const GumboNode* node = stack.back();
    stack.pop_back();
    if (node == nullptr) {
      text.Break();
      continue;
    }
    switch (node->type) {
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_CDATA:
      case GUMBO_NODE_WHITESPACE:
        text.Text(node->v.text.text);
        break;
      case GUMBO_NODE_DOCUMENT:
      case GUMBO_NODE_ELEMENT:
      case GUMBO_NODE_TEMPLATE: {
        const bool element = node->type != GUMBO_NODE_DOCUMENT;
        if (element && Hidden(node->v.element)) break;
        const bool block = element && Block(node->v.element.tag);
        if (block) text.Break();
        if (block) stack.push_back(nullptr);
        const GumboVector& children = element ? node->v.element.children : node->v.document.children;
        for (unsigned i = children.length; i > 0; --i) {
          stack.push_back(static_cast<const GumboNode*>(children.data[i - 1]));
        }
        break;
      }
      case GUMBO_NODE_COMMENT:
        break;
    }
  }
}

}  // namespace

Status HtmlText(std::string_view html, std::string* out) {
  // An empty view may have a null data(): Gumbo is given a string either way.
  const char* const bytes = html.empty() ? "" : html.data();
  // No parse errors recorded: each copies the stack of open elements, so a
  // deeply nested page would cost time and memory quadratic in its depth.
  GumboOptions options = kGumboDefaultOptions;
  options.max_errors = 0;
  GumboOutput* parsed = gumbo_parse_with_options(&options, bytes, html.size());
  if (parsed == nullptr) return Status::Corrupt("--strip html: the HTML parser gave up");
  std::string collected;
  TextOut text(&collected);
  CollectText(parsed->document, text);
  text.Finish();
  gumbo_destroy_output(&options, parsed);
  // Checked again: Gumbo 0.10.1 writes a lone byte for a numeric character
  // reference past 32 bits ("&#22222222222;"); such a byte becomes U+FFFD.
  out->clear();
  AppendUtf8Repaired(collected, out);
  return Status::Ok();
}

}  // namespace neardup
