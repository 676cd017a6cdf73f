#include "service/daemon/webhook/webhook_sender.h"

#include <curl/curl.h>
#include <sys/socket.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>

#include "service/daemon/webhook/webhook_signer.h"
#include "service/daemon/webhook/webhook_url.h"

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

int64_t unix_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

CurlHeaders headers_for(const Notification& notice, const std::vector<std::string>& keys) {
  int64_t timestamp = unix_seconds();
  CurlHeaders headers;
  for (const std::string& line :
       {std::string("Content-Type: application/json"), "webhook-id: " + notice.delivery_id,
        "webhook-timestamp: " + std::to_string(timestamp),
        "webhook-signature: " + webhook_signature(keys, notice.delivery_id, timestamp, notice.body),
        std::string("Expect:")})  // no 100-continue round trip before the body
    headers.reset(curl_slist_append(headers.release(), line.c_str()));
  return headers;
}

// What the socket callback judges with, and the last address it refused.
struct Gate {
  const WebhookAllow* allow;
  bool host_allowed;  // the URL's host is in webhook_allow by name
  std::optional<std::string> refused;
};

// Called by libcurl with each address it resolved, just before it connects: the one place
// that sees the address actually reached. Refusing here fails that address only; libcurl tries
// the host's others.
curl_socket_t open_checked(void* gate_ptr, curlsocktype purpose, curl_sockaddr* address) {
  auto* gate = static_cast<Gate*>(gate_ptr);
  if (purpose == CURLSOCKTYPE_IPCXN && !gate->host_allowed) {
    if (auto why = refusal_for(&address->addr, *gate->allow)) {
      gate->refused = std::move(why);
      return CURL_SOCKET_BAD;
    }
  }
  return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

void set_transfer(CURL* c, const Notification& notice, curl_slist* headers, Gate* gate,
                  const WebhookTimeouts& timeouts) {
  curl_easy_setopt(c, CURLOPT_URL, notice.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_PROXY, "");  // not http_proxy & co. from the environment
  curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, open_checked);
  curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, gate);
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, notice.body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(notice.body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "transcoded");
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeouts.connect_ms);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeouts.total_ms);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: we are threaded
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
}

}  // namespace

Status post_notification(const Notification& notice, const WebhookTarget& target,
                         const WebhookTimeouts& timeouts) {
  static std::once_flag global;
  std::call_once(global, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  CurlHandle curl(curl_easy_init());
  CurlHeaders headers = headers_for(notice, target.keys);
  if (!curl || !headers) return {Code::kInternal, "webhook: cannot set up libcurl", true};
  Gate gate{&target.allow, target.allow.allows_host(webhook_url_host(notice.url)), std::nullopt};
  set_transfer(curl.get(), notice, headers.get(), &gate, timeouts);
  CURLcode rc = curl_easy_perform(curl.get());
  if (rc != CURLE_OK && gate.refused)
    return {Code::kOutput, "webhook: refused: " + *gate.refused, false};
  if (rc != CURLE_OK)
    return {Code::kOutput, std::string("webhook: ") + curl_easy_strerror(rc), true};
  long http_status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &http_status);
  if (http_status < 200 || http_status > 299)
    return {Code::kOutput, "webhook: the receiver answered HTTP " + std::to_string(http_status),
            true};
  return {};
}

}  // namespace tc::daemon
