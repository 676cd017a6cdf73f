// Every value a manifest takes from the media or the job (titles, languages, names, codec
// strings, URIs) goes through one of these, so that no value can end its attribute and add
// another (a language of `en",URI="http://...` once added a second URI to an EXT-X-MEDIA).
#pragma once

#include <string>
#include <string_view>

namespace tc::package {

// An HLS attribute with a quoted-string value (RFC 8216 4.2: no '"', CR or LF inside):
// `NAME="value"`, '"' made '\'' and CR, LF (and other control characters) a space.
std::string hls_quoted(std::string_view name, std::string_view value);
// An XML attribute: ` name="value"` (with its leading space), & < > " ' as references and
// control characters (which XML 1.0 cannot hold, or which a parser would normalize) as a
// space or a character reference.
std::string xml_attribute(std::string_view name, std::string_view value);
// XML character data (an element's text): the same escapes.
std::string xml_text(std::string_view text);

}  // namespace tc::package
