// Measured use and quotas (docs/tenants.md), one text for both engines (SQLite turns $N into
// ?N): schema version 8.
#pragma once

namespace tc::daemon {

// Schema version 8. attempt_usage: what each ended attempt measurably used, one row per
// resource: "cpu" (CPU-seconds of its worker) or a GPU engine class ("video", "render",
// "nvenc", ...: busy engine-seconds, engines of the class summed). end_ms is the store's clock
// when the row was written, so a node whose clock is off cannot move use in or out of a window.
// The rows outlive the job's purge: they are what a tenant is billed for. The tenants' quotas,
// 0 meaning none: jobs queued, jobs running, and engine-seconds (every resource summed) in any
// 24 hours.
inline constexpr const char* kAddUsageSql = R"sql(
CREATE TABLE attempt_usage (
  job_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  tenant_id TEXT NOT NULL,
  end_ms BIGINT NOT NULL,
  resource TEXT NOT NULL,
  seconds DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (job_id, attempt, resource)
);
CREATE INDEX attempt_usage_by_time ON attempt_usage (end_ms, tenant_id);
CREATE INDEX attempt_usage_by_tenant ON attempt_usage (tenant_id, end_ms);
ALTER TABLE tenants ADD COLUMN max_queued INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tenants ADD COLUMN max_running INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tenants ADD COLUMN engine_seconds_per_day BIGINT NOT NULL DEFAULT 0;
CREATE INDEX jobs_by_state_tenant ON jobs (state, tenant_id);
)sql";

}  // namespace tc::daemon
