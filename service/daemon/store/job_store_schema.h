// The job store's schema, versioned in SQLite's `PRAGMA user_version`: an ordered list of
// migration steps, each taking the database one version up. Opening runs the missing steps in
// one transaction, so a database is at one version or the next, never between.
#pragma once

#include <string>

#include "pipeline/core/status.h"

struct sqlite3;

namespace tc::daemon {

// The version this binary writes.
int job_store_schema_version();

// Brings the database at `path` to job_store_schema_version(). A database newer than that is
// refused (kInternal naming the file and both versions): an older binary must not write rows a
// newer one laid out.
Status migrate_schema(sqlite3* db, const std::string& path);

}  // namespace tc::daemon
