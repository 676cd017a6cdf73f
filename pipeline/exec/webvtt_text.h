// Subtitle events on their way to FFmpeg's webvtt encoder, which copies an ASS event's text into
// the cue as it is: W3C WebVTT (section 4.2, cue text) requires '&', '<' and '>' in text to be
// written &amp; &lt; &gt;, else "<b>&" in a line reads as a tag and a broken entity. The escape
// is made in the ASS text itself, before the encoder adds its own tags (<b> from {\b1} and so on).
#pragma once

#include <string>
#include <string_view>

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace tc {

// An event's ASS line ("ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text", as
// FFmpeg's decoders give it) with '&', '<' and '>' of its Text escaped for WebVTT. The fields
// before Text (a style's name) and override blocks ({\b1}) are left as they are.
std::string escape_ass_text_for_webvtt(std::string_view ass);

// An event whose end comes before its start (an ASS "Dialogue: 0,0:00:05.00,0:00:01.00,...").
// FFmpeg keeps such an end as an unsigned number of milliseconds after the start: 2^32 - 4000,
// a cue that ends 1193 hours later. Such an event is dropped, as libass draws nothing for it,
// rather than clamped to an instant nobody would see.
bool ends_before_start(const AVSubtitle& subtitle);

}  // namespace tc
