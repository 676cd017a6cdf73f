#include "service/daemon/api/watch_reactor.h"

#include "service/daemon/api/grpc_status.h"
#include "service/daemon/api/proto_convert.h"
#include "service/daemon/api/wire_message.h"

namespace tc::daemon {
namespace {

pb::JobEvent::Kind kind_to_proto(EventKind kind) {
  switch (kind) {
    case EventKind::kSnapshot:
      return pb::JobEvent::KIND_SNAPSHOT;
    case EventKind::kState:
      return pb::JobEvent::KIND_STATE;
    case EventKind::kProgress:
      return pb::JobEvent::KIND_PROGRESS;
  }
  return pb::JobEvent::KIND_UNSPECIFIED;
}

}  // namespace

WatchReactor::WatchReactor(JobManager& manager, const Caller& caller, const std::string& id)
    : manager_(manager), id_(id), sink_(std::make_shared<Sink>(this)) {
  ApiStatus status = manager_.watch(caller, id_, sink_);
  if (!status.is_ok()) Finish(to_grpc_status(status));
}

void WatchReactor::OnWriteDone(bool ok) {
  sink_->write_done(ok);
}

void WatchReactor::OnCancel() {
  sink_->cancel();
}

void WatchReactor::OnDone() {
  // Detach first: after this the manager may still hold the sink, but it writes nowhere.
  sink_->detach();
  manager_.unwatch(id_, sink_.get());
  delete this;
}

void WatchReactor::Sink::on_event(EventKind kind, const JobRecord& job) {
  std::lock_guard lock(mutex_);
  if (!reactor_ || terminal_queued_ || finished_) return;
  pb::JobEvent event;
  event.set_kind(kind_to_proto(kind));
  job_to_proto(job, event.mutable_job());
  // A newer progress replaces one still waiting: a slow client gets fewer, fresher updates.
  if (kind == EventKind::kProgress && !pending_.empty() &&
      pending_.back().kind() == pb::JobEvent::KIND_PROGRESS)
    pending_.back() = std::move(event);
  else
    pending_.push_back(std::move(event));
  if (is_terminal(job.state)) terminal_queued_ = true;
  if (!writing_) start_next();
}

void WatchReactor::Sink::start_next() {
  if (pending_.empty()) {
    if (terminal_queued_) finish(grpc::Status::OK);
    return;
  }
  current_ = serialized(pending_.front());
  pending_.pop_front();
  writing_ = true;
  reactor_->StartWrite(&current_);
}

void WatchReactor::Sink::finish(grpc::Status status) {
  if (finished_ || !reactor_) return;
  finished_ = true;
  reactor_->Finish(std::move(status));
}

void WatchReactor::Sink::write_done(bool ok) {
  std::lock_guard lock(mutex_);
  writing_ = false;
  if (!ok) return finish(grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
  if (!finished_) start_next();
}

void WatchReactor::Sink::cancel() {
  std::lock_guard lock(mutex_);
  terminal_queued_ = true;
  pending_.clear();
  // With a write in flight, its OnWriteDone(false) finishes the stream.
  if (!writing_) finish(grpc::Status(grpc::StatusCode::CANCELLED, "watch cancelled"));
}

void WatchReactor::Sink::detach() {
  std::lock_guard lock(mutex_);
  reactor_ = nullptr;
}

}  // namespace tc::daemon
