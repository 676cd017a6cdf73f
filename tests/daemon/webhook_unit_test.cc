// Webhooks' pieces on their own: the signature (RFC 4231's HMAC-SHA256 vectors, Standard
// Webhooks' example), the backoff between tries and when it gives up, which URLs a job may
// carry, and which addresses a webhook may reach (no traffic: the check is a pure function).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>

#include "service/daemon/api/proto_convert.h"
#include "service/daemon/config.h"
#include "service/daemon/webhook/webhook_address.h"
#include "service/daemon/webhook/webhook_backoff.h"
#include "service/daemon/webhook/webhook_pool.h"
#include "service/daemon/webhook/webhook_signer.h"
#include "service/daemon/webhook/webhook_url.h"
#include "tests/support/media_tools.h"

using namespace tc;
using namespace tc::daemon;

TEST(WebhookSigner, MatchesRfc4231TestCases) {
  // Test case 1: a 20-byte key of 0x0b.
  EXPECT_EQ(hmac_sha256_hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  // Test case 2: a key shorter than the block.
  EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // Test case 6: a key longer than the block (hashed first).
  EXPECT_EQ(hmac_sha256_hex(std::string(131, '\xaa'),
                            "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

// Standard Webhooks' own example (standard-webhooks' libraries' tests): this secret, id,
// timestamp and body sign to this value.
TEST(WebhookSigner, SignsIdTimestampAndBodyAsStandardWebhooks) {
  Result<std::string> key = webhook_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
  ASSERT_TRUE(key.is_ok());
  EXPECT_EQ(webhook_signature({*key}, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330,
                              R"({"test": 2432232314})"),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
}

TEST(WebhookSigner, SignsWithBothSecretsWhileRotating) {
  std::string both = webhook_signature({"old", "new"}, "d-1", 1700000000, "{}");
  EXPECT_EQ(both, webhook_signature({"old"}, "d-1", 1700000000, "{}") + " " +
                      webhook_signature({"new"}, "d-1", 1700000000, "{}"));
  // The id and the timestamp are signed: changing either changes the signature.
  EXPECT_NE(webhook_signature({"k"}, "d-1", 1700000000, "{}"),
            webhook_signature({"k"}, "d-2", 1700000000, "{}"));
  EXPECT_NE(webhook_signature({"k"}, "d-1", 1700000000, "{}"),
            webhook_signature({"k"}, "d-1", 1700000001, "{}"));
}

TEST(WebhookSigner, TakesWhsecBase64OrPlainSecrets) {
  EXPECT_EQ(*webhook_key("whsec_aGVsbG8="), "hello");
  EXPECT_EQ(*webhook_key("whsec_aGk="), "hi");
  EXPECT_EQ(*webhook_key("plain-secret"), "plain-secret");
  EXPECT_EQ(webhook_key("whsec_not*base64").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(webhook_key("whsec_").status().code(), Code::kInvalidArgument);
}

// A tenant's secret (docs/tenants.md, Webhooks): the convention's form, a 32-byte key, and
// never the same twice.
TEST(WebhookSigner, MakesWhsecSecretsOf32RandomBytes) {
  Result<std::string> first = make_webhook_secret(), second = make_webhook_secret();
  ASSERT_TRUE(first.is_ok() && second.is_ok());
  EXPECT_EQ(first->rfind("whsec_", 0), 0u) << *first;
  Result<std::string> key = webhook_key(*first);
  ASSERT_TRUE(key.is_ok()) << key.status().message();
  EXPECT_EQ(key->size(), 32u);
  EXPECT_NE(*first, *second);
}

TEST(WebhookBackoff, DoublesFromOneSecondUpToFiveMinutes) {
  WebhookBackoff backoff;
  EXPECT_EQ(backoff.delay_ms(1), 1000);
  EXPECT_EQ(backoff.delay_ms(2), 2000);
  EXPECT_EQ(backoff.delay_ms(3), 4000);
  EXPECT_EQ(backoff.delay_ms(9), 256000);
  EXPECT_EQ(backoff.delay_ms(10), 300000);
  EXPECT_EQ(backoff.delay_ms(29), 300000);
  EXPECT_EQ(backoff.next_due_ms(3, 0, 10000), 14000);
}

TEST(WebhookBackoff, GivesUpAfterMaxAttemptsOrADay) {
  WebhookBackoff backoff;
  EXPECT_TRUE(backoff.next_due_ms(backoff.max_attempts - 1, 0, 1000).has_value());
  EXPECT_FALSE(backoff.next_due_ms(backoff.max_attempts, 0, 1000).has_value());
  int64_t day = 24LL * 3600 * 1000;
  EXPECT_TRUE(backoff.next_due_ms(12, 0, day - 300000).has_value());
  EXPECT_FALSE(backoff.next_due_ms(12, 0, day - 1000).has_value());
}

TEST(WebhookUrl, TakesHttpAndHttpsWithAHost) {
  EXPECT_TRUE(check_webhook_url("http://127.0.0.1:8080/hook").is_ok());
  EXPECT_TRUE(check_webhook_url("https://hooks.example.com/t?x=1").is_ok());
  EXPECT_TRUE(check_webhook_url("HTTPS://hooks.example.com/").is_ok());
}

TEST(WebhookUrl, RefusesOtherSchemesNoSchemeAndOverlongUrls) {
  Status ftp = check_webhook_url("ftp://hooks.example.com/");
  EXPECT_EQ(ftp.code(), Code::kInvalidArgument);
  EXPECT_NE(ftp.message().find("ftp"), std::string::npos) << ftp.message();
  EXPECT_EQ(check_webhook_url("file:///etc/passwd").code(), Code::kInvalidArgument);
  EXPECT_EQ(check_webhook_url("hooks.example.com/x").code(), Code::kInvalidArgument);
  EXPECT_EQ(check_webhook_url("http://").code(), Code::kInvalidArgument);
  EXPECT_EQ(check_webhook_url("http://exa mple.com/").code(), Code::kInvalidArgument);
  Status long_url = check_webhook_url("https://h.example/" + std::string(kMaxWebhookUrlBytes, 'a'));
  EXPECT_EQ(long_url.code(), Code::kInvalidArgument);
  EXPECT_NE(long_url.message().find("2048"), std::string::npos) << long_url.message();
}

TEST(WebhookUrl, RefusesCredentialsNulAndNoHostWithoutEchoingThem) {
  Status credentials = check_webhook_url("https://alice:s3cret@hooks.example.com/");
  EXPECT_EQ(credentials.code(), Code::kInvalidArgument);
  EXPECT_EQ(credentials.message().find("s3cret"), std::string::npos) << credentials.message();
  EXPECT_EQ(check_webhook_url("https://alice@hooks.example.com/").code(), Code::kInvalidArgument);
  EXPECT_EQ(check_webhook_url(std::string("http://hooks.example.com/\0x", 28)).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(check_webhook_url("http:///x").code(), Code::kInvalidArgument);
  EXPECT_EQ(check_webhook_url("http:/x").code(), Code::kInvalidArgument);
}

namespace {

IpBytes address(const char* text) {
  Result<WebhookAllow> parsed = parse_webhook_allow({text});
  EXPECT_TRUE(parsed.is_ok() && parsed->nets.size() == 1) << text;
  return parsed->nets.at(0).base;
}

}  // namespace

TEST(WebhookAddress, RefusesLocalPrivateAndSpecialIpv4) {
  for (const char* text :
       {"127.0.0.1", "127.255.0.9", "0.0.0.0", "0.1.2.3", "10.1.2.3", "172.16.0.1",
        "172.31.255.255", "192.168.1.1", "100.64.0.1", "100.127.255.254", "169.254.169.254",
        "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255"})
    EXPECT_TRUE(forbidden_range(address(text))) << text;
  for (const char* text : {"8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "192.169.0.1",
                           "169.255.0.1", "223.255.255.255", "11.0.0.1"})
    EXPECT_FALSE(forbidden_range(address(text))) << text;
}

TEST(WebhookAddress, RefusesLocalPrivateAndSpecialIpv6AndTheIpv4TheyCarry) {
  for (const char* text :
       {"::1", "::", "fe80::1", "febf::1", "fc00::1", "fd12:3456::1", "ff02::1", "2001:db8::1",
        "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::ffff:10.0.0.1", "64:ff9b::7f00:1",
        "64:ff9b::a9fe:a9fe", "2002:7f00:1::", "::127.0.0.1", "fec0::1"})
    EXPECT_TRUE(forbidden_range(address(text))) << text;
  for (const char* text : {"2606:4700::1111", "2a00:1450::1", "::ffff:8.8.8.8", "64:ff9b::808:808"})
    EXPECT_FALSE(forbidden_range(address(text))) << text;
}

TEST(WebhookAddress, JudgesTheSocketAddressSoEveryFormOfAnAddressIsTheSame) {
  // 2130706433, 0177.0.0.1, 0x7f.1 and 127.1 all reach 127.0.0.1: what the resolver hands
  // libcurl is this sockaddr, and that is what is judged.
  sockaddr_in v4{};
  v4.sin_family = AF_INET;
  v4.sin_addr.s_addr = htonl(2130706433);
  std::optional<std::string> why = refusal_for(reinterpret_cast<sockaddr*>(&v4), {});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("127.0.0.1 is loopback"), std::string::npos) << *why;
  sockaddr_in6 v6{};
  v6.sin6_family = AF_INET6;
  v6.sin6_addr = in6addr_loopback;
  EXPECT_TRUE(refusal_for(reinterpret_cast<sockaddr*>(&v6), {}));
  sockaddr unix_socket{};
  unix_socket.sa_family = AF_UNIX;
  EXPECT_TRUE(refusal_for(&unix_socket, {}));
}

TEST(WebhookAddress, TheAllowListOpensCidrsAndHostNames) {
  Result<WebhookAllow> allow =
      parse_webhook_allow({"127.0.0.1/32", "10.20.0.0/16", "fd00::/8", "Hooks.Internal"});
  ASSERT_TRUE(allow.is_ok());
  auto judged = [&](const char* text) {
    sockaddr_in6 v6{};
    v6.sin6_family = AF_INET6;
    IpBytes bytes = address(text);
    std::memcpy(&v6.sin6_addr, bytes.data(), 16);
    return refusal_for(reinterpret_cast<sockaddr*>(&v6), *allow);
  };
  EXPECT_FALSE(judged("127.0.0.1"));
  EXPECT_TRUE(judged("127.0.0.2"));
  EXPECT_FALSE(judged("10.20.3.4"));
  EXPECT_TRUE(judged("10.21.3.4"));
  EXPECT_FALSE(judged("fd12::1"));
  EXPECT_TRUE(judged("169.254.169.254"));
  EXPECT_TRUE(allow->allows_host("hooks.internal"));
  EXPECT_FALSE(allow->allows_host("other.internal"));
  for (const char* bad : {"10.0.0.0/33", "::/129", "10.0.0.0/x", "http://x", "a b", ""})
    EXPECT_EQ(parse_webhook_allow({bad}).status().code(), Code::kInvalidArgument) << bad;
}

TEST(WebhookUrl, IsShownWithoutCredentials) {
  EXPECT_EQ(webhook_url_shown("https://alice:s3cret@hooks.example.com/t?x=1"),
            "https://hooks.example.com/t?x=1");
  EXPECT_EQ(webhook_url_shown("https://hooks.example.com:8443/t"),
            "https://hooks.example.com:8443/t");
  EXPECT_EQ(webhook_url_shown(""), "");
}

// A job stored before credentials were refused: GetJob, ListJobs and the webhook body (the
// same conversion) never show them.
TEST(WebhookUrl, AJobsCredentialsAreNeverShown) {
  JobRecord job;
  job.id = "j-1";
  job.webhook_url = "https://alice:s3cret@hooks.example.com/t";
  pb::Job shown;
  job_to_proto(job, &shown);
  EXPECT_EQ(shown.webhook_url(), "https://hooks.example.com/t");
  EXPECT_EQ(job_json(job).find("s3cret"), std::string::npos);
}

TEST(WebhookUrl, NamesTheReceiverWithItsPort) {
  EXPECT_EQ(webhook_receiver("http://Hooks.Example.com/a?b"), "http://hooks.example.com:80");
  EXPECT_EQ(webhook_receiver("https://hooks.example.com:8443/"), "https://hooks.example.com:8443");
  EXPECT_EQ(webhook_receiver("https://hooks.example.com/"), "https://hooks.example.com:443");
}

namespace {

Notification notice_to(int64_t id, const std::string& url) {
  Notification notice;
  notice.id = id;
  notice.url = url;
  return notice;
}

// What the pool's threads are doing: which notices are being sent, and a latch per receiver
// that the test opens.
struct Sends {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<int64_t> started, finished;
  std::map<std::string, bool> open;  // by URL; closed ones hold their POSTs

  void send(const Notification& notice) {
    std::unique_lock lock(mutex);
    started.push_back(notice.id);
    changed.notify_all();
    changed.wait(lock, [&] { return open[notice.url]; });
    finished.push_back(notice.id);
    changed.notify_all();
  }
  template <typename Done>
  void wait(Done done) {
    std::unique_lock lock(mutex);
    changed.wait(lock, done);
  }
  void release(const std::string& url) {
    std::lock_guard lock(mutex);
    open[url] = true;
    changed.notify_all();
  }
};

bool has(const std::vector<int64_t>& ids, int64_t id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

}  // namespace

TEST(WebhookPool, AHeldReceiverTakesAtMostItsShareAndDelaysNoOtherReceiver) {
  Sends sends;
  const std::string slow = "http://slow.example/", other = "http://other.example/";
  sends.open[slow] = false;
  sends.open[other] = true;
  {
    WebhookPool pool({.threads = 4, .per_receiver = 2, .max_waiting = 100},
                     [&](const Notification& notice) { sends.send(notice); });
    for (int64_t id = 1; id <= 3; ++id) ASSERT_TRUE(pool.add(notice_to(id, slow)));
    EXPECT_FALSE(pool.add(notice_to(1, slow)));  // claimed again: taken once
    sends.wait([&] { return has(sends.started, 1) && has(sends.started, 2); });
    ASSERT_TRUE(pool.add(notice_to(10, other)));
    ASSERT_TRUE(pool.add(notice_to(11, other)));
    // The other receiver's notices finish while two of the slow one's are still held.
    sends.wait([&] { return has(sends.finished, 10) && has(sends.finished, 11); });
    {
      std::lock_guard lock(sends.mutex);
      EXPECT_EQ(sends.finished.size(), 2u);
      EXPECT_FALSE(has(sends.started, 3));  // the slow receiver's third waits its turn
    }
    sends.release(slow);
    sends.wait([&] { return sends.finished.size() == 5; });
  }
  EXPECT_TRUE(has(sends.finished, 3));
}

TEST(WebhookConfig, TakesTheAllowListFromYamlOrFlagsAndTwoSecretsToRotate) {
  tc::testing::TempDir dir;
  std::string secrets = dir.file("secret", "whsec_bmV3\nold-secret\n");
  std::string yaml = dir.file("d.yaml", "webhook_secret_file: " + secrets +
                                            "\nwebhook_allow: [10.20.0.0/16, hooks.internal]\n");
  bool help = false;
  Result<DaemonConfig> c = load_config({"--config", yaml}, help);
  ASSERT_TRUE(c.is_ok()) << c.status().message();
  ASSERT_TRUE(finish_config(*c).is_ok());
  EXPECT_EQ(c->webhook_allow, (std::vector<std::string>{"10.20.0.0/16", "hooks.internal"}));
  EXPECT_EQ(c->webhook_keys, (std::vector<std::string>{"new", "old-secret"}));
  c = load_config({"--webhook-allow", "127.0.0.1/32", "--webhook-allow", "::1"}, help);
  ASSERT_TRUE(c.is_ok()) << c.status().message();
  EXPECT_EQ(c->webhook_allow, (std::vector<std::string>{"127.0.0.1/32", "::1"}));
  Result<DaemonConfig> bad = load_config({"--webhook-allow", "10.0.0.0/33"}, help);
  ASSERT_TRUE(bad.is_ok());
  Status refused = finish_config(*bad);
  EXPECT_EQ(refused.code(), Code::kInvalidArgument);
  EXPECT_NE(refused.message().find("webhook_allow"), std::string::npos) << refused.message();
  std::string three = dir.file("three", "a\nb\nc\n");
  Result<DaemonConfig> rotating = load_config({"--webhook-secret-file", three}, help);
  ASSERT_TRUE(rotating.is_ok());
  EXPECT_EQ(finish_config(*rotating).code(), Code::kInvalidArgument);
}
