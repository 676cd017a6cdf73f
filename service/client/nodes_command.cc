// `transcode nodes`: every daemon sharing the job store, with its devices, free slots, running
// jobs and last heartbeat.
#include <google/protobuf/util/time_util.h>

#include <cstdio>
#include <iostream>

#include "service/client/commands.h"
#include "service/client/job_view.h"
#include "service/common/exit_codes.h"
#include "transcode/v1/transcoder.grpc.pb.h"

namespace tc::client {
namespace {

using google::protobuf::util::TimeUtil;

// "4s", "3m", "2h": how long ago, for people; a clock behind the store's reads as "0s".
std::string ago(const google::protobuf::Timestamp& when) {
  int64_t seconds = TimeUtil::DurationToSeconds(TimeUtil::GetCurrentTime() - when);
  if (seconds < 0) seconds = 0;
  if (seconds < 120) return std::to_string(seconds) + "s";
  if (seconds < 7200) return std::to_string(seconds / 60) + "m";
  return std::to_string(seconds / 3600) + "h";
}

void print_node(const pb::Node& node) {
  if (node.gone()) {
    std::printf("%s: gone (heartbeat %s ago)\n", node.id().c_str(),
                ago(node.heartbeat_time()).c_str());
    return;
  }
  std::string running;
  for (const std::string& id : node.running_jobs()) running += " " + id;
  std::printf("%s: heartbeat %s ago, up %s, %d free slots, running:%s\n", node.id().c_str(),
              ago(node.heartbeat_time()).c_str(), ago(node.start_time()).c_str(), node.free_slots(),
              running.empty() ? " -" : running.c_str());
  for (const pb::NodeDevice& d : node.devices())
    std::printf("  %s: %d of %d slots running, %s\n", d.name().c_str(), d.running(), d.slots(),
                capacity_text(d).c_str());
}

}  // namespace

int nodes_command(bool json, const Connection& connection) {
  grpc::ClientContext context;
  prepare_context(context, connection);
  pb::ListNodesResponse nodes;
  grpc::Status status = pb::Transcoder::NewStub(make_channel(connection))
                            ->ListNodes(&context, pb::ListNodesRequest(), &nodes);
  if (!status.ok()) return rpc_failure(status);
  if (json) {
    std::cout << to_json(nodes);
    return kExitOk;
  }
  for (const pb::Node& node : nodes.nodes()) print_node(node);
  return kExitOk;
}

}  // namespace tc::client
