#include "pipeline/package/language_tag.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <iterator>
#include <vector>

namespace tc::package {
namespace {

struct Iso639 {
  const char* three;  // ISO 639-2, terminology or bibliographic code
  const char* two;    // ISO 639-1
};

// Every ISO 639-2 code (T and B) that has an ISO 639-1 code, sorted (from Debian's iso-codes).
constexpr Iso639 kShortCodes[] = {
    {"aar", "aa"}, {"abk", "ab"}, {"afr", "af"}, {"aka", "ak"}, {"alb", "sq"}, {"amh", "am"},
    {"ara", "ar"}, {"arg", "an"}, {"arm", "hy"}, {"asm", "as"}, {"ava", "av"}, {"ave", "ae"},
    {"aym", "ay"}, {"aze", "az"}, {"bak", "ba"}, {"bam", "bm"}, {"baq", "eu"}, {"bel", "be"},
    {"ben", "bn"}, {"bih", "bh"}, {"bis", "bi"}, {"bod", "bo"}, {"bos", "bs"}, {"bre", "br"},
    {"bul", "bg"}, {"bur", "my"}, {"cat", "ca"}, {"ces", "cs"}, {"cha", "ch"}, {"che", "ce"},
    {"chi", "zh"}, {"chu", "cu"}, {"chv", "cv"}, {"cor", "kw"}, {"cos", "co"}, {"cre", "cr"},
    {"cym", "cy"}, {"cze", "cs"}, {"dan", "da"}, {"deu", "de"}, {"div", "dv"}, {"dut", "nl"},
    {"dzo", "dz"}, {"ell", "el"}, {"eng", "en"}, {"epo", "eo"}, {"est", "et"}, {"eus", "eu"},
    {"ewe", "ee"}, {"fao", "fo"}, {"fas", "fa"}, {"fij", "fj"}, {"fin", "fi"}, {"fra", "fr"},
    {"fre", "fr"}, {"fry", "fy"}, {"ful", "ff"}, {"geo", "ka"}, {"ger", "de"}, {"gla", "gd"},
    {"gle", "ga"}, {"glg", "gl"}, {"glv", "gv"}, {"gre", "el"}, {"grn", "gn"}, {"guj", "gu"},
    {"hat", "ht"}, {"hau", "ha"}, {"heb", "he"}, {"her", "hz"}, {"hin", "hi"}, {"hmo", "ho"},
    {"hrv", "hr"}, {"hun", "hu"}, {"hye", "hy"}, {"ibo", "ig"}, {"ice", "is"}, {"ido", "io"},
    {"iii", "ii"}, {"iku", "iu"}, {"ile", "ie"}, {"ina", "ia"}, {"ind", "id"}, {"ipk", "ik"},
    {"isl", "is"}, {"ita", "it"}, {"jav", "jv"}, {"jpn", "ja"}, {"kal", "kl"}, {"kan", "kn"},
    {"kas", "ks"}, {"kat", "ka"}, {"kau", "kr"}, {"kaz", "kk"}, {"khm", "km"}, {"kik", "ki"},
    {"kin", "rw"}, {"kir", "ky"}, {"kom", "kv"}, {"kon", "kg"}, {"kor", "ko"}, {"kua", "kj"},
    {"kur", "ku"}, {"lao", "lo"}, {"lat", "la"}, {"lav", "lv"}, {"lim", "li"}, {"lin", "ln"},
    {"lit", "lt"}, {"ltz", "lb"}, {"lub", "lu"}, {"lug", "lg"}, {"mac", "mk"}, {"mah", "mh"},
    {"mal", "ml"}, {"mao", "mi"}, {"mar", "mr"}, {"may", "ms"}, {"mkd", "mk"}, {"mlg", "mg"},
    {"mlt", "mt"}, {"mon", "mn"}, {"mri", "mi"}, {"msa", "ms"}, {"mya", "my"}, {"nau", "na"},
    {"nav", "nv"}, {"nbl", "nr"}, {"nde", "nd"}, {"ndo", "ng"}, {"nep", "ne"}, {"nld", "nl"},
    {"nno", "nn"}, {"nob", "nb"}, {"nor", "no"}, {"nya", "ny"}, {"oci", "oc"}, {"oji", "oj"},
    {"ori", "or"}, {"orm", "om"}, {"oss", "os"}, {"pan", "pa"}, {"per", "fa"}, {"pli", "pi"},
    {"pol", "pl"}, {"por", "pt"}, {"pus", "ps"}, {"que", "qu"}, {"roh", "rm"}, {"ron", "ro"},
    {"rum", "ro"}, {"run", "rn"}, {"rus", "ru"}, {"sag", "sg"}, {"san", "sa"}, {"sin", "si"},
    {"slk", "sk"}, {"slo", "sk"}, {"slv", "sl"}, {"sme", "se"}, {"smo", "sm"}, {"sna", "sn"},
    {"snd", "sd"}, {"som", "so"}, {"sot", "st"}, {"spa", "es"}, {"sqi", "sq"}, {"srd", "sc"},
    {"srp", "sr"}, {"ssw", "ss"}, {"sun", "su"}, {"swa", "sw"}, {"swe", "sv"}, {"tah", "ty"},
    {"tam", "ta"}, {"tat", "tt"}, {"tel", "te"}, {"tgk", "tg"}, {"tgl", "tl"}, {"tha", "th"},
    {"tib", "bo"}, {"tir", "ti"}, {"ton", "to"}, {"tsn", "tn"}, {"tso", "ts"}, {"tuk", "tk"},
    {"tur", "tr"}, {"twi", "tw"}, {"uig", "ug"}, {"ukr", "uk"}, {"urd", "ur"}, {"uzb", "uz"},
    {"ven", "ve"}, {"vie", "vi"}, {"vol", "vo"}, {"wel", "cy"}, {"wln", "wa"}, {"wol", "wo"},
    {"xho", "xh"}, {"yid", "yi"}, {"yor", "yo"}, {"zha", "za"}, {"zho", "zh"}, {"zul", "zu"},
};

bool all_of(std::string_view text, int (*is)(int)) {
  return std::all_of(text.begin(), text.end(),
                     [is](char c) { return is(static_cast<unsigned char>(c)) != 0; });
}
bool alpha(std::string_view s, size_t min, size_t max) {
  return s.size() >= min && s.size() <= max && all_of(s, isalpha);
}
bool alnum(std::string_view s, size_t min, size_t max) {
  return s.size() >= min && s.size() <= max && all_of(s, isalnum);
}
std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string_view> subtags_of(std::string_view tag) {
  std::vector<std::string_view> subtags;
  size_t from = 0;
  for (size_t i = 0; i <= tag.size(); ++i)
    if (i == tag.size() || tag[i] == '-' || tag[i] == '_') {
      subtags.push_back(tag.substr(from, i - from));
      from = i + 1;
    }
  return subtags;
}

std::string short_language(const std::string& language) {
  if (language.size() != 3) return language;
  auto found = std::lower_bound(
      std::begin(kShortCodes), std::end(kShortCodes), language,
      [](const Iso639& entry, const std::string& code) { return entry.three < code; });
  return found != std::end(kShortCodes) && language == found->three ? found->two : language;
}

// The subtags after the language (from `i`): script, region, variants, extensions, private
// use, in that order; false at the first that fits none.
bool canonical_rest(const std::vector<std::string_view>& subtags, size_t i, std::string& out) {
  auto next = [&] { return i < subtags.size() ? subtags[i] : std::string_view(); };
  if (alpha(next(), 4, 4)) {
    std::string script = lower(subtags[i++]);
    script[0] = char(std::toupper(static_cast<unsigned char>(script[0])));
    out += "-" + script;
  }
  if (alpha(next(), 2, 2) || (next().size() == 3 && all_of(next(), isdigit)))
    out += "-" + upper(subtags[i++]);
  auto variant = [](std::string_view s) {
    return alnum(s, 5, 8) ||
           (s.size() == 4 && std::isdigit(static_cast<unsigned char>(s[0])) && alnum(s, 4, 4));
  };
  while (variant(next())) out += "-" + lower(subtags[i++]);
  // An extension (a singleton other than x) or private use (x), each with one subtag or more.
  while (next().size() == 1 && alnum(next(), 1, 1)) {
    bool private_use = lower(next()) == "x";
    out += "-" + lower(subtags[i++]);
    size_t min = private_use ? 1 : 2, taken = 0;
    while (alnum(next(), min, 8) && (private_use || next().size() > 1)) {
      out += "-" + lower(subtags[i++]);
      ++taken;
    }
    if (taken == 0) return false;
    if (private_use) break;
  }
  return i == subtags.size();
}

}  // namespace

std::optional<std::string> canonical_language(std::string_view tag) {
  std::vector<std::string_view> subtags = subtags_of(tag);
  if (!alpha(subtags[0], 2, 8)) return std::nullopt;
  std::string out = short_language(lower(subtags[0]));
  size_t i = 1;
  // Up to three extlang subtags follow a 2-3 letter language.
  for (int extlang = 0;
       extlang < 3 && subtags[0].size() <= 3 && i < subtags.size() && alpha(subtags[i], 3, 3);
       ++extlang)
    out += "-" + lower(subtags[i++]);
  if (!canonical_rest(subtags, i, out)) return std::nullopt;
  return out;
}

}  // namespace tc::package
