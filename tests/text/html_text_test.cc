#include "text/html_text.h"

#include <gtest/gtest.h>

#include <string>

#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

std::string Fixture(const std::string& name) {
  return testing::ReadFile(std::string(testing::SourceDir()) + "/tests/text/strip/" + name);
}

std::string TextOf(const std::string& html) {
  std::string out = "stale";
  const Status s = HtmlText(html, &out);
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

TEST(HtmlTextTest, PageWithNavigationGivesItsVisibleTextLineByBlock) {
  EXPECT_EQ(TextOf(Fixture("nav_a.html")), Fixture("nav_a.txt"));
}

TEST(HtmlTextTest, DropsMarkupCommentsScriptsStylesHeadAndHiddenElements) {
  const std::string html =
      "<html><head><title>Tab title</title><style>p { color: red }</style></head><body>"
      "<script>var shown = 'no';</script><noscript>enable scripts</noscript><template><p>later</p></template>"
      "<!-- a comment --><p class=\"x\" data-y=\"z\">Seen <b>bold</b> text</p><div hidden>not shown</div>"
      "<iframe>fallback</iframe></body></html>";
  EXPECT_EQ(TextOf(html), "Seen bold text");
}

TEST(HtmlTextTest, DecodesCharacterReferences) {
  EXPECT_EQ(TextOf("<p>caf&eacute; &amp; cr&#232;me &#x263A; &lt;tag&gt;&nbsp;end</p>"),
            "caf\xC3\xA9 & cr\xC3\xA8me \xE2\x98\xBA <tag>\xC2\xA0"
            "end");
}

TEST(HtmlTextTest, BlocksAndBreaksStartLinesAndWhiteSpaceCollapses) {
  EXPECT_EQ(
      TextOf("<h1>Title</h1>\n\n  <p>one   two\n three<br>four</p><ul><li>a<li>b</ul><span>in</span><span>line</span>"),
      "Title\none two three\nfour\na\nb\ninline");
}

TEST(HtmlTextTest, MalformedMarkupIsReadAsABrowserReadsIt) {
  EXPECT_EQ(TextOf("<p>unclosed <b>bold<p>next</td></table>&bogus; <"), "unclosed bold\nnext&bogus; <");
  EXPECT_EQ(TextOf(""), "");
}

TEST(HtmlTextTest, DeepNestingIsWalkedWithoutRecursion) {
  std::string html;
  for (int i = 0; i < 100000; ++i) html += "<span>";
  html += "deep";
  EXPECT_EQ(TextOf(html), "deep");
}

}  // namespace
}  // namespace neardup
