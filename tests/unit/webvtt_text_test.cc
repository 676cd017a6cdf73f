// webvtt_text.h: ASS event text escaped for WebVTT, events that end before they start.
#include "pipeline/exec/webvtt_text.h"

#include <gtest/gtest.h>

namespace tc {
namespace {

TEST(WebVttText, EscapesTheTextFieldOnlyAndLeavesOverridesAlone) {
  EXPECT_EQ(escape_ass_text_for_webvtt("0,0,A&B,,0,0,0,,Tom <b>& Jerry {\\b1}> 2{\\b0}"),
            "0,0,A&B,,0,0,0,,Tom &lt;b&gt;&amp; Jerry {\\b1}&gt; 2{\\b0}");
  EXPECT_EQ(escape_ass_text_for_webvtt("0,0,Default,,0,0,0,,a, b & c"),
            "0,0,Default,,0,0,0,,a, b &amp; c");
  EXPECT_EQ(escape_ass_text_for_webvtt("no fields <i>"), "no fields &lt;i&gt;");
}

TEST(WebVttText, AnEndBeforeTheStartIsFound) {
  AVSubtitle subtitle{};
  subtitle.end_display_time = uint32_t(-2500);  // as FFmpeg keeps a negative duration
  EXPECT_TRUE(ends_before_start(subtitle));
  subtitle.start_display_time = 100;
  subtitle.end_display_time = 50;
  EXPECT_TRUE(ends_before_start(subtitle));
  subtitle.end_display_time = 0;  // "until the next event"
  EXPECT_FALSE(ends_before_start(subtitle));
  subtitle.end_display_time = 1100;
  EXPECT_FALSE(ends_before_start(subtitle));
}

}  // namespace
}  // namespace tc
