// Which webhook URLs a job may carry: http:// or https:// with a host, as libcurl parses it (the
// parser that will send to it), at most kMaxWebhookUrlBytes, without credentials (user:pass@ would
// be stored and shown by GetJob) or NUL. Where it may go is judged at delivery
// (webhook_address.h).
#pragma once

#include <string>

#include "pipeline/core/status.h"

namespace tc::daemon {

inline constexpr size_t kMaxWebhookUrlBytes = 2048;

// kInvalidArgument saying what is wrong with `url` (the caller names the field).
Status check_webhook_url(const std::string& url);

// The host of a URL that passed the check, as libcurl reads it (lowercase for a name), or "".
std::string webhook_url_host(const std::string& url);

// `url` as GetJob, ListJobs and webhook bodies show it: without any user:password@ (a job stored
// before such URLs were refused keeps its URL, but never shows its credentials).
std::string webhook_url_shown(const std::string& url);

// Who receives at `url`: "scheme://host:port" (the port filled in), what the delivery bounds
// POSTs in flight by.
std::string webhook_receiver(const std::string& url);

}  // namespace tc::daemon
