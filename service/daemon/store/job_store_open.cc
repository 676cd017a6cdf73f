// open_job_store: the engine the settings name, handed out by role.
#include "pipeline/core/file.h"
#include "service/daemon/store/job_store.h"
#include "service/daemon/store/pg_job_store.h"
#include "service/daemon/store/sqlite_job_store.h"

namespace tc::daemon {
namespace {

// The first line of the file; libpq reads the URL's own password and PGPASSFILE itself.
Result<std::string> read_password(const std::string& path) {
  if (path.empty()) return std::string();
  Result<std::string> text = read_file(path);
  if (!text.is_ok())
    return Status(Code::kInvalidArgument, "store_password_file: " + text.status().message());
  std::string password = text->substr(0, text->find_first_of("\r\n"));
  if (password.empty())
    return Status(Code::kInvalidArgument, "store_password_file: " + path + " is empty");
  return password;
}

// One daemon owns an SQLite store (it holds the file's lock while it runs).
Result<JobStore> open_sqlite(const std::string& state_dir) {
  TC_ASSIGN_OR_RETURN(std::unique_ptr<SqliteJobStore> store, SqliteJobStore::open(state_dir));
  return JobStore(std::shared_ptr<SqliteJobStore>(std::move(store)), /*shared=*/false);
}

}  // namespace

Result<JobStore> open_job_store(const StoreLocation& where) {
  if (where.url.empty()) return open_sqlite(where.state_dir);
  if (!is_postgres_url(where.url))
    return Status(Code::kInvalidArgument, "store: '" + redact_store_url(where.url) +
                                              "' is not a postgresql:// URL (leave it unset "
                                              "for SQLite in state_dir)");
  TC_ASSIGN_OR_RETURN(std::string password, read_password(where.password_file));
  TC_ASSIGN_OR_RETURN(std::unique_ptr<PgJobStore> store, PgJobStore::open(where.url, password));
  return JobStore(std::shared_ptr<PgJobStore>(std::move(store)), /*shared=*/true);
}

}  // namespace tc::daemon
