// The PostgreSQL store's schema, versioned in a `schema_migrations` table (one row per applied
// version): an ordered list of steps, each taking the database one version up. Start-up applies
// the missing steps in one transaction under an advisory lock, so two daemons starting together
// migrate once, and a database is at one version or the next, never between.
#pragma once

#include <string>

#include "pipeline/core/status.h"
#include "service/daemon/store/pg_connection.h"

namespace tc::daemon {

// The version this binary writes.
int pg_schema_version();

// Brings the database to `target` (tests stop short of the newest to make an older database).
// A database newer than this binary is refused (kInternal naming both versions), untouched.
Status migrate_pg_schema(PgConnection& db, const std::string& shown_url,
                         int target = pg_schema_version());

}  // namespace tc::daemon
