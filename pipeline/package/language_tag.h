// A track's language as the manifests write it: a BCP 47 tag (RFC 5646), which HLS LANGUAGE
// and the MPD's xs:language require, in its canonical short form. Media files carry ISO 639-2
// codes ("eng", "fre"), or whatever a tool wrote into the tag, quotes and URIs included.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tc::package {

// The canonical form of `tag`: subtags by RFC 5646's shapes (language, extlang, script,
// region, variants, extensions, private use; '_' taken as '-'), the language as its ISO 639-1
// code where one exists ("eng" and "en" -> "en", "fre" -> "fr", "ger-at" -> "de-AT"), the
// script title case, the region upper case, the rest lower case. nullopt when `tag` is not
// well-formed BCP 47 (grandfathered tags included).
std::optional<std::string> canonical_language(std::string_view tag);

}  // namespace tc::package
