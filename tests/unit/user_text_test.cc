#include "pipeline/core/user_text.h"

#include <gtest/gtest.h>

namespace tc {
namespace {

TEST(UserText, ShortValuesAreQuotedAsTheyAre) {
  EXPECT_EQ(quote_value("/media/in.mp4"), "'/media/in.mp4'");
  EXPECT_EQ(quote_value("café.mp4"), "'café.mp4'");
}

// A newline in a file name must not start a new log line.
TEST(UserText, ControlCharactersAndQuotesAreEscaped) {
  EXPECT_EQ(quote_value("a\nINFO forged\r\t\x01'b"), "'a\\nINFO forged\\r\\t\\x01\\'b'");
  EXPECT_EQ(escape_text("line one\nline two"), "line one\\nline two");
}

TEST(UserText, LongValuesAreCutNamingTheirSize) {
  std::string big(3'000'000, 'x');
  std::string text = quote_value(big);
  EXPECT_EQ(text, "'" + std::string(kQuotedValueChars, 'x') + "…(3000000 bytes)'");
  EXPECT_EQ(escape_text(big, 10), "xxxxxxxxxx…(3000000 bytes)");
}

TEST(UserText, CutsAtACharacterBoundary) {
  std::string text = escape_text("ééé", 3);  // é is two bytes: the second one would be split
  EXPECT_EQ(text, "é…(6 bytes)");
}

}  // namespace
}  // namespace tc
