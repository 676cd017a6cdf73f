// What the manifests take from the media, made safe to write (issue 38): languages as canonical
// BCP 47 (RFC 5646), values quoted for HLS (RFC 8216 quoted-string) and for XML attributes.
#include <gtest/gtest.h>

#include "pipeline/package/language_tag.h"
#include "pipeline/package/manifest_quote.h"

namespace tc::package {
namespace {

TEST(LanguageTag, IsWrittenInItsCanonicalShortForm) {
  EXPECT_EQ(canonical_language("eng"), "en");
  EXPECT_EQ(canonical_language("en"), "en");
  EXPECT_EQ(canonical_language("fre"), "fr");  // ISO 639-2/B
  EXPECT_EQ(canonical_language("fra"), "fr");  // ISO 639-2/T
  EXPECT_EQ(canonical_language("JPN"), "ja");
  EXPECT_EQ(canonical_language("ger-at"), "de-AT");
  EXPECT_EQ(canonical_language("pt_BR"), "pt-BR");
  EXPECT_EQ(canonical_language("zh-hant-tw"), "zh-Hant-TW");
  EXPECT_EQ(canonical_language("es-419"), "es-419");
  EXPECT_EQ(canonical_language("sl-rozaj-biske"), "sl-rozaj-biske");
  EXPECT_EQ(canonical_language("en-US-x-twain"), "en-US-x-twain");
  EXPECT_EQ(canonical_language("gsw"), "gsw") << "no ISO 639-1 code: kept";
  EXPECT_EQ(canonical_language("und"), "und");
}

TEST(LanguageTag, AnythingElseIsNotALanguage) {
  for (const char* junk : {"", "e", "en\",URI=\"http://example.invalid/x", "en-", "-en", "en--us",
                           "english language", "123", "en-US-x", "en-a", "toolongtag1"})
    EXPECT_EQ(canonical_language(junk), std::nullopt) << junk;
}

TEST(ManifestQuote, NoValueEndsItsAttribute) {
  EXPECT_EQ(hls_quoted("NAME", "en\",URI=\"http://x"), "NAME=\"en',URI='http://x\"");
  EXPECT_EQ(hls_quoted("NAME", "a\r\nb\tc"), "NAME=\"a  b c\"");
  EXPECT_EQ(hls_quoted("NAME", "日本語"), "NAME=\"日本語\"");
  EXPECT_EQ(xml_attribute("lang", "a\"<b>&'c"), " lang=\"a&quot;&lt;b&gt;&amp;&apos;c\"");
  EXPECT_EQ(xml_text("a\r\n\tb\x01"), "a&#13;&#10;&#9;b ");
}

}  // namespace
}  // namespace tc::package
