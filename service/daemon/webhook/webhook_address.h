// Where a webhook may be POSTed (README, Webhooks): never to this machine, its cluster's private
// networks or a cloud's metadata service unless the operator allows it (webhook_allow). The
// check judges the address libcurl is about to connect to (webhook_sender.cc), not the URL's
// text, so 2130706433, 0177.0.0.1 or a name that resolves to 127.0.0.1 are judged as what they
// are, and a name resolved twice cannot pass with one address and connect to another.
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/status.h"

namespace tc::daemon {

// An address as 16 bytes: IPv6 as it is, IPv4 as ::ffff:a.b.c.d.
using IpBytes = std::array<uint8_t, 16>;

struct IpNet {
  IpBytes base{};
  int prefix = 0;  // of the 128 bits (an IPv4 /8 is 104)
  bool contains(const IpBytes& address) const;
};

// The operator's webhook_allow: CIDRs (or single addresses) and host names.
struct WebhookAllow {
  std::vector<IpNet> nets;
  std::vector<std::string> hosts;  // lowercase; a URL with this host goes wherever it resolves
  bool allows_host(const std::string& host) const;
};

// kInvalidArgument naming the entry that is neither an address, a CIDR nor a host name.
Result<WebhookAllow> parse_webhook_allow(const std::vector<std::string>& entries);

// Why no webhook may go to `address` by default (loopback, private, link-local, ...), or
// nullopt when it is a public address. IPv4 inside IPv6 (mapped, NAT64, 6to4) is judged as
// the IPv4 address it carries.
std::optional<std::string> forbidden_range(const IpBytes& address);

// The same for a socket address; other families than IPv4 and IPv6 are refused.
std::optional<std::string> refusal_for(const sockaddr* address, const WebhookAllow& allow);

// The address in text, for messages.
std::string address_text(const IpBytes& address);

}  // namespace tc::daemon
