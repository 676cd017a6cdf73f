// The job manager's settings, from the daemon's configuration (daemon.cc manager_options).
#pragma once

#include <string>

#include "service/daemon/model/node_decisions.h"
#include "service/daemon/model/retry_policy.h"
#include "service/daemon/policy/request_policy.h"
#include "service/daemon/webhook/webhook_notice.h"
#include "service/daemon/worker/worker_pool.h"
#include "service/daemon/worker/worker_supervisor.h"

namespace tc::daemon {

struct ManagerOptions {
  std::string worker_executable;
  std::string node_id = "node";  // this daemon in the store (--node-id)
  int max_queue = 100;           // queued jobs, in the whole store
  double lease_s = 30;           // a running job's lease; renewed every lease_s / 3
  double claim_poll_s = 2;       // the claim loop's safety net besides wake-ups
  double node_forget_s = 86400;  // gone nodes' rows are dropped this long after their last beat
  // A queued job whose backend no live node offers waits this long for one, then fails
  // (backend_wait.h); 0 = for ever.
  double capable_node_wait_s = 3600;
  double fair_share_window_s = 3600;  // the claim's fair share weighs this much measured use
  RequestPolicy policy;
  SuperviseOptions supervise;
  // What every job's worker runs under (node_decisions.h): the dispatcher hands it on, with
  // the job's placement, and nothing else relays it.
  NodeSettings node;
  WarmOptions warm;  // workers started ahead of jobs (worker_pool.h)
  int max_attempts = 3;
  double retry_base_s = 10;  // a retryable failure's backoff (retry_policy.h)
  double retry_cap_s = 300;
  double retention_hours = 168;
  std::string proc_root = "/proc";  // workers' fdinfo and stat are read under it
  double sample_interval_s = 0.5;
  // A webhook's body for a job; set (webhooks on) only when a secret is configured
  // (docs/daemon.md, Webhooks): jobs with a webhook_url are refused without it. Each state change
  // of such a job is stored with its notice.
  JobJson webhook_body;

  RetryPolicy retry() const { return {max_attempts, retry_base_s, retry_cap_s}; }
};

}  // namespace tc::daemon
