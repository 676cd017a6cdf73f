// The WatchJob stream: a ServerWriteReactor fed by the JobManager's events. Events queue up
// while a write is in flight; the stream ends after the job's terminal state is written.
#pragma once

#include <grpcpp/grpcpp.h>

#include <deque>
#include <memory>
#include <mutex>

#include "service/daemon/jobs/job_manager.h"
#include "transcode/v1/transcoder.pb.h"

namespace tc::daemon {

// Writes encoded JobEvents: WatchJob takes its request raw (transcoder_service.h).
class WatchReactor : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  // Registers with `manager`; on an unknown job the stream finishes NOT_FOUND at once.
  WatchReactor(JobManager& manager, const Caller& caller, const std::string& id);

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  // The manager's side: converts and queues events, starting a write when none is in flight.
  class Sink : public JobWatcher {
   public:
    explicit Sink(WatchReactor* reactor) : reactor_(reactor) {}
    void on_event(EventKind kind, const JobRecord& job) override;
    void write_done(bool ok);
    void cancel();
    void detach();

   private:
    void start_next();                 // mutex_ held
    void finish(grpc::Status status);  // mutex_ held

    std::mutex mutex_;
    WatchReactor* reactor_;  // null once the stream is done
    std::deque<transcode::v1::JobEvent> pending_;
    grpc::ByteBuffer current_;  // the event being written, encoded: alive until OnWriteDone
    bool writing_ = false;
    bool terminal_queued_ = false;  // the last event is queued: ignore what follows
    bool finished_ = false;
  };

  JobManager& manager_;
  std::string id_;
  std::shared_ptr<Sink> sink_;
};

}  // namespace tc::daemon
