#include "service/daemon/webhook/webhook_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace tc::daemon {
namespace {

IpBytes mapped_v4(const uint8_t v4[4]) {
  IpBytes bytes{};
  bytes[10] = bytes[11] = 0xff;
  std::memcpy(&bytes[12], v4, 4);
  return bytes;
}

// inet_pton only: the strict dotted quad and RFC 4291 text; no decimal or octal forms.
std::optional<IpNet> parse_address(const std::string& text, int v4_prefix, int v6_prefix) {
  uint8_t v4[4];
  if (inet_pton(AF_INET, text.c_str(), v4) == 1) return IpNet{mapped_v4(v4), 96 + v4_prefix};
  IpBytes v6{};
  if (inet_pton(AF_INET6, text.c_str(), v6.data()) == 1) return IpNet{v6, v6_prefix};
  return std::nullopt;
}

std::optional<IpNet> parse_net(const std::string& entry) {
  size_t slash = entry.find('/');
  if (slash == std::string::npos) return parse_address(entry, 32, 128);
  std::string bits = entry.substr(slash + 1);
  if (bits.empty() || bits.size() > 3 || !std::all_of(bits.begin(), bits.end(), ::isdigit))
    return std::nullopt;
  int prefix = std::stoi(bits);
  bool v4 = entry.find(':') == std::string::npos;
  if (prefix > (v4 ? 32 : 128)) return std::nullopt;
  return parse_address(entry.substr(0, slash), prefix, prefix);
}

bool is_host_name(const std::string& entry) {
  return !entry.empty() && entry.size() <= 253 &&
         std::all_of(entry.begin(), entry.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '.'; });
}

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

struct Range {
  const char* net;
  const char* why;
};

// The ranges refused by default, IPv4 ones as they appear mapped into IPv6.
const std::vector<std::pair<IpNet, const char*>>& forbidden() {
  static const Range kRanges[] = {
      {"0.0.0.0/8", "unspecified (this host)"},
      {"10.0.0.0/8", "private"},
      {"100.64.0.0/10", "shared address space (CGNAT)"},
      {"127.0.0.0/8", "loopback"},
      {"169.254.0.0/16", "link-local (cloud metadata)"},
      {"172.16.0.0/12", "private"},
      {"192.168.0.0/16", "private"},
      {"224.0.0.0/4", "multicast"},
      {"240.0.0.0/4", "reserved or broadcast"},
      {"::/128", "unspecified"},
      {"::1/128", "loopback"},
      {"::/96", "IPv4-compatible (deprecated)"},
      {"64:ff9b:1::/48", "local-use NAT64"},
      {"fc00::/7", "unique local (private)"},
      {"fe80::/10", "link-local"},
      {"fec0::/10", "site-local (deprecated)"},
      {"ff00::/8", "multicast"},
      {"2001:db8::/32", "documentation"},
  };
  static const auto* table = [] {
    auto* nets = new std::vector<std::pair<IpNet, const char*>>;
    for (const Range& range : kRanges) nets->emplace_back(*parse_net(range.net), range.why);
    return nets;
  }();
  return *table;
}

// The IPv4 address a NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address carries.
std::optional<IpBytes> embedded_v4(const IpBytes& address) {
  static const IpNet nat64 = *parse_net("64:ff9b::/96");
  static const IpNet six_to_four = *parse_net("2002::/16");
  if (nat64.contains(address)) return mapped_v4(&address[12]);
  if (six_to_four.contains(address)) return mapped_v4(&address[2]);
  return std::nullopt;
}

}  // namespace

bool IpNet::contains(const IpBytes& address) const {
  int whole = prefix / 8;
  if (!std::equal(base.begin(), base.begin() + whole, address.begin())) return false;
  int rest = prefix % 8;
  if (rest == 0) return true;
  uint8_t mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (base[whole] & mask) == (address[whole] & mask);
}

bool WebhookAllow::allows_host(const std::string& host) const {
  return std::find(hosts.begin(), hosts.end(), lowercase(host)) != hosts.end();
}

Result<WebhookAllow> parse_webhook_allow(const std::vector<std::string>& entries) {
  WebhookAllow allow;
  for (const std::string& entry : entries) {
    if (std::optional<IpNet> net = parse_net(entry)) {
      allow.nets.push_back(*net);
    } else if (entry.find_first_of("/:") == std::string::npos && is_host_name(entry)) {
      allow.hosts.push_back(lowercase(entry));
    } else {
      return Status{Code::kInvalidArgument,
                    "webhook_allow: '" + entry + "' is neither a CIDR, an address nor a host name"};
    }
  }
  return allow;
}

std::optional<std::string> forbidden_range(const IpBytes& address) {
  if (std::optional<IpBytes> v4 = embedded_v4(address)) {
    if (std::optional<std::string> why = forbidden_range(*v4)) return "carries " + *why;
    return std::nullopt;
  }
  for (const auto& [net, why] : forbidden())
    if (net.contains(address)) return std::string(why);
  return std::nullopt;
}

std::optional<std::string> refusal_for(const sockaddr* address, const WebhookAllow& allow) {
  IpBytes bytes{};
  if (address->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
    bytes = mapped_v4(reinterpret_cast<const uint8_t*>(&v4->sin_addr));
  } else if (address->sa_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
    std::memcpy(bytes.data(), &v6->sin6_addr, 16);
  } else {
    return "not an IPv4 or IPv6 address";
  }
  for (const IpNet& net : allow.nets)
    if (net.contains(bytes)) return std::nullopt;
  std::optional<std::string> why = forbidden_range(bytes);
  if (!why) return std::nullopt;
  return address_text(bytes) + " is " + *why + "; webhook_allow can open it";
}

std::string address_text(const IpBytes& address) {
  static const IpNet v4_mapped = *parse_net("::ffff:0:0/96");
  char text[INET6_ADDRSTRLEN];
  if (v4_mapped.contains(address))
    inet_ntop(AF_INET, &address[12], text, sizeof text);
  else
    inet_ntop(AF_INET6, address.data(), text, sizeof text);
  return text;
}

}  // namespace tc::daemon
