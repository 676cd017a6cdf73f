// Cluster mode's SQL (README, Cluster), one text for both engines (the SQLite engine turns $N into
// its own ?N): schema version 4, and the statements of claiming, leases, fencing and cancelling.
// Times compare against the store's own clock (`now`, an SQL expression per engine), so nodes
// whose clocks disagree still agree on when a lease ran out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "service/daemon/store/job_columns.h"
#include "service/daemon/store/job_queue.h"
#include "service/daemon/store/lease_table.h"

namespace tc::daemon {

// Schema version 4: who runs a job's latest attempt, its lease (unix ms on the store's clock),
// a cancel asked through another node, and the spec's backend and device as columns, so that a
// node claims only jobs it can run.
inline constexpr const char* kAddLeasesSql = R"sql(
ALTER TABLE jobs ADD COLUMN node TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN lease_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN backend TEXT NOT NULL DEFAULT 'auto';
ALTER TABLE jobs ADD COLUMN device_path TEXT NOT NULL DEFAULT '';
CREATE INDEX jobs_by_node ON jobs (node, state);
)sql";

// The store's clock in unix milliseconds.
inline constexpr const char* kPgNow = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT";
inline constexpr const char* kSqliteNow =
    "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)";

// The rolling day of the engine_seconds_per_day quota, in ms.
inline constexpr int64_t kQuotaDayMs = 86400000;

// The queued jobs a node may take, best first: `backends` placeholders from $1, then the fair
// share window (ms) as the next one; none whose retry backoff (not_before_ms) is still ahead on
// the store's clock `now`. One statement, so that the order holds across nodes (docs/tenants.md,
// Fair share):
// - a tenant at its max_running, or whose use in the last 24 h reached its
//   engine_seconds_per_day, is passed over (its queued jobs' waiting_reason says why);
// - tenants in ascending order of dominant share / weight, where the dominant share is the
//   largest, over the resources ("cpu", GPU engine classes), of the tenant's fraction of all
//   tenants' measured use within the window (attempt_usage: ended attempts, and running ones'
//   use so far, written with their progress about once a second);
// - between tenants of equal share (none measured yet: a fleet just started), fewer running
//   jobs per weight first, so that a flood that has measured nothing yet still ranks behind a
//   tenant that runs nothing;
// - within that, priority, then age.
// `lock`: PostgreSQL's FOR UPDATE OF jobs SKIP LOCKED (a row another node is claiming is
// passed over, not waited for); empty for SQLite, whose one writer holds the database.
inline constexpr const char* kClaimCandidatesSql = R"sql(
WITH recent AS (
  SELECT tenant_id, resource, SUM(seconds) AS used FROM attempt_usage
  WHERE end_ms > {now} - {window} GROUP BY tenant_id, resource),
totals AS (
  SELECT resource, SUM(used) AS total FROM recent GROUP BY resource HAVING SUM(used) > 0),
dominant AS (
  SELECT recent.tenant_id, MAX(recent.used / totals.total) AS share
  FROM recent JOIN totals ON totals.resource = recent.resource GROUP BY recent.tenant_id),
running AS (SELECT tenant_id, COUNT(*) AS n FROM jobs WHERE state = 2 GROUP BY tenant_id),
day AS (
  SELECT tenant_id, SUM(seconds) AS used FROM attempt_usage
  WHERE end_ms > {now} - {day} GROUP BY tenant_id)
SELECT {columns} FROM jobs
LEFT JOIN tenants ON tenants.id = jobs.tenant_id
LEFT JOIN dominant ON dominant.tenant_id = jobs.tenant_id
LEFT JOIN running ON running.tenant_id = jobs.tenant_id
LEFT JOIN day ON day.tenant_id = jobs.tenant_id
WHERE jobs.state = 1 AND jobs.backend IN ({backends}) AND jobs.not_before_ms <= {now}
  AND (COALESCE(tenants.max_running, 0) = 0 OR COALESCE(running.n, 0) < tenants.max_running)
  AND (COALESCE(tenants.engine_seconds_per_day, 0) = 0
       OR COALESCE(day.used, 0) < tenants.engine_seconds_per_day)
ORDER BY COALESCE(dominant.share, 0) / COALESCE(tenants.weight, 1),
         COALESCE(running.n, 0) * 1.0 / COALESCE(tenants.weight, 1),
         jobs.priority DESC, jobs.seq
LIMIT {limit} {lock}
)sql";

// `text` with every "{name}" replaced by its value.
inline std::string filled(std::string text,
                          const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [name, value] : values) {
    const std::string key = "{" + name + "}";
    for (size_t at = text.find(key); at != std::string::npos;
         at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  }
  return text;
}

// The candidates a claim looks at, at most.
inline constexpr int kClaimBatch = 16;

// kClaimCandidatesSql for `backends` backends, the job's columns (job_columns.h) as its SELECT
// list, the store's clock `now` and the engine's `lock`.
inline std::string claim_candidates_sql(size_t backends, const char* now, const char* lock) {
  std::string in;
  for (size_t i = 0; i < backends; ++i) in += (i ? ", $" : "$") + std::to_string(i + 1);
  return filled(kClaimCandidatesSql, {{"columns", kQualifiedJobColumnList},
                                      {"backends", in},
                                      {"window", "$" + std::to_string(backends + 1)},
                                      {"day", std::to_string(kQuotaDayMs)},
                                      // Once per statement (PostgreSQL's clock_timestamp()
                                      // is volatile): then an index can serve end_ms > ...
                                      {"now", std::string("(SELECT ") + now + ")"},
                                      {"limit", std::to_string(kClaimBatch)},
                                      {"lock", lock}});
}

// The claim as the PostgreSQL engine sends it (pg_job_store.cc), and bench/claim-explain
// EXPLAINs it (tests/daemon/claim_sql.cc prints it): a row another node is claiming is passed
// over, not waited for.
inline std::string pg_claim_candidates_sql(size_t backends) {
  return claim_candidates_sql(backends, kPgNow, "FOR UPDATE OF jobs SKIP LOCKED");
}

// $1 = id, $2 = node, $3 = lease length (ms): the claimed row's lease. A cancel accepted of an
// earlier attempt that was cut off (its node died, or it was stopped by a shutdown) and re-queued
// stays accepted: the new attempt is stopped at its first renewal, and its gate refuses. Only a
// previous attempt's "publishing" is cleared.
inline std::string take_lease_sql(const char* now) {
  return std::string("UPDATE jobs SET node = $2, lease_ms = ") + now +
         " + $3, cancel_requested = CASE WHEN cancel_requested = 1 THEN 1 ELSE 0 END WHERE id = $1";
}

// $1 = node, $2 = lease length, $3... = `jobs` ids: renews the leases of the jobs the node
// runs; which of them it still holds, with any cancel asked through another node. A row of the
// node that it does not run (its worker gone unrecorded) is not renewed, so it is orphaned.
inline std::string renew_leases_sql(const char* now, size_t jobs) {
  std::string in;
  for (size_t i = 0; i < jobs; ++i) in += (i ? ", $" : "$") + std::to_string(i + 3);
  return std::string("UPDATE jobs SET lease_ms = ") + now +
         " + $2 WHERE node = $1 AND state = 2 AND id IN (" + in +
         ") RETURNING id, attempt, cancel_requested";
}

// The cancel_requested column orders a cancel and the publish gate by one row update: whichever
// commits first wins. A claim sets kRunsOn; a cancel moves it to kCancelAsked unless the gate
// already moved it to kPublishing, and the gate moves it to kPublishing unless a cancel came.
inline constexpr int kRunsOn = 0;
inline constexpr int kCancelAsked = 1;
inline constexpr int kPublishing = 2;

// $1 = id, $2 = attempt, $3 = node, $4 = lease length: the fence. If the job is still that
// attempt's on that node, and no cancel was accepted, it is marked publishing (a cancel is
// refused from then on) and its lease renewed, so the rename that follows runs under a lease.
// Returns the row's cancel_requested: kPublishing = publish, kCancelAsked = cancelled; no row:
// the attempt lost the job. Idempotent: a retry after a lost answer returns kPublishing again.
inline std::string hold_lease_sql(const char* now) {
  return std::string(
             "UPDATE jobs SET lease_ms = CASE WHEN cancel_requested = 1 THEN lease_ms "
             "ELSE ") +
         now +
         " + $4 END, cancel_requested = CASE WHEN cancel_requested = 1 THEN 1 ELSE 2 END "
         "WHERE id = $1 AND attempt = $2 AND node = $3 AND state = 2 RETURNING cancel_requested";
}

// The gate's answer from the cancel_requested hold_lease_sql returned (nullopt: no row).
inline Fence fence_of(std::optional<int64_t> cancel_requested) {
  if (!cancel_requested) return Fence::kLost;
  return *cancel_requested == kPublishing ? Fence::kPublish : Fence::kCancelled;
}

// A cancel's answer from the cancel_requested kRequestCancelSql returned (nullopt: no row).
inline CancelAnswer cancel_answer_of(std::optional<int64_t> cancel_requested) {
  if (!cancel_requested) return CancelAnswer::kNotRunning;
  return *cancel_requested == kPublishing ? CancelAnswer::kPublishing : CancelAnswer::kAccepted;
}

// $1 = node: running jobs whose lease ran out, and (at start-up) those of this very node,
// which died with its previous process.
inline std::string orphans_sql(const std::string& columns, const char* now) {
  return "SELECT " + columns + " FROM jobs WHERE state = 2 AND (node = $1 OR lease_ms < " + now +
         ") ORDER BY seq";
}

// $1 = id. Only a running job has an owner to tell, and only until it began publishing.
// Returns the row's cancel_requested: kCancelAsked = accepted, kPublishing = refused (the job's
// outputs are being published); no row: the job is not running.
inline constexpr const char* kRequestCancelSql =
    "UPDATE jobs SET cancel_requested = CASE WHEN cancel_requested = 2 THEN 2 ELSE 1 END "
    "WHERE id = $1 AND state = 2 RETURNING cancel_requested";

}  // namespace tc::daemon
