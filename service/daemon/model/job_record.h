// A job as the daemon keeps it: the row of the job store, plus the live progress of a running
// job. Free of gRPC: proto_convert.h turns it into a transcode.v1.Job at the edge.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/core/status.h"
#include "pipeline/exec/report.h"
#include "pipeline/metrics/engine_usage.h"
#include "pipeline/spec/job_spec.h"
#include "service/daemon/model/attempt_record.h"
#include "service/daemon/model/tenant.h"

namespace tc::daemon {

enum class JobState { kQueued = 1, kRunning, kSucceeded, kFailed, kCancelled };

std::string_view state_name(JobState state);  // "queued", ...
inline bool is_terminal(JobState state) {
  return state >= JobState::kSucceeded;
}

enum class AttemptGate {
  kOpen,         // neither a cancel nor a publish began
  kCancelAsked,  // a cancel was accepted: nothing may publish
  kPublishing,   // the attempt passed its publish gate: its outputs are being renamed into place
};

struct JobRecord {
  std::string id;
  std::string request_id;               // the client's idempotency key, per tenant; empty = none
  std::string tenant = kDefaultTenant;  // whose job it is (model/tenant.h); never changes
  int64_t seq = 0;                      // store order: pages and FIFO among equal priorities
  JobState state = JobState::kQueued;
  int priority = 0;
  std::map<std::string, std::string> labels;
  JobSpec spec;           // validated at admission
  int64_t create_ms = 0;  // unix milliseconds; 0 = not yet
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  int attempt = 0;     // runs started, this one included
  std::string device;  // the scheduler's choice: "software", "vaapi /dev/dri/renderD128"
  std::string node;    // the node running (or that ran) the latest attempt; empty while queued
  Progress progress;
  // Live while RUNNING: the last sampling interval of the worker. Not stored.
  metrics::EngineUsage engines;
  std::optional<JobReport> report;  // a SUCCEEDED job's, with its average engines
  Status error;                     // why a FAILED or CANCELLED job ended; ok otherwise
  std::string webhook_url;          // where its state changes are POSTed; empty = none
  // While QUEUED and held back: why it does not run yet (jobs/backend_wait.h); empty when it
  // only waits for a slot. Not stored: filled when the job is read or watched.
  std::string waiting_reason;
  // How its running attempt's end stands (lease_sql.h): read from the store, written only by a
  // cancel and the publish gate. A cancel is durable (no later attempt may run or publish); a
  // gate passed is the attempt's publish intent (its outputs are the spec's).
  AttemptGate gate = AttemptGate::kOpen;
  // Its attempts, oldest first: all of them as JobQueue::get reads it, none as other reads do.
  // The transitions add and end the current one; a write saves those here.
  std::vector<AttemptRecord> attempts;
  // A retried job is claimed no earlier than this (unix ms on the store's clock; 0 = at once).
  // Read from the store, never written: retry_delay_ms is.
  int64_t not_before_ms = 0;
  // Set by a retry's requeue: the write makes not_before_ms the store's now plus this, so the
  // delay is measured on one clock whichever node wrote it. 0 leaves not_before_ms as it is.
  int64_t retry_delay_ms = 0;
};

int64_t now_ms();

}  // namespace tc::daemon
