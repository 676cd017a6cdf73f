#include "service/client/usage_command.h"

#include <google/protobuf/util/time_util.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>

#include "service/client/job_view.h"
#include "service/common/exit_codes.h"
#include "transcode/v1/transcoder.grpc.pb.h"

namespace tc::client {
namespace {

using google::protobuf::util::TimeUtil;

int64_t unit_ms(char unit) {
  switch (unit) {
    case 's':
      return 1000;
    case 'm':
      return 60 * 1000;
    case 'h':
      return 3600 * 1000;
    case 'd':
      return 86400 * 1000;
  }
  return 0;
}

// "cpu" first, then the engine classes by name: a line each.
void print_tenant(const pb::TenantUsage& entry) {
  std::printf("%-24s %-16s %14.3f\n", entry.tenant().c_str(), "cpu", entry.usage().cpu_seconds());
  std::map<std::string, double> engines(entry.usage().engine_seconds().begin(),
                                        entry.usage().engine_seconds().end());
  for (const auto& [engine, seconds] : engines)
    std::printf("%-24s %-16s %14.3f\n", entry.tenant().c_str(), engine.c_str(), seconds);
}

std::string time_of(int64_t ms) {
  return TimeUtil::ToString(TimeUtil::MillisecondsToTimestamp(ms));
}

}  // namespace

Result<int64_t> parse_when(const std::string& flag, const std::string& text, int64_t now_ms) {
  auto bad = [&] {
    return Status(Code::kInvalidArgument,
                  flag + " '" + text +
                      "': not an RFC 3339 time (2026-12-01T00:00:00Z) nor a duration back "
                      "from now (90s, 30m, 24h, 7d)");
  };
  if (text.size() >= 2 && unit_ms(text.back()) > 0) {
    int64_t count = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size() - 1, count);
    // Back no further than 1970: a larger count would overflow the subtraction.
    if (error != std::errc() || end != text.data() + text.size() - 1 || count < 0 ||
        count > now_ms / unit_ms(text.back()))
      return bad();
    return now_ms - count * unit_ms(text.back());
  }
  google::protobuf::Timestamp when;
  if (!TimeUtil::FromString(text, &when)) return bad();
  return TimeUtil::TimestampToMilliseconds(when);
}

int usage_command(const UsageArgs& args, const Connection& connection) {
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  pb::GetUsageRequest request;
  request.set_tenant(args.tenant);
  for (auto [flag, text, set] :
       {std::tuple{"--since", &args.since, &pb::GetUsageRequest::set_since_ms},
        std::tuple{"--until", &args.until, &pb::GetUsageRequest::set_until_ms}}) {
    if (text->empty()) continue;
    Result<int64_t> when = parse_when(flag, *text, now);
    if (!when.is_ok()) {
      std::fprintf(stderr, "transcode usage: %s\n", when.status().message().c_str());
      return kExitUsage;
    }
    (request.*set)(*when);
  }
  grpc::ClientContext context;
  prepare_context(context, connection);
  pb::GetUsageResponse reply;
  grpc::Status status =
      pb::Transcoder::NewStub(make_channel(connection))->GetUsage(&context, request, &reply);
  if (!status.ok()) return rpc_failure(status);
  if (args.json) {
    std::cout << to_json(reply);
    return kExitOk;
  }
  std::printf("usage from %s to %s\n", time_of(reply.since_ms()).c_str(),
              time_of(reply.until_ms()).c_str());
  std::printf("%-24s %-16s %14s\n", "TENANT", "RESOURCE", "SECONDS");
  for (const pb::TenantUsage& entry : reply.tenants()) print_tenant(entry);
  return kExitOk;
}

}  // namespace tc::client
