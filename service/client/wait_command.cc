// `transcode wait ID...`: one channel, a WatchJob stream per job read on its own thread, so
// waiting on forty jobs costs one process and one connection, not forty.
#include <cstdio>
#include <iostream>
#include <mutex>
#include <thread>

#include "service/client/commands.h"
#include "service/client/job_view.h"
#include "service/common/exit_codes.h"
#include "transcode/v1/transcoder.grpc.pb.h"

namespace tc::client {
namespace {

// One job's end: its last state, or the RPC's failure.
struct Ended {
  grpc::Status status;
  pb::Job job;
};

Ended watch_to_end(pb::Transcoder::Stub& stub, const Connection& connection,
                   const std::string& id) {
  grpc::ClientContext context;
  prepare_context(context, connection, std::chrono::seconds(0));
  pb::WatchJobRequest request;
  request.set_id(id);
  std::unique_ptr<grpc::ClientReader<pb::JobEvent>> reader = stub.WatchJob(&context, request);
  Ended ended;
  ended.job.set_id(id);
  pb::JobEvent event;
  while (reader->Read(&event)) ended.job = event.job();
  ended.status = reader->Finish();
  if (ended.status.ok() && !is_terminal(ended.job.state()))
    ended.status = grpc::Status(grpc::StatusCode::UNAVAILABLE, "the watch ended before the job");
  return ended;
}

// "j-0123 succeeded", "j-0124 failed (exit 3): input: ...".
std::string end_line(const Ended& ended) {
  const pb::Job& job = ended.job;
  if (!ended.status.ok()) return job.id() + " not watched: " + ended.status.error_message();
  std::string line = job.id() + " " + state_label(job.state());
  if (job.state() != pb::JOB_STATE_SUCCEEDED)
    line += " (exit " + std::to_string(exit_code_for_job(job)) + "): " + job.error().message();
  return line;
}

int exit_code_of(const Ended& ended) {
  return ended.status.ok() ? exit_code_for_job(ended.job) : rpc_failure(ended.status);
}

}  // namespace

int wait_jobs(const Connection& connection, const std::vector<std::string>& ids, bool json) {
  auto stub = pb::Transcoder::NewStub(make_channel(connection));
  std::vector<Ended> ended(ids.size());
  std::mutex printing;
  std::vector<std::thread> watchers;
  for (size_t i = 0; i < ids.size(); ++i)
    watchers.emplace_back([&, i] {
      ended[i] = watch_to_end(*stub, connection, ids[i]);
      if (json) return;
      std::lock_guard lock(printing);
      std::cout << end_line(ended[i]) << "\n" << std::flush;
    });
  for (std::thread& watcher : watchers) watcher.join();
  if (json) {
    std::cout << "[\n";
    for (size_t i = 0; i < ended.size(); ++i) {
      std::string text = to_json(ended[i].job);
      if (!text.empty() && text.back() == '\n') text.pop_back();
      std::cout << text << (i + 1 < ended.size() ? "," : "") << "\n";
    }
    std::cout << "]\n";
  }
  for (const Ended& one : ended)
    if (int code = exit_code_of(one); code != kExitOk) return code;
  return kExitOk;
}

}  // namespace tc::client
