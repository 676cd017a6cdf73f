// API keys (model/tenant.h): the form a user is shown, what is stored, and the names a tenant
// may have.
#include <gtest/gtest.h>

#include <set>

#include "service/daemon/model/tenant.h"

using namespace tc;
using namespace tc::daemon;

TEST(ApiKey, AKeyIsShownWholeOnceAndStoredAsTheHashOfItsSecret) {
  Result<NewApiKey> key = make_api_key("team-a", 1234);
  ASSERT_TRUE(key.is_ok()) << key.status().message();
  std::optional<PresentedKey> parts = parse_api_key(key->full);
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->key_id, key->record.key_id);
  EXPECT_EQ(parts->secret.size(), 43u);  // 32 bytes, unpadded base64url
  EXPECT_EQ(key->full, "tck_" + parts->key_id + "_" + parts->secret);
  EXPECT_EQ(key->record.tenant, "team-a");
  EXPECT_EQ(key->record.created_ms, 1234);
  EXPECT_EQ(key->record.revoked_ms, 0);
  EXPECT_EQ(key->record.secret_sha256, secret_digest(parts->secret));
  EXPECT_EQ(key->full.find(key->record.secret_sha256), std::string::npos);
  EXPECT_TRUE(secret_matches(parts->secret, key->record.secret_sha256));
  EXPECT_FALSE(secret_matches(parts->secret.substr(1), key->record.secret_sha256));
}

TEST(ApiKey, KeysAreRandom) {
  std::set<std::string> ids, keys;
  for (int i = 0; i < 100; ++i) {
    Result<NewApiKey> key = make_api_key("t", 0);
    ASSERT_TRUE(key.is_ok());
    ids.insert(key->record.key_id);
    keys.insert(key->full);
  }
  EXPECT_EQ(ids.size(), 100u);
  EXPECT_EQ(keys.size(), 100u);
}

TEST(ApiKey, MalformedKeysAreNotParsed) {
  for (const char* text : {"", "tck_", "tck_abc", "tck_abc_", "tck__secret", "tck_XYZ_secret",
                           "Bearer tck_abc_secret", "tk_abc_secret"})
    EXPECT_FALSE(parse_api_key(text)) << text;
  // The secret's alphabet holds '_' and '-': everything after the key id is the secret.
  std::optional<PresentedKey> parts = parse_api_key("tck_0a1b_se_cr-et");
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->key_id, "0a1b");
  EXPECT_EQ(parts->secret, "se_cr-et");
}

TEST(TenantName, OnlyDnsLabelCharactersUpTo63) {
  EXPECT_TRUE(check_tenant_name("team-a", "id").is_ok());
  EXPECT_TRUE(check_tenant_name(std::string(63, 'a'), "id").is_ok());
  for (const std::string& bad :
       {std::string(), std::string(64, 'a'), std::string("Team"), std::string("team_a"),
        std::string("team a"), std::string("team/a"), std::string("t\xc3\xa9")}) {
    Status status = check_tenant_name(bad, "id");
    EXPECT_EQ(status.code(), Code::kInvalidArgument) << bad;
    EXPECT_NE(status.message().find("id: "), std::string::npos) << status.message();
  }
}

// A Caller is made by authentication (caller_auth.h); one made any other way (a handler that
// forgot to authenticate) is no tenant: it sees no job and lists none, rather than everything.
TEST(Caller, OneNotMadeByAuthenticationSeesAndListsNothing) {
  Caller nobody;
  EXPECT_FALSE(nobody.admin);
  EXPECT_FALSE(nobody.sees(kDefaultTenant));
  ASSERT_TRUE(nobody.list_scope().has_value());
  EXPECT_EQ(*nobody.list_scope(), "");

  Caller admin = Caller::default_admin();
  EXPECT_EQ(admin.tenant, kDefaultTenant);
  EXPECT_TRUE(admin.sees("team-a"));
  EXPECT_FALSE(admin.list_scope().has_value());

  Caller team{"team-a", false, {"/media/a"}};
  EXPECT_TRUE(team.sees("team-a"));
  EXPECT_FALSE(team.sees("team-b"));
  EXPECT_EQ(team.list_scope(), std::optional<std::string>("team-a"));
}
