#include "text/mail_text.h"

#include <gtest/gtest.h>

#include <string>

#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

std::string Fixture(const std::string& name) {
  return testing::ReadFile(std::string(testing::SourceDir()) + "/tests/text/strip/" + name);
}

std::string BodyOf(const std::string& message, Encoding fallback = Encoding::kUtf8) {
  std::string out = "stale";
  const Status s = MailText(message, fallback, &out);
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

TEST(MailTextTest, SameBodyWhateverTheReceivedHeadersAndTransferEncoding) {
  const std::string body = Fixture("body.txt");
  EXPECT_EQ(BodyOf(Fixture("plain_8bit.eml")), body);           // an mbox "From " line, 8bit UTF-8
  EXPECT_EQ(BodyOf(Fixture("plain_qp.eml")), body);             // quoted-printable, CRLF line breaks
  EXPECT_EQ(BodyOf(Fixture("plain_base64_latin1.eml")), body);  // base64 of Latin-1, folded charset
}

TEST(MailTextTest, MultipartAlternativeGivesItsTextPlainPart) {
  EXPECT_EQ(BodyOf(Fixture("alternative.eml")), Fixture("body.txt"));
}

TEST(MailTextTest, WithoutTextPlainTheHtmlPartIsStrippedAndAttachmentsAreNotRead) {
  EXPECT_EQ(BodyOf(Fixture("html_only.eml")), Fixture("html_only.txt"));
}

TEST(MailTextTest, CharsetsIconvKnowsAreConverted) { EXPECT_EQ(BodyOf(Fixture("cp1252.eml")), Fixture("cp1252.txt")); }

TEST(MailTextTest, PartWithoutCharsetIsReadAsTheFallbackEncoding) {
  const std::string message = "Subject: x\n\ncaf\xE9\n";
  EXPECT_EQ(BodyOf(message, Encoding::kLatin1), "caf\xC3\xA9\n");
  EXPECT_EQ(BodyOf(message, Encoding::kUtf8), "caf\xEF\xBF\xBD\n");  // invalid UTF-8: U+FFFD
}

TEST(MailTextTest, HeaderOnlyAndNonTextMessagesHaveAnEmptyBody) {
  EXPECT_EQ(BodyOf("Subject: nothing else"), "");
  EXPECT_EQ(BodyOf("Content-Type: image/png\nContent-Transfer-Encoding: base64\n\niVBORw0KGgo=\n"), "");
}

TEST(MailTextTest, QuotedPrintableSoftBreaksAndStrayEqualsSigns) {
  EXPECT_EQ(BodyOf("Content-Transfer-Encoding: quoted-printable\n\nlong=\nline =3D a=\r\nb = c=zz=4\n"),
            "longline = ab = c=zz=4\n");
}

TEST(MailTextTest, MalformedMessagesAreOneErrorNamingWhy) {
  std::string out;
  Status s = MailText(Fixture("not_mail.eml"), Encoding::kUtf8, &out);
  EXPECT_EQ(s.code(), Status::Code::kCorrupt);
  EXPECT_EQ(s.message(), "--strip mail: not a mail message: its first line is no header field");
  s = MailText(Fixture("no_boundary.eml"), Encoding::kUtf8, &out);
  EXPECT_EQ(s.message(), "--strip mail: multipart/mixed without a boundary parameter");
  s = MailText("Content-Type: multipart/mixed; boundary=b\n\nno delimiter line\n", Encoding::kUtf8, &out);
  EXPECT_EQ(s.message(), "--strip mail: a multipart body has no line \"--b\"");
  std::string nested;
  for (int i = 0; i < 40; ++i)
    nested += "Content-Type: multipart/mixed; boundary=b" + std::to_string(i) + "\n\n--b" + std::to_string(i) + "\n";
  s = MailText(nested, Encoding::kUtf8, &out);
  EXPECT_EQ(s.message(), "--strip mail: multiparts nest more than 32 deep");
  EXPECT_FALSE(MailText("x", Encoding::kUtf8, &out).ok()) << "a lone word is no header field either";
}

}  // namespace
}  // namespace neardup
