// Usage you can bill (docs/tenants.md, Usage): the one measurement of an attempt's use, and the
// WHEN of `transcode usage --since/--until`.
#include <gtest/gtest.h>

#include "service/client/usage_command.h"
#include "service/daemon/model/attempt_usage.h"

using namespace tc;
using namespace tc::daemon;

namespace {

metrics::EngineUsage average(double interval_s, double cpu_cores) {
  metrics::EngineUsage usage;
  usage.available = true;
  usage.interval_s = interval_s;
  usage.cpu_cores = cpu_cores;
  return usage;
}

TEST(MeasuredUsage, EngineSecondsAreBusyShareTimesEnginesTimesTheRun) {
  metrics::EngineUsage usage = average(10, 1.5);
  usage.engines = {{"video", "video", 50, 2}, {"render", "render", 10, 1}};
  ResourceSeconds used = measured_usage(usage);
  EXPECT_DOUBLE_EQ(used.at("cpu"), 15.0);    // 1.5 cores for 10 s
  EXPECT_DOUBLE_EQ(used.at("video"), 10.0);  // two engines half busy for 10 s
  EXPECT_DOUBLE_EQ(used.at("render"), 1.0);
  EXPECT_EQ(used.size(), 3u);
}

TEST(MeasuredUsage, WithoutEngineFiguresOnlyTheCpuIsBilled) {
  metrics::EngineUsage usage = average(4, 2);
  usage.available = false;  // a software job: no DRM file descriptor
  usage.engines = {{"video", "video", 80, 1}};
  EXPECT_EQ(measured_usage(usage), (ResourceSeconds{{"cpu", 8.0}}));
}

TEST(MeasuredUsage, AnAttemptEndedBeforeItsFirstSampleUsedZeroNotNothing) {
  EXPECT_EQ(measured_usage(metrics::EngineUsage{}), (ResourceSeconds{{"cpu", 0.0}}));
}

TEST(MeasuredUsage, AddingSumsResourceByResource) {
  ResourceSeconds total{{"cpu", 1.0}, {"video", 2.0}};
  add_usage(total, {{"cpu", 0.5}, {"nvenc", 3.0}});
  EXPECT_EQ(total, (ResourceSeconds{{"cpu", 1.5}, {"nvenc", 3.0}, {"video", 2.0}}));
}

constexpr int64_t kNow = 1796515200000;  // 2026-12-06T00:00:00Z

TEST(UsageWhen, ADurationIsBackFromNow) {
  EXPECT_EQ(*client::parse_when("--since", "24h", kNow), kNow - 86400000);
  EXPECT_EQ(*client::parse_when("--since", "7d", kNow), kNow - 7 * 86400000LL);
  EXPECT_EQ(*client::parse_when("--since", "30m", kNow), kNow - 1800000);
  EXPECT_EQ(*client::parse_when("--since", "90s", kNow), kNow - 90000);
}

TEST(UsageWhen, AnRfc3339TimeIsThatInstant) {
  EXPECT_EQ(*client::parse_when("--until", "2026-12-06T00:00:00Z", 0), kNow);
  EXPECT_EQ(*client::parse_when("--until", "2026-12-06T01:00:00+01:00", 0), kNow);
}

TEST(UsageWhen, AnythingElseIsRefusedNamingTheFlagAndTheText) {
  // Durations reaching before 1970 too: 9223372036854775807d would overflow the subtraction.
  for (const char* text : {"", "yesterday", "7", "d", "-1h", "7w", "2026-12-06", "1.5h",
                           "9223372036854775807d", "20794d"}) {
    Result<int64_t> when = client::parse_when("--since", text, kNow);
    ASSERT_FALSE(when.is_ok()) << text;
    EXPECT_EQ(when.status().code(), Code::kInvalidArgument);
    EXPECT_NE(when.status().message().find(std::string("--since '") + text + "'"),
              std::string::npos)
        << when.status().message();
  }
}

}  // namespace
