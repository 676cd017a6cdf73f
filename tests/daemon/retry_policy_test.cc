// The retry backoff (model/retry_policy.h): which failures run again, and after how long.
#include <gtest/gtest.h>

#include "service/daemon/model/retry_policy.h"

using namespace tc;
using namespace tc::daemon;

TEST(RetryPolicy, ARetryableFailureRunsAgainWhileAttemptsAreLeft) {
  RetryPolicy policy{3, 10, 300};
  Status crashed(Code::kInternal, "worker crashed: killed by signal 11 (SIGSEGV)", true);
  EXPECT_TRUE(should_retry(policy, crashed, 1));
  EXPECT_TRUE(should_retry(policy, crashed, 2));
  EXPECT_FALSE(should_retry(policy, crashed, 3));  // max_attempts runs in all
  EXPECT_FALSE(should_retry(policy, Status(Code::kInput, "moov atom not found"), 1));
  EXPECT_FALSE(should_retry(policy, Status(), 1));
}

TEST(RetryPolicy, TheDelayDoublesFromTheBaseUpToTheCap) {
  RetryPolicy policy{20, 10, 300};
  EXPECT_EQ(retry_delay_ms(policy, 1), 10000);
  EXPECT_EQ(retry_delay_ms(policy, 2), 20000);
  EXPECT_EQ(retry_delay_ms(policy, 3), 40000);
  EXPECT_EQ(retry_delay_ms(policy, 5), 160000);
  EXPECT_EQ(retry_delay_ms(policy, 6), 300000);
  EXPECT_EQ(retry_delay_ms(policy, 19), 300000);
}
