#include "service/daemon/webhook/webhook_url.h"

#include <curl/curl.h>

#include <cctype>
#include <memory>

namespace tc::daemon {
namespace {

struct UrlFree {
  void operator()(CURLU* url) const { curl_url_cleanup(url); }
  void operator()(char* part) const { curl_free(part); }
};

// The part of `url`, empty when it has none.
std::string part_of(CURLU* url, CURLUPart which) {
  char* raw = nullptr;
  if (curl_url_get(url, which, &raw, 0) != CURLUE_OK) return "";
  std::unique_ptr<char, UrlFree> part(raw);
  return part.get();
}

}  // namespace

Status check_webhook_url(const std::string& url) {
  if (url.size() > kMaxWebhookUrlBytes)
    return {Code::kInvalidArgument,
            "longer than " + std::to_string(kMaxWebhookUrlBytes) + " bytes"};
  if (url.find('\0') != std::string::npos) return {Code::kInvalidArgument, "holds a NUL byte"};
  std::unique_ptr<CURLU, UrlFree> parsed(curl_url());
  if (!parsed) return {Code::kInternal, "cannot set up libcurl's URL parser"};
  // No default scheme: "example.com/hook" is refused rather than guessed.
  if (curl_url_set(parsed.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
    return {Code::kInvalidArgument, "not a URL: expected http://HOST/... or https://HOST/..."};
  std::string scheme = part_of(parsed.get(), CURLUPART_SCHEME);
  if (scheme != "http" && scheme != "https")
    return {Code::kInvalidArgument, "scheme " + scheme + ": only http and https are allowed"};
  // libcurl reads "http:///x" and "http:/x" as host x; a host must follow "//" as written.
  size_t slashes = url.find("://");
  if (part_of(parsed.get(), CURLUPART_HOST).empty() || slashes == std::string::npos ||
      url.size() == slashes + 3 || url[slashes + 3] == '/')
    return {Code::kInvalidArgument, "no host: expected http://HOST/..."};
  // Not echoed: the message must not repeat what it refuses to keep.
  if (!part_of(parsed.get(), CURLUPART_USER).empty() ||
      !part_of(parsed.get(), CURLUPART_PASSWORD).empty() ||
      !part_of(parsed.get(), CURLUPART_OPTIONS).empty())
    return {Code::kInvalidArgument,
            "credentials (user:password@) are not allowed in a webhook URL"};
  return {};
}

std::string webhook_url_shown(const std::string& url) {
  std::unique_ptr<CURLU, UrlFree> parsed(curl_url());
  if (!parsed || curl_url_set(parsed.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
    return url.find('@') == std::string::npos ? url : "";
  if (part_of(parsed.get(), CURLUPART_USER).empty() &&
      part_of(parsed.get(), CURLUPART_PASSWORD).empty() &&
      part_of(parsed.get(), CURLUPART_OPTIONS).empty())
    return url;
  for (CURLUPart part : {CURLUPART_USER, CURLUPART_PASSWORD, CURLUPART_OPTIONS})
    curl_url_set(parsed.get(), part, nullptr, 0);
  return part_of(parsed.get(), CURLUPART_URL);
}

std::string webhook_receiver(const std::string& url) {
  std::unique_ptr<CURLU, UrlFree> parsed(curl_url());
  if (!parsed || curl_url_set(parsed.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) return url;
  char* raw = nullptr;
  std::string port;
  if (curl_url_get(parsed.get(), CURLUPART_PORT, &raw, CURLU_DEFAULT_PORT) == CURLUE_OK) {
    std::unique_ptr<char, UrlFree> text(raw);
    port = text.get();
  }
  std::string host = part_of(parsed.get(), CURLUPART_HOST);
  for (char& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return part_of(parsed.get(), CURLUPART_SCHEME) + "://" + host + ":" + port;
}

std::string webhook_url_host(const std::string& url) {
  std::unique_ptr<CURLU, UrlFree> parsed(curl_url());
  if (!parsed || curl_url_set(parsed.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) return "";
  return part_of(parsed.get(), CURLUPART_HOST);
}

}  // namespace tc::daemon
