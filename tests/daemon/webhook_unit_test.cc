// Webhooks' pieces on their own: the signature (RFC 4231's HMAC-SHA256 vectors), the backoff
// between tries and when it gives up, and which URLs a job may carry.
#include <gtest/gtest.h>

#include "service/daemon/webhook_backoff.h"
#include "service/daemon/webhook_signer.h"
#include "service/daemon/webhook_url.h"

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

TEST(WebhookSigner, HeaderValueNamesTheAlgorithm) {
  EXPECT_EQ(webhook_signature("Jefe", "what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
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
