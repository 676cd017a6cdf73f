#include "service/daemon/webhook_url.h"

#include <curl/curl.h>

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
  std::unique_ptr<CURLU, UrlFree> parsed(curl_url());
  if (!parsed) return {Code::kInternal, "cannot set up libcurl's URL parser"};
  // No default scheme: "example.com/hook" is refused rather than guessed.
  if (curl_url_set(parsed.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
    return {Code::kInvalidArgument, "not a URL: expected http://HOST/... or https://HOST/..."};
  std::string scheme = part_of(parsed.get(), CURLUPART_SCHEME);
  if (scheme != "http" && scheme != "https")
    return {Code::kInvalidArgument, "scheme " + scheme + ": only http and https are allowed"};
  if (part_of(parsed.get(), CURLUPART_HOST).empty()) return {Code::kInvalidArgument, "no host"};
  return {};
}

}  // namespace tc::daemon
