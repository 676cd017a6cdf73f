// The durable job store, opened: one engine seen through its six roles, each handed to the part
// of the daemon that uses it (serve()): the jobs (job_queue.h), the leases (lease_table.h), the
// nodes (node_registry.h) and the job logs (job_logs.h) to the job manager and its beat, the
// outbox (outbox.h) alone to the webhook thread, the tenants and their keys
// (tenant_directory.h) to the API's authentication. SQLite (sqlite_job_store.h) is the embedded
// default in the state directory; PostgreSQL (pg_job_store.h) is the store several daemons share. A
// part that holds only its role cannot reach the others' tables.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "pipeline/core/status.h"
#include "service/daemon/store/job_logs.h"
#include "service/daemon/store/job_queue.h"
#include "service/daemon/store/lease_table.h"
#include "service/daemon/store/node_registry.h"
#include "service/daemon/store/outbox.h"
#include "service/daemon/store/tenant_directory.h"
#include "service/daemon/store/usage_ledger.h"

namespace tc::daemon {

// A handle: copies share the engine, which closes when the last one goes.
class JobStore {
 public:
  // `engine` plays every role; `shared`: other daemons share it (README, Cluster), so the job
  // manager learns what they offer and stores progress for their watchers.
  template <typename Engine>
  JobStore(const std::shared_ptr<Engine>& engine, bool shared)
      : JobStore(engine, engine, engine, engine, engine, engine, shared, engine) {}
  // Roles played apart (a test wraps one of them); no usage ledger unless given.
  JobStore(std::shared_ptr<JobQueue> jobs, std::shared_ptr<Outbox> outbox,
           std::shared_ptr<NodeRegistry> nodes, std::shared_ptr<LeaseTable> leases,
           std::shared_ptr<JobLogs> logs, std::shared_ptr<TenantDirectory> tenants, bool shared,
           std::shared_ptr<UsageLedger> usage = nullptr)
      : jobs_(std::move(jobs)),
        outbox_(std::move(outbox)),
        nodes_(std::move(nodes)),
        leases_(std::move(leases)),
        logs_(std::move(logs)),
        tenants_(std::move(tenants)),
        usage_(std::move(usage)),
        shared_(shared) {}

  JobQueue& jobs() const { return *jobs_; }
  Outbox& outbox() const { return *outbox_; }
  NodeRegistry& nodes() const { return *nodes_; }
  LeaseTable& leases() const { return *leases_; }
  JobLogs& logs() const { return *logs_; }
  TenantDirectory& tenants() const { return *tenants_; }
  UsageLedger* usage() const { return usage_.get(); }  // null: not wired (a test's roles)
  bool shared() const { return shared_; }

 private:
  std::shared_ptr<JobQueue> jobs_;
  std::shared_ptr<Outbox> outbox_;
  std::shared_ptr<NodeRegistry> nodes_;
  std::shared_ptr<LeaseTable> leases_;
  std::shared_ptr<JobLogs> logs_;
  std::shared_ptr<TenantDirectory> tenants_;
  std::shared_ptr<UsageLedger> usage_;
  bool shared_;
};

// Where the jobs live, as the settings say: `url` empty = SQLite in `state_dir`, created when
// missing; a postgresql:// (or postgres://) URL = that database, with the password from the URL,
// PGPASSFILE, or the first line of `password_file`.
struct StoreLocation {
  std::string url;
  std::string password_file;
  std::string state_dir;
};

// kInvalidArgument for a URL of another scheme; the engine's own errors otherwise (SQLite's name
// the file). No message carries the password.
Result<JobStore> open_job_store(const StoreLocation& where);

}  // namespace tc::daemon
