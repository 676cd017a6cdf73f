// Cluster mode's SQL (README, Cluster), one text for both engines (the SQLite engine turns $N into
// its own ?N): schema version 4, and the statements of claiming, leases, fencing and cancelling.
// Times compare against the store's own clock (`now`, an SQL expression per engine), so nodes
// whose clocks disagree still agree on when a lease ran out.
#pragma once

#include <string>
#include <vector>

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

// The queued jobs a node may take, best first (priority, then age): `backends` placeholders
// from $1. `lock`: PostgreSQL's FOR UPDATE SKIP LOCKED (a row another node is claiming is
// passed over, not waited for); empty for SQLite, whose one writer holds the database.
inline std::string claim_candidates_sql(const std::string& columns, size_t backends, int limit,
                                        const char* lock) {
  std::string in;
  for (size_t i = 0; i < backends; ++i) in += (i ? ", $" : "$") + std::to_string(i + 1);
  return "SELECT " + columns + " FROM jobs WHERE state = 1 AND backend IN (" + in +
         ") ORDER BY priority DESC, seq LIMIT " + std::to_string(limit) + " " + lock;
}

// $1 = id, $2 = node, $3 = lease length (ms): the claimed row's lease, a fresh cancel flag.
inline std::string take_lease_sql(const char* now) {
  return std::string("UPDATE jobs SET node = $2, lease_ms = ") + now +
         " + $3, cancel_requested = 0 WHERE id = $1";
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

// $1 = id, $2 = attempt, $3 = node, $4 = lease length: the fence. Renews the lease of that
// attempt on that node if the job is still its, so the rename that follows runs under a lease.
inline std::string hold_lease_sql(const char* now) {
  return std::string("UPDATE jobs SET lease_ms = ") + now +
         " + $4 WHERE id = $1 AND attempt = $2 AND node = $3 AND state = 2";
}

// $1 = node: running jobs whose lease ran out, and (at start-up) those of this very node,
// which died with its previous process.
inline std::string orphans_sql(const std::string& columns, const char* now) {
  return "SELECT " + columns + " FROM jobs WHERE state = 2 AND (node = $1 OR lease_ms < " + now +
         ") ORDER BY seq";
}

// $1 = id. Only a running job has an owner to tell.
inline constexpr const char* kRequestCancelSql =
    "UPDATE jobs SET cancel_requested = 1 WHERE id = $1 AND state = 2";

}  // namespace tc::daemon
