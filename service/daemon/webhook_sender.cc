#include "service/daemon/webhook_sender.h"

#include <curl/curl.h>

#include <memory>
#include <mutex>

#include "service/daemon/webhook_signer.h"

namespace tc::daemon {
namespace {

struct CurlFree {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using CurlHandle = std::unique_ptr<CURL, CurlFree>;
using CurlHeaders = std::unique_ptr<curl_slist, CurlFree>;

// The receiver's answer is not read: only its status counts.
size_t discard(char*, size_t size, size_t count, void*) {
  return size * count;
}

CurlHeaders headers_for(const Notification& notice, const std::string& secret) {
  CurlHeaders headers;
  for (const std::string& line :
       {std::string("Content-Type: application/json"),
        "X-Transcoded-Signature: " + webhook_signature(secret, notice.body),
        "X-Transcoded-Delivery: " + notice.delivery_id, "X-Transcoded-Event: " + notice.event,
        std::string("Expect:")})  // no 100-continue round trip before the body
    headers.reset(curl_slist_append(headers.release(), line.c_str()));
  return headers;
}

}  // namespace

Status post_notification(const Notification& notice, const std::string& secret,
                         const WebhookTimeouts& timeouts) {
  static std::once_flag global;
  std::call_once(global, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  CurlHandle curl(curl_easy_init());
  CurlHeaders headers = headers_for(notice, secret);
  if (!curl || !headers) return {Code::kInternal, "webhook: cannot set up libcurl", true};
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, notice.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, notice.body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(notice.body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_USERAGENT, "transcoded");
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeouts.connect_ms);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeouts.total_ms);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: we are threaded
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK)
    return {Code::kOutput, std::string("webhook: ") + curl_easy_strerror(rc), true};
  long http_status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &http_status);
  if (http_status < 200 || http_status > 299)
    return {Code::kOutput, "webhook: the receiver answered HTTP " + std::to_string(http_status),
            true};
  return {};
}

}  // namespace tc::daemon
