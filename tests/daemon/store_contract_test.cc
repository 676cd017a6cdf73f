// The job store's contract, one suite run against both engines: SQLite in a temp directory and
// PostgreSQL on a real server (tests/support/postgres_server.h). What the job manager relies on
// must hold for each: idempotent inserts, every field read back, pages, filters, purge, and
// versioned migrations that refuse a newer database.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <algorithm>
#include <optional>
#include <set>
#include <thread>
#include <type_traits>

#include "service/daemon/model/job_transitions.h"
#include "service/daemon/store/job_store.h"
#include "service/daemon/store/job_store_schema.h"
#include "service/daemon/store/lease_sql.h"
#include "service/daemon/store/pg_connection.h"
#include "service/daemon/store/pg_schema.h"
#include "tests/support/media_tools.h"
#include "tests/support/postgres_server.h"

using namespace tc;
using namespace tc::daemon;

namespace {

// Version 7's additions taken out (tenant_sql.h), both engines: its indexes first (a column
// under an index cannot be dropped).
// The newest layout back at version 7: no usage, no quotas.
constexpr const char* kUndoWebhookSecretsSql = "ALTER TABLE tenants DROP COLUMN webhook_secret;";
constexpr const char* kUndoUsageSql =
    "ALTER TABLE tenants DROP COLUMN webhook_secret; DROP TABLE attempt_usage; DROP INDEX "
    "jobs_by_state_tenant; ALTER TABLE tenants DROP COLUMN "
    "max_queued; ALTER TABLE tenants DROP COLUMN max_running; ALTER TABLE tenants DROP COLUMN "
    "engine_seconds_per_day;";
constexpr const char* kUndoTenantsSql =
    "DROP TABLE attempt_usage; DROP INDEX jobs_by_state_tenant; DROP INDEX jobs_by_tenant_request; "
    "DROP INDEX jobs_by_tenant; ALTER TABLE jobs DROP COLUMN "
    "tenant_id; DROP TABLE api_keys; DROP TABLE tenants;";

// SQL run by the test itself on the engine's database, not through the store under test.
class SqliteEngine {
 public:
  static constexpr const char* kName = "sqlite";
  static constexpr const char* kNow = kSqliteNow;  // the store's clock, as its SQL reads it
  bool prepare(std::string&) { return true; }
  Result<JobStore> open() { return open_job_store({.state_dir = dir_.path()}); }
  int latest_version() const { return job_store_schema_version(); }
  void exec(const std::string& sql) {
    sqlite3* db = nullptr;
    sqlite3_open((dir_.path() + "/jobs.sqlite3").c_str(), &db);
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
        << (error ? error : "") << "\n"
        << sql;
    sqlite3_free(error);
    sqlite3_close(db);
  }
  int64_t scalar(const std::string& sql) {
    sqlite3* db = nullptr;
    sqlite3_open((dir_.path() + "/jobs.sqlite3").c_str(), &db);
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr);
    int64_t value = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
    sqlite3_finalize(s);
    sqlite3_close(db);
    return value;
  }
  int schema_version() { return static_cast<int>(scalar("PRAGMA user_version")); }
  void set_schema_version(int version) { exec("PRAGMA user_version = " + std::to_string(version)); }
  // The newest layout back at version 6: its request_id stays without the column's UNIQUE, a
  // layout the migration accepts as it is.
  void undo_tenants() { exec(kUndoTenantsSql); }
  // The oldest layout the engine migrates from: SQLite's first release (user_version 0).
  void make_oldest_database() {
    exec(std::string(kJobsTable) + "CREATE INDEX jobs_by_state ON jobs(state, seq);");
  }
  // The layout of version 4 (leases, before the attempt history), as that release left it:
  // the newest, with versions 5's and 6's additions taken out.
  void make_previous_database() {
    ASSERT_TRUE(open().is_ok());
    undo_tenants();
    exec(
        "DROP TABLE job_logs; DROP TABLE job_attempts; ALTER TABLE jobs DROP COLUMN "
        "not_before_ms; PRAGMA user_version = 4;");
  }
  static constexpr const char* kJobsTable = R"sql(
CREATE TABLE jobs (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
  request_id TEXT UNIQUE, state INTEGER NOT NULL, priority INTEGER NOT NULL, labels TEXT NOT NULL,
  spec TEXT NOT NULL, create_ms INTEGER NOT NULL, start_ms INTEGER NOT NULL,
  end_ms INTEGER NOT NULL, attempt INTEGER NOT NULL, device TEXT NOT NULL,
  progress TEXT NOT NULL, report TEXT NOT NULL, error_code TEXT NOT NULL,
  error_message TEXT NOT NULL, error_retryable INTEGER NOT NULL);
)sql";

 private:
  tc::testing::TempDir dir_;
};

class PostgresEngine {
 public:
  static constexpr const char* kName = "postgresql";
  static constexpr const char* kNow = kPgNow;
  bool prepare(std::string& why_not) {
    tc::testing::PostgresServer* server = tc::testing::shared_postgres(why_not);
    if (server == nullptr) return false;
    std::string error;
    url_ = server->create_database(error);
    EXPECT_FALSE(url_.empty()) << error;
    return !url_.empty();
  }
  Result<JobStore> open() { return open_job_store({url_, "", ""}); }
  int latest_version() const { return pg_schema_version(); }
  void exec(const std::string& sql) {
    PGconn* db = PQconnectdb(url_.c_str());
    PGresult* result = PQexec(db, sql.c_str());
    EXPECT_TRUE(PQresultStatus(result) == PGRES_COMMAND_OK ||
                PQresultStatus(result) == PGRES_TUPLES_OK)
        << PQerrorMessage(db) << "\n"
        << sql;
    PQclear(result);
    PQfinish(db);
  }
  int64_t scalar(const std::string& sql) {
    PGconn* db = PQconnectdb(url_.c_str());
    PGresult* result = PQexec(db, sql.c_str());
    int64_t value = PQntuples(result) == 1 ? std::atoll(PQgetvalue(result, 0, 0)) : -1;
    PQclear(result);
    PQfinish(db);
    return value;
  }
  int schema_version() {
    return static_cast<int>(scalar("SELECT MAX(version) FROM schema_migrations"));
  }
  void set_schema_version(int version) {
    exec("INSERT INTO schema_migrations (version) VALUES (" + std::to_string(version) + ")");
  }
  // Version 1: the jobs table alone, as the first PostgreSQL release laid it out.
  void make_oldest_database() {
    Result<std::unique_ptr<PgConnection>> db = PgConnection::connect(url_, "");
    ASSERT_TRUE(db.is_ok()) << db.status().message();
    ASSERT_TRUE(migrate_pg_schema(**db, "test", 1).is_ok());
  }
  // Version 4 (leases, before the attempt history), as that release's migration made it.
  void make_previous_database() {
    Result<std::unique_ptr<PgConnection>> db = PgConnection::connect(url_, "");
    ASSERT_TRUE(db.is_ok()) << db.status().message();
    ASSERT_TRUE(migrate_pg_schema(**db, "test", 4).is_ok());
  }
  // The newest layout back at version 6, the column's UNIQUE as version 1 made it.
  void undo_tenants() {
    exec(std::string(kUndoTenantsSql) +
         "ALTER TABLE jobs ADD CONSTRAINT jobs_request_id_key UNIQUE (request_id);");
  }
  const std::string& url() const { return url_; }

 private:
  std::string url_;
};

template <typename Engine>
class StoreContract : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    if (!engine_.prepare(why_not)) {
      if (!HasFailure()) GTEST_SKIP() << why_not;
      return;
    }
  }
  std::optional<JobStore> open() {
    Result<JobStore> store = engine_.open();
    EXPECT_TRUE(store.is_ok()) << store.status().message();
    if (!store.is_ok()) return std::nullopt;
    return std::move(*store);
  }
  // As if the store's clock moved on `ms` for the notices `where` selects (SQL; every one when
  // empty): their due times and holds moved back, by the test's own connection with the store
  // closed (SQLite's store holds its file while open), then the store opened again.
  void age_notices(std::optional<JobStore>& store, int64_t ms, const std::string& where = "") {
    store.reset();
    engine_.exec("UPDATE notifications SET due_ms = due_ms - " + std::to_string(ms) +
                 (where.empty() ? "" : " WHERE " + where));
    store = open();
  }

  // Measured use of `tenant` that ended `age_ms` before the store's clock: an attempt_usage row
  // as the end of an attempt writes it, by the test's own connection with the store closed.
  void add_usage(std::optional<JobStore>& store, const std::string& tenant,
                 const std::string& resource, double seconds, int64_t age_ms) {
    store.reset();
    engine_.exec(
        "INSERT INTO attempt_usage (job_id, attempt, tenant_id, end_ms, resource, "
        "seconds) VALUES ('used-" +
        std::to_string(++usage_rows_) + "', 1, '" + tenant + "', " + Engine::kNow + " - " +
        std::to_string(age_ms) + ", '" + resource + "', " + std::to_string(seconds) + ")");
    store = open();
  }
  // SQL run on the database with the store closed, then the store opened again.
  void exec_closed(std::optional<JobStore>& store, const std::string& sql) {
    store.reset();
    engine_.exec(sql);
    store = open();
  }

  Engine engine_;
  int usage_rows_ = 0;
};

class EngineNames {
 public:
  template <typename T>
  static std::string GetName(int) {
    return T::kName;
  }
};

using Engines = ::testing::Types<SqliteEngine, PostgresEngine>;
TYPED_TEST_SUITE(StoreContract, Engines, EngineNames);

// Writes every field of an existing job, whatever its row holds now (and `notice` with it).
Status update(JobQueue& jobs, const JobRecord& job) {
  return jobs.write(job, std::nullopt, nullptr).status();
}
Status update_notifying(JobQueue& jobs, const JobRecord& job, const Notification& notice) {
  return jobs.write(job, std::nullopt, &notice).status();
}

JobRecord queued(const std::string& id, int64_t create_ms) {
  JobRecord job;
  job.id = id;
  job.create_ms = create_ms;
  job.spec.input = "/media/" + id + ".mp4";
  OutputSpec output;
  output.path = "/media/" + id + ".mkv";
  output.codec = VideoCodec::kHevc;
  job.spec.outputs.push_back(output);
  return job;
}

// A job with every stored field away from its default.
JobRecord finished(const std::string& id) {
  JobRecord job = queued(id, 1000);
  job.request_id = "req-" + id;
  job.state = JobState::kFailed;
  job.priority = 7;
  job.labels = {{"team", "video"}, {"tier", "gold"}};
  job.start_ms = 2000;
  job.end_ms = 3000;
  job.attempt = 2;
  job.device = "vaapi /dev/dri/renderD128";
  job.progress.frames_encoded = 300;
  job.progress.media_time_s = 10;
  job.error = Status(Code::kInput, "moov atom not found", true);
  job.webhook_url = "https://hooks.example/transcoded?team=video";
  return job;
}

TYPED_TEST(StoreContract, InsertThenGetReadsBackEveryField) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord job = finished("a");
  Result<bool> inserted = store->jobs().insert(job);
  ASSERT_TRUE(inserted.is_ok()) << inserted.status().message();
  EXPECT_TRUE(*inserted);
  EXPECT_GT(job.seq, 0);
  Result<std::optional<JobRecord>> found = store->jobs().get("a");
  ASSERT_TRUE(found.is_ok() && found->has_value()) << found.status().message();
  const JobRecord& back = **found;
  EXPECT_EQ(back.seq, job.seq);
  EXPECT_EQ(back.request_id, "req-a");
  EXPECT_EQ(back.state, JobState::kFailed);
  EXPECT_EQ(back.priority, 7);
  EXPECT_EQ(back.labels, job.labels);
  EXPECT_EQ(back.spec.input, "/media/a.mp4");
  ASSERT_EQ(back.spec.outputs.size(), 1u);
  EXPECT_EQ(back.spec.outputs[0].codec, VideoCodec::kHevc);
  EXPECT_EQ(back.create_ms, 1000);
  EXPECT_EQ(back.start_ms, 2000);
  EXPECT_EQ(back.end_ms, 3000);
  EXPECT_EQ(back.attempt, 2);
  EXPECT_EQ(back.device, "vaapi /dev/dri/renderD128");
  EXPECT_EQ(back.progress.frames_encoded, 300);
  EXPECT_EQ(back.error.code(), Code::kInput);
  EXPECT_EQ(back.error.message(), "moov atom not found");
  EXPECT_TRUE(back.error.retryable());
  EXPECT_FALSE(back.report.has_value());
  EXPECT_EQ(back.webhook_url, "https://hooks.example/transcoded?team=video");
  Result<std::optional<JobRecord>> missing = store->jobs().get("nope");
  ASSERT_TRUE(missing.is_ok());
  EXPECT_FALSE(missing->has_value());
}

TYPED_TEST(StoreContract, ASecondInsertWithTheSameRequestIdReturnsTheFirstJob) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord first = queued("first", 1);
  first.request_id = "req-1";
  ASSERT_TRUE(*store->jobs().insert(first));
  JobRecord again = queued("again", 2);
  again.request_id = "req-1";
  Result<bool> inserted = store->jobs().insert(again);
  ASSERT_TRUE(inserted.is_ok()) << inserted.status().message();
  EXPECT_FALSE(*inserted);
  EXPECT_EQ(again.id, "first");
  EXPECT_EQ(again.seq, first.seq);
  EXPECT_FALSE(store->jobs().get("again")->has_value());
  // Jobs without a request_id never collide.
  JobRecord plain1 = queued("plain1", 3), plain2 = queued("plain2", 4);
  EXPECT_TRUE(*store->jobs().insert(plain1));
  EXPECT_TRUE(*store->jobs().insert(plain2));
  Result<std::optional<JobRecord>> by_request =
      store->jobs().find_by_request_id(kDefaultTenant, "req-1");
  ASSERT_TRUE(by_request.is_ok() && by_request->has_value());
  EXPECT_EQ((**by_request).id, "first");
  EXPECT_FALSE(store->jobs().find_by_request_id(kDefaultTenant, "req-2")->has_value());
}

TYPED_TEST(StoreContract, RequestIdsAreUniquePerTenantAndAJobKeepsItsTenant) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord a = queued("of-a", 1), b = queued("of-b", 2);
  a.tenant = "team-a";
  b.tenant = "team-b";
  a.request_id = b.request_id = "nightly-1";
  ASSERT_TRUE(*store->jobs().insert(a));
  Result<bool> inserted = store->jobs().insert(b);
  ASSERT_TRUE(inserted.is_ok()) << inserted.status().message();
  EXPECT_TRUE(*inserted) << "another tenant's request_id must not collide";
  EXPECT_EQ(b.id, "of-b");
  JobRecord again = queued("again", 3);
  again.tenant = "team-a";
  again.request_id = "nightly-1";
  EXPECT_FALSE(*store->jobs().insert(again));
  EXPECT_EQ(again.id, "of-a");
  EXPECT_EQ(again.tenant, "team-a");
  EXPECT_EQ((**store->jobs().get("of-b")).tenant, "team-b");
  EXPECT_EQ((**store->jobs().find_by_request_id("team-b", "nightly-1")).id, "of-b");
  EXPECT_FALSE(store->jobs().find_by_request_id(kDefaultTenant, "nightly-1")->has_value());
  // A job written again (a state change) keeps its tenant.
  JobRecord changed = **store->jobs().get("of-a");
  changed.state = JobState::kRunning;
  ASSERT_TRUE(update(store->jobs(), changed).is_ok());
  EXPECT_EQ((**store->jobs().get("of-a")).tenant, "team-a");
}

// "Any tenant" is said with nullopt (an admin's read), never implied by an empty name: a caller
// whose tenant came out empty by mistake must find nothing, not every tenant's job.
TYPED_TEST(StoreContract, AnEmptyTenantFindsNothingAndOnlyNulloptFindsAnyTenants) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord a = queued("of-a", 1);
  a.tenant = "team-a";
  a.request_id = "nightly-1";
  ASSERT_TRUE(*store->jobs().insert(a));
  Result<std::optional<JobRecord>> empty = store->jobs().find_by_request_id("", "nightly-1");
  ASSERT_TRUE(empty.is_ok()) << empty.status().message();
  EXPECT_FALSE(empty->has_value()) << "an empty tenant name widened the read";
  Result<std::optional<JobRecord>> any =
      store->jobs().find_by_request_id(std::nullopt, "nightly-1");
  ASSERT_TRUE(any.is_ok()) << any.status().message();
  ASSERT_TRUE(any->has_value());
  EXPECT_EQ((**any).id, "of-a");
  EXPECT_EQ((**any).tenant, "team-a");
}

TYPED_TEST(StoreContract, ATenantsListHoldsOnlyItsJobsAndPagesStayFull) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  for (int i = 0; i < 6; ++i) {
    JobRecord job = queued("j" + std::to_string(i), i);
    job.tenant = i % 3 == 0 ? "team-a" : "team-b";  // j0, j3 are team-a's
    ASSERT_TRUE(*store->jobs().insert(job));
  }
  Result<std::vector<JobRecord>> page = store->jobs().list(std::nullopt, 0, 1, "team-a");
  ASSERT_TRUE(page.is_ok()) << page.status().message();
  ASSERT_EQ(page->size(), 1u);
  EXPECT_EQ((*page)[0].id, "j3");
  Result<std::vector<JobRecord>> next =
      store->jobs().list(std::nullopt, (*page)[0].seq, 1, "team-a");
  ASSERT_TRUE(next.is_ok());
  ASSERT_EQ(next->size(), 1u);
  EXPECT_EQ((*next)[0].id, "j0");
  EXPECT_EQ(store->jobs().list(JobState::kQueued, 0, 10, "team-b")->size(), 4u);
  EXPECT_EQ(store->jobs().list(std::nullopt, 0, 10, std::nullopt)->size(), 6u);
  EXPECT_TRUE(store->jobs().list(std::nullopt, 0, 10, "team-c")->empty());
  // The empty name is a tenant of no job, not "every tenant" (only nullopt is).
  EXPECT_TRUE(store->jobs().list(std::nullopt, 0, 10, std::string())->empty());
}

TYPED_TEST(StoreContract, TenantsAreCreatedOnceAndListedWithTheDefault) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  TenantRecord a{"team-a", TenantRole::kTenant, {"/media/a", "/media/shared"}, 3,
                 1000,     {10, 2, 7200}};
  Result<bool> created = store->tenants().create_tenant(a, "");
  ASSERT_TRUE(created.is_ok()) << created.status().message();
  EXPECT_TRUE(*created);
  TenantRecord again{"team-a", TenantRole::kAdmin, {}, 1, 2000};
  EXPECT_FALSE(*store->tenants().create_tenant(again, ""));
  Result<std::vector<TenantRecord>> tenants = store->tenants().list_tenants();
  ASSERT_TRUE(tenants.is_ok()) << tenants.status().message();
  ASSERT_EQ(tenants->size(), 2u);
  EXPECT_EQ((*tenants)[0].id, kDefaultTenant);
  EXPECT_EQ((*tenants)[0].role, TenantRole::kAdmin);
  const TenantRecord& back = (*tenants)[1];
  EXPECT_EQ(back.id, "team-a");
  EXPECT_EQ(back.role, TenantRole::kTenant);
  EXPECT_EQ(back.media_roots, a.media_roots);
  EXPECT_EQ(back.weight, 3);
  EXPECT_EQ(back.create_ms, 1000);
  EXPECT_EQ(back.quotas.max_queued, 10);
  EXPECT_EQ(back.quotas.max_running, 2);
  EXPECT_EQ(back.quotas.engine_seconds_per_day, 7200);
  EXPECT_EQ((*tenants)[0].quotas.max_queued, 0);  // the default tenant: no limit
  EXPECT_TRUE(store->tenants().find_tenant("team-a")->has_value());
  EXPECT_FALSE(store->tenants().find_tenant("team-z")->has_value());
}

TYPED_TEST(StoreContract, KeysRotateAndARevokedKeyReadsRevoked) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(
      *store->tenants().create_tenant({"team-a", TenantRole::kTenant, {}, 1, 0, {0, 3, 0}}, ""));
  Result<NewApiKey> first = make_api_key("team-a", 100), second = make_api_key("team-a", 200);
  ASSERT_TRUE(first.is_ok() && second.is_ok());
  EXPECT_NE(first->record.key_id, second->record.key_id);
  ASSERT_TRUE(store->tenants().add_key(first->record).is_ok());
  ASSERT_TRUE(store->tenants().add_key(second->record).is_ok());
  // Both valid at once: rotation.
  for (const NewApiKey* key : {&*first, &*second}) {
    std::optional<PresentedKey> presented = parse_api_key(key->full);
    ASSERT_TRUE(presented);
    Result<std::optional<KeyGrant>> grant = store->tenants().find_key(presented->key_id);
    ASSERT_TRUE(grant.is_ok() && grant->has_value()) << grant.status().message();
    EXPECT_EQ((**grant).key.revoked_ms, 0);
    EXPECT_EQ((**grant).tenant.id, "team-a");
    EXPECT_EQ((**grant).tenant.quotas.max_running, 3);  // the caller's quotas come with its key
    EXPECT_TRUE(secret_matches(presented->secret, (**grant).key.secret_sha256));
    EXPECT_FALSE(secret_matches(presented->secret + "x", (**grant).key.secret_sha256));
  }
  Result<bool> revoked = store->tenants().revoke_key(first->record.key_id, 5000);
  ASSERT_TRUE(revoked.is_ok() && *revoked) << revoked.status().message();
  EXPECT_TRUE(*store->tenants().revoke_key(first->record.key_id, 9000));  // keeps its time
  EXPECT_EQ((**store->tenants().find_key(first->record.key_id)).key.revoked_ms, 5000);
  EXPECT_EQ((**store->tenants().find_key(second->record.key_id)).key.revoked_ms, 0);
  EXPECT_FALSE(store->tenants().find_key("0123456789abcdef")->has_value());
  EXPECT_FALSE(*store->tenants().revoke_key("0123456789abcdef", 1));
  store.reset();  // read by another connection: SQLite's store holds its file while open
  // Only the secret's hash is stored, in no column the secret itself.
  std::string secret = parse_api_key(first->full)->secret;
  EXPECT_EQ(this->engine_.scalar("SELECT COUNT(*) FROM api_keys WHERE secret_sha256 = '" +
                                 secret_digest(secret) + "'"),
            1);
  EXPECT_EQ(this->engine_.scalar("SELECT COUNT(*) FROM api_keys WHERE key_id || tenant_id || "
                                 "secret_sha256 LIKE '%" +
                                 secret + "%'"),
            0);
}

TYPED_TEST(StoreContract, UpdateWritesEveryFieldAndSurvivesReopening) {
  {
    std::optional<JobStore> store = this->open();
    ASSERT_TRUE(store);
    JobRecord job = queued("j", 5);
    ASSERT_TRUE(*store->jobs().insert(job));
    JobRecord changed = finished("j");
    changed.seq = job.seq;
    changed.state = JobState::kSucceeded;
    changed.error = Status();
    changed.report.emplace();
    changed.report->input = "/media/j.mp4";
    changed.report->wall_s = 2.5;
    ASSERT_TRUE(update(store->jobs(), changed).is_ok());
  }
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  Result<std::optional<JobRecord>> found = store->jobs().get("j");
  ASSERT_TRUE(found.is_ok() && found->has_value()) << found.status().message();
  EXPECT_EQ((**found).state, JobState::kSucceeded);
  EXPECT_EQ((**found).labels.at("tier"), "gold");
  EXPECT_EQ((**found).attempt, 2);
  EXPECT_TRUE((**found).error.is_ok());
  ASSERT_TRUE((**found).report.has_value());
  EXPECT_EQ((**found).report->input, "/media/j.mp4");
  EXPECT_EQ((**found).report->wall_s, 2.5);
}

TYPED_TEST(StoreContract, ListPagesNewestFirstAndFiltersByState) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  for (int i = 0; i < 5; ++i) {
    JobRecord job = queued("j" + std::to_string(i), i);
    if (i % 2 == 1) job.state = JobState::kRunning;
    ASSERT_TRUE(*store->jobs().insert(job));
  }
  Result<std::vector<JobRecord>> page = store->jobs().list(std::nullopt, 0, 2);
  ASSERT_TRUE(page.is_ok()) << page.status().message();
  ASSERT_EQ(page->size(), 2u);
  EXPECT_EQ((*page)[0].id, "j4");
  EXPECT_EQ((*page)[1].id, "j3");
  Result<std::vector<JobRecord>> next = store->jobs().list(std::nullopt, (*page)[1].seq, 10);
  ASSERT_TRUE(next.is_ok());
  ASSERT_EQ(next->size(), 3u);
  EXPECT_EQ((*next)[0].id, "j2");
  EXPECT_EQ((*next)[2].id, "j0");
  Result<std::vector<JobRecord>> running = store->jobs().list(JobState::kRunning, 0, 10);
  ASSERT_TRUE(running.is_ok());
  ASSERT_EQ(running->size(), 2u);
  EXPECT_EQ((*running)[0].id, "j3");
  EXPECT_EQ((*running)[1].id, "j1");
}

TYPED_TEST(StoreContract, CountsByStateAgreeWithTheList) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  for (int i = 0; i < 4; ++i) {
    JobRecord job = queued("q" + std::to_string(i), i);
    ASSERT_TRUE(*store->jobs().insert(job));
  }
  JobRecord running = queued("r", 9);
  running.state = JobState::kRunning;
  ASSERT_TRUE(*store->jobs().insert(running));
  Result<std::vector<JobRecord>> all = store->jobs().list(JobState::kQueued, 0, 10);
  ASSERT_TRUE(all.is_ok()) << all.status().message();
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ(all->front().id, "q3");
  EXPECT_EQ(all->back().id, "q0");
  EXPECT_EQ(*store->jobs().count_in_state(JobState::kQueued), 4);
  EXPECT_EQ(*store->jobs().count_in_state(JobState::kRunning), 1);
  EXPECT_EQ(*store->jobs().count_in_state(JobState::kSucceeded), 0);
}

TYPED_TEST(StoreContract, PurgeDeletesOnlyFinishedJobsThatEndedBefore) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord old_done = finished("old"), new_done = finished("new"), waiting = queued("w", 1);
  old_done.end_ms = 100;
  new_done.end_ms = 900;
  new_done.request_id = "";
  ASSERT_TRUE(*store->jobs().insert(old_done));
  ASSERT_TRUE(*store->jobs().insert(new_done));
  ASSERT_TRUE(*store->jobs().insert(waiting));  // end_ms 0, but not finished
  Result<int> purged = store->jobs().purge_ended_before(500);
  ASSERT_TRUE(purged.is_ok()) << purged.status().message();
  EXPECT_EQ(*purged, 1);
  EXPECT_FALSE(store->jobs().get("old")->has_value());
  EXPECT_TRUE(store->jobs().get("new")->has_value());
  EXPECT_TRUE(store->jobs().get("w")->has_value());
}

// The notifications outbox (webhooks): a notice per stored change, claimed oldest first, one
// at a time per job, held while it is being sent, then delivered, rescheduled or given up.
Notification notice(const JobRecord& job, const std::string& delivery_id, int64_t at_ms) {
  Notification n;
  n.delivery_id = delivery_id;
  n.job_id = job.id;
  n.url = "http://127.0.0.1:9/hook";
  n.event = std::string(state_name(job.state));
  n.body = "{\"id\":\"" + job.id + "\",\"state\":\"" + n.event + "\"}";
  n.create_ms = at_ms;
  return n;
}

// A claim's hold, far longer than any test takes: a hold runs out only where a test says so.
constexpr int64_t kHold = 60000;

std::vector<std::string> delivery_ids(const Result<std::vector<Notification>>& claimed) {
  std::vector<std::string> ids;
  EXPECT_TRUE(claimed.is_ok()) << claimed.status().message();
  if (claimed.is_ok())
    for (const Notification& n : *claimed) ids.push_back(n.delivery_id);
  return ids;
}

TYPED_TEST(StoreContract, NoticesAreClaimedInOrderOneAtATimePerJob) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord a = queued("a", 100), b = queued("b", 100);
  ASSERT_TRUE(*store->jobs().insert_notifying(a, notice(a, "a-queued", 100)));
  a.state = JobState::kRunning;
  ASSERT_TRUE(update_notifying(store->jobs(), a, notice(a, "a-running", 110)).is_ok());
  ASSERT_TRUE(*store->jobs().insert_notifying(b, notice(b, "b-queued", 120)));
  EXPECT_EQ(store->jobs().get("a")->value().state,
            JobState::kRunning);  // the change itself is stored

  Result<std::vector<Notification>> first = store->outbox().claim_due_notifications(kHold, 10);
  EXPECT_EQ(delivery_ids(first), (std::vector<std::string>{"a-queued", "b-queued"}));
  ASSERT_TRUE(first.is_ok() && first->size() == 2);
  const Notification& claimed = first->front();
  EXPECT_EQ(claimed.job_id, "a");
  EXPECT_EQ(claimed.event, "queued");
  EXPECT_EQ(claimed.body, R"({"id":"a","state":"queued"})");
  EXPECT_EQ(claimed.url, "http://127.0.0.1:9/hook");
  EXPECT_EQ(claimed.attempts, 0);
  EXPECT_EQ(claimed.create_ms, 100);
  // Held: a second claimer (another node) gets neither, and a-running waits behind a-queued.
  EXPECT_TRUE(delivery_ids(store->outbox().claim_due_notifications(kHold, 10)).empty());
  ASSERT_TRUE(store->outbox().mark_notification_delivered(claimed.id).is_ok());
  EXPECT_EQ(delivery_ids(store->outbox().claim_due_notifications(kHold, 10)),
            std::vector<std::string>{"a-running"});
  // b's claimer died: after the hold it is due again.
  this->age_notices(store, kHold, "delivery_id = 'b-queued'");
  ASSERT_TRUE(store);
  EXPECT_EQ(delivery_ids(store->outbox().claim_due_notifications(kHold, 10)),
            std::vector<std::string>{"b-queued"});
}

// A notice is due when it is written, on the store's clock, whatever the writer's clock says of
// its creation (issue 40: on a daemon whose clock ran 90 s ahead, its notices waited 90 s for
// every other daemon).
TYPED_TEST(StoreContract, ANoticeIsDueAtOnceOnTheStoresClock) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  int64_t ahead = this->engine_.scalar(std::string("SELECT ") + TypeParam::kNow) + 90000;
  JobRecord job = queued("ahead", ahead);
  ASSERT_TRUE(*store->jobs().insert_notifying(job, notice(job, "ahead-queued", ahead)));
  Result<std::vector<Notification>> claimed = store->outbox().claim_due_notifications(kHold, 10);
  ASSERT_EQ(delivery_ids(claimed), std::vector<std::string>{"ahead-queued"});
  EXPECT_EQ(claimed->front().create_ms, ahead);  // kept as written, for the operator
}

// A holder renews the holds of the notices it still has (waiting behind a slow receiver, or
// being sent), so no other claimer takes one meanwhile; a hold that already ran out is not
// renewed, since another claimer may hold that notice now (issue 40: 8 of 48 notices were sent
// twice when a notice outlived its hold in one daemon's pool).
TYPED_TEST(StoreContract, ARenewedHoldKeepsANoticeAndALapsedOneIsNotRenewed) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord job = queued("h", 100);
  ASSERT_TRUE(*store->jobs().insert_notifying(job, notice(job, "h-queued", 100)));
  Result<std::vector<Notification>> held = store->outbox().claim_due_notifications(kHold, 10);
  ASSERT_EQ(delivery_ids(held), std::vector<std::string>{"h-queued"});
  std::vector<int64_t> ids{held->front().id};
  this->age_notices(store, kHold / 2);  // half the hold left
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->outbox().renew_notification_holds(ids, kHold).is_ok());  // a whole one again
  this->age_notices(store, kHold * 3 / 4);  // past the claim's hold, within the renewal's
  ASSERT_TRUE(store);
  EXPECT_TRUE(delivery_ids(store->outbox().claim_due_notifications(kHold, 10)).empty());
  this->age_notices(store, kHold);  // past the renewal's too
  ASSERT_TRUE(store);
  EXPECT_EQ(delivery_ids(store->outbox().claim_due_notifications(kHold, 10)),
            std::vector<std::string>{"h-queued"});  // taken over
  this->age_notices(store, kHold + 1000);           // the new holder's hold ran out too
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->outbox().renew_notification_holds(ids, kHold).is_ok());  // not renewed
  EXPECT_EQ(delivery_ids(store->outbox().claim_due_notifications(kHold, 10)),
            std::vector<std::string>{"h-queued"});
}

// A notice holds the whole job (labels included): it goes when retention purges the job, even
// one never delivered.
TYPED_TEST(StoreContract, PurgingAJobPurgesItsNotices) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord old_done = finished("old"), kept = finished("kept");
  old_done.end_ms = 100;
  kept.end_ms = 900;
  kept.request_id = "";
  ASSERT_TRUE(*store->jobs().insert_notifying(old_done, notice(old_done, "old-succeeded", 100)));
  ASSERT_TRUE(*store->jobs().insert_notifying(kept, notice(kept, "kept-succeeded", 100)));
  ASSERT_EQ(*store->jobs().purge_ended_before(500), 1);
  EXPECT_EQ(delivery_ids(store->outbox().claim_due_notifications(kHold, 10)),
            std::vector<std::string>{"kept-succeeded"});
}

TYPED_TEST(StoreContract, ARescheduledNoticeIsDueAtItsTimeAndAnAbandonedOneNever) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord job = queued("r", 100);
  ASSERT_TRUE(*store->jobs().insert_notifying(job, notice(job, "r-queued", 100)));
  job.state = JobState::kCancelled;
  ASSERT_TRUE(update_notifying(store->jobs(), job, notice(job, "r-cancelled", 101)).is_ok());
  Result<std::vector<Notification>> claimed = store->outbox().claim_due_notifications(kHold, 10);
  ASSERT_EQ(delivery_ids(claimed), std::vector<std::string>{"r-queued"});
  int64_t id = claimed->front().id;
  ASSERT_TRUE(store->outbox().reschedule_notification(id, 1, kHold, "HTTP 500").is_ok());
  EXPECT_TRUE(delivery_ids(store->outbox().claim_due_notifications(kHold, 10)).empty());
  this->age_notices(store, kHold);  // its delay has passed
  ASSERT_TRUE(store);
  Result<std::vector<Notification>> again = store->outbox().claim_due_notifications(kHold, 10);
  ASSERT_EQ(delivery_ids(again), std::vector<std::string>{"r-queued"});
  EXPECT_EQ(again->front().attempts, 1);
  // Given up: never claimed again, and the job's next change goes out.
  ASSERT_TRUE(store->outbox().abandon_notification(again->front().id, "HTTP 500").is_ok());
  EXPECT_EQ(delivery_ids(store->outbox().claim_due_notifications(kHold, 10)),
            std::vector<std::string>{"r-cancelled"});
}

TYPED_TEST(StoreContract, NoNoticeForAnInsertThatFoundItsRequestId) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord first = queued("first", 1);
  first.request_id = "req-n";
  ASSERT_TRUE(*store->jobs().insert_notifying(first, notice(first, "first-queued", 1)));
  JobRecord again = queued("again", 2);
  again.request_id = "req-n";
  Result<bool> inserted = store->jobs().insert_notifying(again, notice(again, "again-queued", 2));
  ASSERT_TRUE(inserted.is_ok()) << inserted.status().message();
  EXPECT_FALSE(*inserted);
  EXPECT_EQ(delivery_ids(store->outbox().claim_due_notifications(kHold, 10)),
            std::vector<std::string>{"first-queued"});
}

TYPED_TEST(StoreContract, UndeliveredNoticesSurviveReopening) {
  {
    std::optional<JobStore> store = this->open();
    ASSERT_TRUE(store);
    JobRecord job = queued("d", 1);
    ASSERT_TRUE(*store->jobs().insert_notifying(job, notice(job, "d-queued", 1)));
  }
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  EXPECT_EQ(delivery_ids(store->outbox().claim_due_notifications(kHold, 10)),
            std::vector<std::string>{"d-queued"});
}

TYPED_TEST(StoreContract, AFreshDatabaseIsAtTheNewestSchemaVersion) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  store.reset();  // read by another connection: SQLite's store holds its file while open
  EXPECT_EQ(this->engine_.schema_version(), this->engine_.latest_version());
  ASSERT_TRUE(this->open());  // opening again migrates nothing
  EXPECT_EQ(this->engine_.schema_version(), this->engine_.latest_version());
}

TYPED_TEST(StoreContract, AnOlderDatabaseIsMigratedAndItsJobsRead) {
  this->engine_.make_oldest_database();
  ASSERT_LT(this->engine_.schema_version(), this->engine_.latest_version());
  this->engine_.exec(
      "INSERT INTO jobs (id, request_id, state, priority, labels, spec, create_ms, start_ms, "
      "end_ms, attempt, device, progress, report, error_code, error_message, error_retryable) "
      "VALUES ('old', 'req-7', 1, 5, '{\"team\":\"video\"}', "
      "'{\"input\":\"/media/in.mp4\",\"outputs\":[{\"path\":\"/media/o.mkv\",\"codec\":\"h264\"}]}'"
      ", 1000, 0, 0, 0, '', '{}', '', 'ok', '', 0)");
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  Result<std::optional<JobRecord>> found = store->jobs().get("old");
  ASSERT_TRUE(found.is_ok() && found->has_value()) << found.status().message();
  EXPECT_EQ((**found).labels.at("team"), "video");
  EXPECT_EQ((**found).spec.input, "/media/in.mp4");
  EXPECT_EQ((**found).priority, 5);
  EXPECT_EQ((**found).tenant, kDefaultTenant);  // a job from before tenants: the default's
  JobRecord retried = queued("retried", 1500);
  retried.request_id = "req-7";
  EXPECT_FALSE(*store->jobs().insert(retried));  // its request_id still holds
  EXPECT_EQ(retried.id, "old");
  JobRecord next = queued("next", 2000);
  ASSERT_TRUE(*store->jobs().insert(next));
  EXPECT_GT(next.seq, (**found).seq);
  store.reset();  // read by another connection: SQLite's store holds its file while open
  EXPECT_EQ(this->engine_.schema_version(), this->engine_.latest_version());
}

TYPED_TEST(StoreContract, ADatabaseNewerThanTheBinaryIsRefusedAndLeftAlone) {
  ASSERT_TRUE(this->open());
  int future = this->engine_.latest_version() + 1;
  this->engine_.set_schema_version(future);
  Result<JobStore> store = this->engine_.open();
  ASSERT_FALSE(store.is_ok());
  const std::string& message = store.status().message();
  EXPECT_NE(message.find("schema version " + std::to_string(future)), std::string::npos) << message;
  EXPECT_NE(message.find("newer than this transcoded knows (" +
                         std::to_string(this->engine_.latest_version()) + ")"),
            std::string::npos)
      << message;
  EXPECT_EQ(this->engine_.schema_version(), future);
}

NodeRecord node(const std::string& id, std::vector<std::string> running) {
  NodeRecord record;
  record.id = id;
  record.started_ms = 1000;
  record.devices = {{"software", "software", 4, static_cast<int>(running.size())},
                    {"vulkan 0", "vulkan", 2, 0}};
  record.backends = {"software", "vulkan"};
  record.running_jobs = std::move(running);
  return record;
}

TYPED_TEST(StoreContract, AHeartbeatIsListedAsANodeAndTheNextReplacesIt) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->nodes().heartbeat(node("gpu-1", {"j1", "j2"})).is_ok());
  ASSERT_TRUE(store->nodes().heartbeat(node("gpu-1", {"j3"})).is_ok());
  Result<std::vector<NodeRecord>> nodes = store->nodes().list();
  ASSERT_TRUE(nodes.is_ok()) << nodes.status().message();
  ASSERT_EQ(nodes->size(), 1u);
  const NodeRecord& listed = nodes->front();
  EXPECT_EQ(listed.id, "gpu-1");
  EXPECT_EQ(listed.started_ms, 1000);
  EXPECT_GT(listed.heartbeat_ms, 1000);
  EXPECT_EQ(listed.running_jobs, std::vector<std::string>{"j3"});
  ASSERT_EQ(listed.devices.size(), 2u);
  EXPECT_EQ(listed.devices[1].backend, "vulkan");
  EXPECT_EQ(listed.backends, (std::vector<std::string>{"software", "vulkan"}));
  EXPECT_EQ(listed.free_slots(), 3 + 2);
}

// ---- Claims and leases (lease_sql.h): the same on both engines.

JobRecord queued_on(const std::string& id, BackendKind backend, int priority) {
  JobRecord job = queued(id, 1000);
  job.spec.backend = backend;
  job.priority = priority;
  return job;
}

// The running form a node gives the job it takes (as JobManager::take_job does).
bool run_here(JobRecord& job, const std::string& node) {
  job.state = JobState::kRunning;
  job.attempt += 1;
  job.node = node;
  return true;
}

ClaimRequest claim_for(const std::string& node, std::vector<std::string> backends,
                       int64_t lease_ms = 60000) {
  return {node, std::move(backends), lease_ms};
}

// Claims the queued job `id` (a software one) for `node`; true when it did.
bool claim_again(JobQueue& jobs, const std::string& id, const std::string& node) {
  auto take = [&](JobRecord& j, std::optional<Notification>&) {
    return j.id == id && run_here(j, node);
  };
  Result<std::optional<JobRecord>> claimed = jobs.claim(claim_for(node, {"software"}), take);
  return claimed.is_ok() && claimed->has_value();
}

// A new software job `id`, claimed by `node`; true when both happened.
bool claimed_by(JobQueue& jobs, const std::string& id, const std::string& node) {
  JobRecord job = queued_on(id, BackendKind::kSoftware, 0);
  Result<bool> inserted = jobs.insert(job);
  return inserted.is_ok() && *inserted && claim_again(jobs, id, node);
}

TYPED_TEST(StoreContract, AClaimOffersClaimableJobsBestFirstAndWritesTheOneTaken) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  for (JobRecord job :
       {queued_on("old", BackendKind::kSoftware, 0), queued_on("gpu", BackendKind::kVulkan, 9),
        queued_on("urgent", BackendKind::kAuto, 5), queued_on("new", BackendKind::kSoftware, 0)})
    ASSERT_TRUE(*store->jobs().insert(job));
  std::vector<std::string> offered;
  Result<std::optional<JobRecord>> claimed = store->jobs().claim(
      claim_for("node-a", {"auto", "software"}), [&](JobRecord& job, std::optional<Notification>&) {
        offered.push_back(job.id);
        return job.id == "new" && run_here(job, "node-a");  // passes the others over
      });
  ASSERT_TRUE(claimed.is_ok()) << claimed.status().message();
  ASSERT_TRUE(claimed->has_value());
  EXPECT_EQ((*claimed)->id, "new");
  // Priority, then age; the vulkan job is not this node's to see.
  EXPECT_EQ(offered, (std::vector<std::string>{"urgent", "old", "new"}));
  JobRecord stored = **store->jobs().get("new");
  EXPECT_EQ(stored.state, JobState::kRunning);
  EXPECT_EQ(stored.attempt, 1);
  EXPECT_EQ(stored.node, "node-a");
  EXPECT_EQ((*store->jobs().get("old"))->state, JobState::kQueued);
  // Nothing claimable: no claim, and `take` is not asked.
  claimed =
      store->jobs().claim(claim_for("node-a", {"cuda"}), [](JobRecord&, auto&) { return true; });
  ASSERT_TRUE(claimed.is_ok());
  EXPECT_FALSE(claimed->has_value());
}

// ---- Fair share and quotas in the claim (lease_sql.h, docs/tenants.md).

JobRecord tenant_job(const std::string& id, const std::string& tenant) {
  JobRecord job = queued_on(id, BackendKind::kSoftware, 0);
  job.tenant = tenant;
  return job;
}

// The id of the job a claim by node-a takes (the first offered), "" when none.
std::string next_claimed(JobQueue& jobs) {
  auto take = [](JobRecord& j, std::optional<Notification>&) { return run_here(j, "node-a"); };
  Result<std::optional<JobRecord>> claimed = jobs.claim(claim_for("node-a", {"software"}), take);
  EXPECT_TRUE(claimed.is_ok()) << claimed.status().message();
  return claimed.is_ok() && *claimed ? (*claimed)->id : "";
}

TenantRecord tenant_with(const std::string& id, int weight, TenantQuotas quotas = {}) {
  return {id, TenantRole::kTenant, {}, weight, 0, quotas};
}

TYPED_TEST(StoreContract, TheTenantFurthestBelowItsWeightedShareIsClaimedFirst) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(*store->tenants().create_tenant(tenant_with("team-a", 1), ""));
  ASSERT_TRUE(*store->tenants().create_tenant(tenant_with("team-b", 1), ""));
  // a used 300 s of the CPU and b 200 s within the window; a's job is the older.
  this->add_usage(store, "team-a", "cpu", 300, 60000);
  this->add_usage(store, "team-b", "cpu", 200, 60000);
  // Use older than the window counts for nothing: b's hour-old GPU use is out of it.
  this->add_usage(store, "team-b", "video", 5000, 2 * 3600000);
  for (JobRecord job : {tenant_job("a-1", "team-a"), tenant_job("b-1", "team-b")})
    ASSERT_TRUE(*store->jobs().insert(job));
  EXPECT_EQ(next_claimed(store->jobs()), "b-1");  // shares 0.6 against 0.4
  // Weights 3:1 for a: 0.6 / 3 = 0.2 against b's 0.4 (and now b's running job): a first.
  JobRecord ended = **store->jobs().get("b-1");
  ended.state = JobState::kSucceeded;
  ASSERT_TRUE(update(store->jobs(), ended).is_ok());
  this->exec_closed(store, "UPDATE tenants SET weight = 3 WHERE id = 'team-a'");
  for (JobRecord job : {tenant_job("b-2", "team-b"), tenant_job("a-2", "team-a")})
    ASSERT_TRUE(*store->jobs().insert(job));
  EXPECT_EQ(next_claimed(store->jobs()), "a-1");
}

TYPED_TEST(StoreContract, TheDominantResourceDecidesTheShare) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  // a: 70 % of the CPU, 10 % of the video engines; b: 30 % and 90 %. Dominant shares 0.7 and
  // 0.9: a goes first, though it used more seconds in all and more of the CPU.
  this->add_usage(store, "team-a", "cpu", 7000, 1000);
  this->add_usage(store, "team-a", "video", 10, 1000);
  this->add_usage(store, "team-b", "cpu", 3000, 1000);
  this->add_usage(store, "team-b", "video", 90, 1000);
  for (JobRecord job : {tenant_job("b-1", "team-b"), tenant_job("a-1", "team-a")})
    ASSERT_TRUE(*store->jobs().insert(job));
  EXPECT_EQ(next_claimed(store->jobs()), "a-1");
}

// A flood that has finished nothing yet: its running jobs rank it behind a tenant that runs none.
TYPED_TEST(StoreContract, AFloodingTenantsRunningJobsLetAnotherTenantsFirstJobGoNext) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  for (int i = 0; i < 6; ++i) {
    JobRecord job = tenant_job("a-" + std::to_string(i), "team-a");
    ASSERT_TRUE(*store->jobs().insert(job));
  }
  EXPECT_EQ(next_claimed(store->jobs()), "a-0");
  EXPECT_EQ(next_claimed(store->jobs()), "a-1");
  JobRecord late = tenant_job("b-1", "team-b");
  ASSERT_TRUE(*store->jobs().insert(late));
  EXPECT_EQ(next_claimed(store->jobs()), "b-1");
  EXPECT_EQ(next_claimed(store->jobs()), "a-2");
}

TYPED_TEST(StoreContract, ATenantAtItsMaxRunningIsPassedOverUntilOneEnds) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(*store->tenants().create_tenant(tenant_with("team-a", 1, {0, 1, 0}), ""));
  for (JobRecord job :
       {tenant_job("a-1", "team-a"), tenant_job("a-2", "team-a"), tenant_job("b-1", "team-b")})
    ASSERT_TRUE(*store->jobs().insert(job));
  EXPECT_EQ(next_claimed(store->jobs()), "a-1");
  EXPECT_EQ(next_claimed(store->jobs()), "b-1");
  EXPECT_EQ(next_claimed(store->jobs()), "");  // a-2 waits: team-a runs its one
  JobRecord ended = **store->jobs().get("a-1");
  ended.state = JobState::kSucceeded;
  ASSERT_TRUE(update(store->jobs(), ended).is_ok());
  EXPECT_EQ(next_claimed(store->jobs()), "a-2");
}

TYPED_TEST(StoreContract, ATenantOverItsDayQuotaIsPassedOver) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(*store->tenants().create_tenant(tenant_with("team-a", 1, {0, 0, 100}), ""));
  // Queued before the use below was measured (a new job would be refused: see the next test).
  for (JobRecord job : {tenant_job("a-1", "team-a"), tenant_job("b-1", "team-b")})
    ASSERT_TRUE(*store->jobs().insert(job));
  this->add_usage(store, "team-a", "cpu", 60, 23 * 3600000);
  this->add_usage(store, "team-a", "video", 50, 3600000);
  this->add_usage(store, "team-a", "cpu", 500, 25 * 3600000);  // a day ago: out of the day
  EXPECT_EQ(next_claimed(store->jobs()), "b-1");
  EXPECT_EQ(next_claimed(store->jobs()), "");  // 110 of 100 engine-seconds
  // Under the quota again (the 60 s aged out): claimed.
  this->exec_closed(store, "DELETE FROM attempt_usage WHERE seconds = 60");
  EXPECT_EQ(next_claimed(store->jobs()), "a-1");
}

TYPED_TEST(StoreContract, ADayQuotaHoldSaysWhenItFreesFromTheRows) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(*store->tenants().create_tenant(tenant_with("team-a", 1, {0, 0, 100}), ""));
  // 60 s ended 23 h ago, 50 s 1 h ago: 110 of 100. Once the 60 s is a day old (in 1 h) the
  // rest, 50, is under the quota.
  this->add_usage(store, "team-a", "cpu", 60, 23 * 3600000);
  this->add_usage(store, "team-a", "video", 50, 3600000);
  Result<TenantLoad> load = store->jobs().tenant_load("team-a");
  ASSERT_TRUE(load.is_ok()) << load.status().message();
  ASSERT_EQ(load->day.size(), 2u);
  std::optional<int64_t> frees = day_quota_frees_ms(*load);
  ASSERT_TRUE(frees);
  EXPECT_NEAR(static_cast<double>(*frees - load->now_ms), 3600000.0, 60000.0);
  std::string reason = hold_reason("team-a", *load);
  EXPECT_NE(reason.find("engine_seconds_per_day is 100"), std::string::npos) << reason;
  EXPECT_NE(reason.find("frees at " + rfc3339_utc(*frees)), std::string::npos) << reason;
  // And a new job is refused, naming the quota.
  JobRecord job = tenant_job("a-1", "team-a");
  Result<bool> inserted = store->jobs().insert(job);
  ASSERT_FALSE(inserted.is_ok());
  EXPECT_EQ(refused_quota(inserted.status()), "engine_seconds_per_day");
  EXPECT_FALSE(store->jobs().get("a-1")->has_value());
}

TYPED_TEST(StoreContract, AMaxRunningHoldNamesTheLimit) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(*store->tenants().create_tenant(tenant_with("team-a", 1, {0, 1, 0}), ""));
  for (JobRecord job : {tenant_job("a-1", "team-a"), tenant_job("a-2", "team-a")})
    ASSERT_TRUE(*store->jobs().insert(job));
  EXPECT_EQ(hold_reason("team-a", *store->jobs().tenant_load("team-a")), "");
  EXPECT_EQ(next_claimed(store->jobs()), "a-1");
  EXPECT_EQ(hold_reason("team-a", *store->jobs().tenant_load("team-a")),
            "tenant team-a runs 1 job, its max_running is 1: the next starts when one of them "
            "ends");
}

TYPED_TEST(StoreContract, MaxQueuedRefusesTheNextInsertUntilOneStarts) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(*store->tenants().create_tenant(tenant_with("team-a", 1, {2, 0, 0}), ""));
  for (JobRecord job : {tenant_job("a-1", "team-a"), tenant_job("a-2", "team-a")})
    ASSERT_TRUE(*store->jobs().insert(job));
  JobRecord third = tenant_job("a-3", "team-a");
  Result<bool> refused = store->jobs().insert(third);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused_quota(refused.status()), "max_queued");
  EXPECT_EQ(refused.status().message(),
            "max_queued: tenant team-a has 2 jobs queued, its max_queued is 2: the next is "
            "accepted when one of them starts or is cancelled");
  JobRecord other = tenant_job("b-1", "team-b");  // another tenant is not held by it
  EXPECT_TRUE(*store->jobs().insert(other));
  EXPECT_EQ(next_claimed(store->jobs()), "a-1");
  JobRecord again = tenant_job("a-3", "team-a");
  Result<bool> inserted = store->jobs().insert(again);
  ASSERT_TRUE(inserted.is_ok()) << inserted.status().message();
  EXPECT_TRUE(*inserted);
}

// Idempotency wins over the quota: at its max_queued, a tenant's repeat of a request_id it was
// given returns that request's job (as CreateJob's retry after a lost answer expects), while a
// new request is still refused.
TYPED_TEST(StoreContract, AtMaxQueuedARepeatedRequestIdReturnsItsJob) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(*store->tenants().create_tenant(tenant_with("team-a", 1, {1, 0, 0}), ""));
  JobRecord first = tenant_job("a-1", "team-a");
  first.request_id = "nightly-1";
  ASSERT_TRUE(*store->jobs().insert(first));
  JobRecord repeat = tenant_job("a-2", "team-a");
  repeat.request_id = "nightly-1";
  Result<bool> inserted = store->jobs().insert(repeat);
  ASSERT_TRUE(inserted.is_ok()) << inserted.status().message();
  EXPECT_FALSE(*inserted);
  EXPECT_EQ(repeat.id, "a-1");
  JobRecord other = tenant_job("a-3", "team-a");
  other.request_id = "nightly-2";
  Result<bool> refused = store->jobs().insert(other);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused_quota(refused.status()), "max_queued");
}

TYPED_TEST(StoreContract, OnlyTheAttemptHoldingTheLeaseMayWriteOrPublish) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord job = queued_on("leased", BackendKind::kSoftware, 0);
  ASSERT_TRUE(*store->jobs().insert(job));
  auto take = [](JobRecord& j, std::optional<Notification>&) { return run_here(j, "node-a"); };
  JobRecord running = **store->jobs().claim(claim_for("node-a", {"software"}), take);
  EXPECT_EQ(*store->leases().hold_lease("leased", 1, "node-a", 60000), Fence::kPublish);
  EXPECT_EQ(*store->leases().hold_lease("leased", 1, "node-b", 60000),
            Fence::kLost);  // not its node
  EXPECT_EQ(*store->leases().hold_lease("leased", 2, "node-a", 60000),
            Fence::kLost);  // not its attempt
  EXPECT_TRUE(
      store->leases().renew_leases("node-a", {}, 60000)->empty());  // renews only what it asks
  Result<std::vector<HeldJob>> held = store->leases().renew_leases("node-a", {"leased"}, 60000);
  ASSERT_TRUE(held.is_ok()) << held.status().message();
  ASSERT_EQ(held->size(), 1u);
  EXPECT_EQ(held->front().attempt, 1);
  EXPECT_TRUE(store->leases().orphans("")->empty());         // its lease is fresh
  EXPECT_EQ(store->leases().orphans("node-a")->size(), 1u);  // but it is node-a's, restarting
  // A take-over while the lease is fresh is refused; the owner's own write goes through.
  JobRecord requeued = running;
  requeued.state = JobState::kQueued;
  EXPECT_FALSE(*store->jobs().write(requeued, RowState{JobState::kRunning, 1, true}, nullptr));
  running.progress.frames_encoded = 10;
  EXPECT_TRUE(*store->jobs().write(running, RowState{JobState::kRunning, 1, false}, nullptr));
  // A write expecting another attempt (a stale node's) changes nothing.
  JobRecord stale = running;
  stale.state = JobState::kSucceeded;
  EXPECT_FALSE(*store->jobs().write(stale, RowState{JobState::kRunning, 0, false}, nullptr));
  EXPECT_EQ((*store->jobs().get("leased"))->state, JobState::kRunning);
  EXPECT_EQ((*store->jobs().get("leased"))->progress.frames_encoded, 10);
}

TYPED_TEST(StoreContract, AnExpiredLeaseIsAnOrphanAnotherNodeTakesOver) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord job = queued_on("cut-off", BackendKind::kSoftware, 0);
  ASSERT_TRUE(*store->jobs().insert(job));
  auto take = [](JobRecord& j, std::optional<Notification>&) { return run_here(j, "node-a"); };
  // A lease that ran out as soon as it was taken: node-a went silent.
  ASSERT_TRUE(store->jobs().claim(claim_for("node-a", {"software"}, -1000), take)->has_value());
  Result<std::vector<JobRecord>> orphans = store->leases().orphans("");
  ASSERT_TRUE(orphans.is_ok()) << orphans.status().message();
  ASSERT_EQ(orphans->size(), 1u);
  JobRecord requeued = orphans->front();
  requeued.state = JobState::kQueued;
  requeued.node.clear();
  EXPECT_TRUE(*store->jobs().write(requeued, RowState{JobState::kRunning, 1, true}, nullptr));
  EXPECT_EQ(*store->leases().hold_lease("cut-off", 1, "node-a", 60000),
            Fence::kLost);  // must not publish
  auto take_b = [](JobRecord& j, std::optional<Notification>&) { return run_here(j, "node-b"); };
  JobRecord again = **store->jobs().claim(claim_for("node-b", {"software"}), take_b);
  EXPECT_EQ(again.attempt, 2);
  EXPECT_EQ(*store->leases().hold_lease("cut-off", 2, "node-b", 60000), Fence::kPublish);
  // node-a, back, holds nothing
  EXPECT_TRUE(store->leases().renew_leases("node-a", {"cut-off"}, 60000)->empty());
}

TYPED_TEST(StoreContract, ACancelIsAskedOfARunningJobsNodeOnly) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  for (const char* id : {"waiting", "busy"}) {
    JobRecord job = queued_on(id, BackendKind::kSoftware, 0);
    ASSERT_TRUE(*store->jobs().insert(job));
  }
  auto take = [](JobRecord& j, std::optional<Notification>&) {
    return j.id == "busy" && run_here(j, "node-a");
  };
  ASSERT_TRUE(store->jobs().claim(claim_for("node-a", {"software"}), take)->has_value());
  // queued: cancelled in place instead
  EXPECT_EQ(*store->jobs().request_cancel("waiting"), CancelAnswer::kNotRunning);
  EXPECT_EQ(*store->jobs().request_cancel("busy"), CancelAnswer::kAccepted);
  Result<std::vector<HeldJob>> held = store->leases().renew_leases("node-a", {"busy"}, 60000);
  ASSERT_EQ(held->size(), 1u);
  EXPECT_TRUE(held->front().cancel_requested);
}

// Issue 36: a cancel answered OK, then the job published anyway. The cancel and the publish
// gate are ordered by one row: whichever comes first wins, and the other is told so.
TYPED_TEST(StoreContract, ACancelAndThePublishGateAreOrderedByTheRow) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  for (const char* id : {"cancelled-first", "published-first"})
    ASSERT_TRUE(claimed_by(store->jobs(), id, "node-a")) << id;
  // The cancel first: the gate refuses, and says it is a cancel (not a take-over).
  EXPECT_EQ(*store->jobs().request_cancel("cancelled-first"), CancelAnswer::kAccepted);
  EXPECT_EQ(*store->leases().hold_lease("cancelled-first", 1, "node-a", 60000), Fence::kCancelled);
  EXPECT_EQ(*store->jobs().request_cancel("cancelled-first"),
            CancelAnswer::kAccepted);  // again: same
  // The gate first: the cancel is refused, the gate's answer stands when asked again.
  EXPECT_EQ(*store->leases().hold_lease("published-first", 1, "node-a", 60000), Fence::kPublish);
  EXPECT_EQ(*store->jobs().request_cancel("published-first"), CancelAnswer::kPublishing);
  EXPECT_EQ(*store->leases().hold_lease("published-first", 1, "node-a", 60000), Fence::kPublish);
  Result<std::vector<HeldJob>> held =
      store->leases().renew_leases("node-a", {"cancelled-first", "published-first"}, 60000);
  ASSERT_TRUE(held.is_ok()) << held.status().message();
  ASSERT_EQ(held->size(), 2u);
  for (const HeldJob& job : *held)
    EXPECT_EQ(job.cancel_requested, job.id == "cancelled-first") << job.id;
}

// An accepted cancel outlives its attempt: the job re-queued after its node died runs again only
// to be stopped, and never publishes. A previous attempt's "publishing" does not refuse the
// next attempt's cancels.
TYPED_TEST(StoreContract, AnAcceptedCancelOutlivesARequeueAndPublishingDoesNot) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  auto requeue_and_claim = [&](const std::string& id, int attempt) {
    JobRecord job = **store->jobs().get(id);
    job.state = JobState::kQueued;
    job.node.clear();
    EXPECT_TRUE(*store->jobs().write(job, RowState{JobState::kRunning, attempt, false}, nullptr));
    EXPECT_TRUE(claim_again(store->jobs(), id, "node-b")) << id;
  };
  for (const char* id : {"asked", "was-publishing"})
    ASSERT_TRUE(claimed_by(store->jobs(), id, "node-a")) << id;
  ASSERT_EQ(*store->jobs().request_cancel("asked"), CancelAnswer::kAccepted);
  ASSERT_EQ(*store->leases().hold_lease("was-publishing", 1, "node-a", 60000), Fence::kPublish);
  requeue_and_claim("asked", 1);
  requeue_and_claim("was-publishing", 1);
  Result<std::vector<HeldJob>> held =
      store->leases().renew_leases("node-b", {"asked", "was-publishing"}, 60000);
  ASSERT_TRUE(held.is_ok()) << held.status().message();
  ASSERT_EQ(held->size(), 2u);
  for (const HeldJob& job : *held) EXPECT_EQ(job.cancel_requested, job.id == "asked") << job.id;
  EXPECT_EQ(*store->leases().hold_lease("asked", 2, "node-b", 60000), Fence::kCancelled);
  EXPECT_EQ(*store->jobs().request_cancel("was-publishing"), CancelAnswer::kAccepted);
}

// ---- The attempt history and the retry backoff (attempt_columns.h): the same on both engines.

// Claims job `id` for `node` through the real transition (job_transitions.h), as the dispatcher
// does: the claim writes the attempt's history row.
std::optional<JobRecord> start_on(JobQueue& jobs, const std::string& id, const std::string& node,
                                  int64_t lease_ms = 60000) {
  auto take = [&](JobRecord& j, std::optional<Notification>&) {
    if (j.id != id) return false;
    start_attempt(j, "software", node, 1000);
    return true;
  };
  Result<std::optional<JobRecord>> claimed =
      jobs.claim(claim_for(node, {"software"}, lease_ms), take);
  EXPECT_TRUE(claimed.is_ok()) << claimed.status().message();
  return claimed.is_ok() ? *claimed : std::nullopt;
}

// Attempt 1 crashes on node-a (retried), attempt 2's node-b dies (taken over from the orphan
// scan, whose record has no history), attempt 3 succeeds on node-c: GetJob's record lists all
// three with how each ended; a list does not read them; a stale writer's history is not kept;
// purging the job purges its history.
TYPED_TEST(StoreContract, EveryAttemptIsKeptWithItsNodeEndAndOutcome) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord job = queued_on("h", BackendKind::kSoftware, 0);
  ASSERT_TRUE(*store->jobs().insert(job));
  std::optional<JobRecord> first = start_on(store->jobs(), "h", "node-a");
  ASSERT_TRUE(first);
  JobRecord stale = *first;
  Status crashed(Code::kInternal, "worker crashed: killed by signal 11 (SIGSEGV)", true);
  requeue(*first, AttemptUse::kSpent, {AttemptOutcome::kCrashed, crashed, 1500});
  ASSERT_TRUE(*store->jobs().write(*first, RowState{JobState::kRunning, 1, false}, nullptr));
  // node-a's stale copy of attempt 1 (its row moved on) writes nothing, history included.
  finish(stale, JobState::kSucceeded, {}, std::nullopt, 1600);
  EXPECT_FALSE(*store->jobs().write(stale, RowState{JobState::kRunning, 1, false}, nullptr));

  ASSERT_TRUE(start_on(store->jobs(), "h", "node-b", -1000));  // its lease ran out at once
  Result<std::vector<JobRecord>> orphans = store->leases().orphans("");
  ASSERT_TRUE(orphans.is_ok() && orphans->size() == 1u) << orphans.status().message();
  JobRecord orphan = orphans->front();
  requeue(orphan, AttemptUse::kSpent,
          {AttemptOutcome::kLost, Status(Code::kInternal, "its node node-b stopped", true), 2500});
  ASSERT_TRUE(*store->jobs().write(orphan, RowState{JobState::kRunning, 2, true}, nullptr));

  std::optional<JobRecord> third = start_on(store->jobs(), "h", "node-c");
  ASSERT_TRUE(third);
  finish(*third, JobState::kSucceeded, {}, std::nullopt, 3500);
  ASSERT_TRUE(*store->jobs().write(*third, RowState{JobState::kRunning, 3, false}, nullptr));

  JobRecord back = **store->jobs().get("h");
  ASSERT_EQ(back.attempts.size(), 3u);
  const AttemptRecord& a1 = back.attempts[0];
  EXPECT_EQ(a1.number, 1);
  EXPECT_EQ(a1.node, "node-a");
  EXPECT_EQ(a1.device, "software");
  EXPECT_EQ(a1.start_ms, 1000);
  EXPECT_EQ(a1.end_ms, 1500);
  EXPECT_EQ(a1.outcome, AttemptOutcome::kCrashed);
  EXPECT_EQ(a1.error.code(), Code::kInternal);
  EXPECT_EQ(a1.error.message(), "worker crashed: killed by signal 11 (SIGSEGV)");
  EXPECT_TRUE(a1.error.retryable());
  EXPECT_EQ(back.attempts[1].number, 2);
  EXPECT_EQ(back.attempts[1].node, "node-b");
  EXPECT_EQ(back.attempts[1].end_ms, 2500);
  EXPECT_EQ(back.attempts[1].outcome, AttemptOutcome::kLost);
  EXPECT_EQ(back.attempts[2].number, 3);
  EXPECT_EQ(back.attempts[2].node, "node-c");
  EXPECT_EQ(back.attempts[2].end_ms, 3500);
  EXPECT_EQ(back.attempts[2].outcome, AttemptOutcome::kSucceeded);
  EXPECT_TRUE(back.attempts[2].error.is_ok());

  Result<std::vector<JobRecord>> listed = store->jobs().list(std::nullopt, 0, 10);
  ASSERT_TRUE(listed.is_ok() && listed->size() == 1u);
  EXPECT_TRUE(listed->front().attempts.empty());
  ASSERT_EQ(*store->jobs().purge_ended_before(99999999999), 1);
  store.reset();  // read by another connection: SQLite's store holds its file while open
  EXPECT_EQ(this->engine_.scalar("SELECT COUNT(*) FROM job_attempts"), 0);
}

// ---- Measured use (usage_ledger.h): each attempt's rows, its use so far while it runs, on the
// store's clock, summed per tenant and period, kept past the job's purge.

// Job `id` of `tenant`, claimed by node-a and ended (failed: any ended attempt is metered) with
// `usage`, written as the node writes it; the ended record, or nullopt when a step failed.
std::optional<JobRecord> ended_with_usage(JobQueue& jobs, const std::string& id,
                                          const std::string& tenant, ResourceSeconds usage) {
  JobRecord job = queued_on(id, BackendKind::kSoftware, 0);
  job.tenant = tenant;
  if (!jobs.insert(job).is_ok()) return std::nullopt;
  std::optional<JobRecord> running = start_on(jobs, id, "node-a");
  if (!running) return std::nullopt;
  // The node's clock far behind the store's: the usage row must not take it.
  finish(*running, JobState::kFailed, Status(Code::kInput, "bad input"), std::nullopt, 1);
  meter_attempt(*running, 1, std::move(usage));
  Result<bool> written = jobs.write(*running, RowState{JobState::kRunning, 1, false}, nullptr);
  if (!written.is_ok() || !*written) return std::nullopt;
  return running;
}

double sum_of(const std::vector<UsageRow>& rows, const std::string& tenant,
              const std::string& resource) {
  double sum = 0;
  for (const UsageRow& row : rows)
    if (row.tenant == tenant && row.resource == resource) sum += row.seconds;
  return sum;
}

// One write carries every attempt's use: each attempt's resources read back as they were
// written, none taken for another attempt's, and a later write replaces them all.
TYPED_TEST(StoreContract, EveryAttemptsUsageOfOneWriteReadsBackWhole) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord job = queued_on("metered", BackendKind::kSoftware, 0);
  ASSERT_TRUE(*store->jobs().insert(job));
  std::optional<JobRecord> running = start_on(store->jobs(), "metered", "node-a");
  ASSERT_TRUE(running);
  AttemptRecord second = running->attempts.back();
  second.number = 2;
  running->attempts.back().usage = {{"cpu", 1.5}, {"video", 2.25}, {"render", 0.75}};
  second.usage = {{"cpu", 4}, {"nvenc", 8.5}};
  running->attempts.push_back(second);
  ASSERT_TRUE(*store->jobs().write(*running, std::nullopt, nullptr));
  JobRecord back = **store->jobs().get("metered");
  ASSERT_EQ(back.attempts.size(), 2u);
  EXPECT_EQ(back.attempts[0].usage,
            (ResourceSeconds{{"cpu", 1.5}, {"video", 2.25}, {"render", 0.75}}));
  EXPECT_EQ(back.attempts[1].usage, (ResourceSeconds{{"cpu", 4}, {"nvenc", 8.5}}));
  running->attempts[1].usage = {{"cpu", 5}, {"nvenc", 9}};
  ASSERT_TRUE(*store->jobs().write(*running, std::nullopt, nullptr));
  EXPECT_EQ((**store->jobs().get("metered")).attempts[1].usage,
            (ResourceSeconds{{"cpu", 5}, {"nvenc", 9}}));
}

// A running attempt's use so far is stored with its progress (fair share reads it before the job
// ends), replaced as it grows and by the final figures; every row is stamped with the store's
// clock; a row written again with the figures it holds (a retried write, the job's later
// writes) is not stamped anew, so an old attempt never moves into a newer period.
TYPED_TEST(StoreContract, AnAttemptsUsageGrowsWhileItRunsAndIsBilledOnceOnTheStoresClock) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord job = queued_on("metered", BackendKind::kSoftware, 0);
  ASSERT_TRUE(*store->jobs().insert(job));
  std::optional<JobRecord> running = start_on(store->jobs(), "metered", "node-a");
  ASSERT_TRUE(running);
  running->attempts.back().usage = {{"cpu", 0.5}};  // its progress write, use so far
  ASSERT_TRUE(*store->jobs().write(*running, RowState{JobState::kRunning, 1, false}, nullptr));
  EXPECT_EQ((**store->jobs().get("metered")).attempts.back().usage,
            (ResourceSeconds{{"cpu", 0.5}}));

  int64_t store_before = this->engine_.scalar(std::string("SELECT ") + TypeParam::kNow);
  finish(*running, JobState::kSucceeded, {}, std::nullopt, 1);  // the node's clock: 1970
  meter_attempt(*running, 1, {{"cpu", 1.5}, {"video", 2.25}});
  ASSERT_TRUE(*store->jobs().write(*running, RowState{JobState::kRunning, 1, false}, nullptr));
  JobRecord back = **store->jobs().get("metered");
  ASSERT_EQ(back.attempts.size(), 1u);
  EXPECT_EQ(back.attempts[0].usage, (ResourceSeconds{{"cpu", 1.5}, {"video", 2.25}}));
  store.reset();  // read by another connection: SQLite's store holds its file while open
  int64_t stamped = this->engine_.scalar("SELECT MAX(end_ms) FROM attempt_usage");
  EXPECT_GE(stamped, store_before) << "the row took the node's clock, not the store's";
  store = this->open();

  // The same end written again (its first answer lost), later: billed once, its stamp kept.
  this->exec_closed(store, "UPDATE attempt_usage SET end_ms = end_ms - 86400000");
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->jobs().write(*running, std::nullopt, nullptr).is_ok());
  EXPECT_EQ((**store->jobs().get("metered")).attempts[0].usage, back.attempts[0].usage);
  store.reset();  // read by another connection: SQLite's store holds its file while open
  EXPECT_EQ(this->engine_.scalar("SELECT COUNT(*) FROM attempt_usage"), 2);
  EXPECT_EQ(this->engine_.scalar("SELECT MAX(end_ms) FROM attempt_usage"), stamped - 86400000)
      << "a rewrite with the same figures moved the attempt's use into a newer period";
}

TYPED_TEST(StoreContract, UsageIsSummedPerTenantAndPeriodAndOutlivesThePurge) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  ASSERT_NE(store->usage(), nullptr);
  ASSERT_TRUE(ended_with_usage(store->jobs(), "a1", "team-a", {{"cpu", 1.25}, {"video", 2.0}}));
  ASSERT_TRUE(ended_with_usage(store->jobs(), "a2", "team-a", {{"cpu", 0.5}}));
  ASSERT_TRUE(ended_with_usage(store->jobs(), "b1", "team-b", {{"cpu", 4.0}, {"nvenc", 3.5}}));
  int64_t now = this->engine_.scalar(std::string("SELECT ") + TypeParam::kNow);
  const int64_t day = 86400000;

  Result<std::vector<UsageRow>> all = store->usage()->sum_usage(std::nullopt, now - day, now + day);
  ASSERT_TRUE(all.is_ok()) << all.status().message();
  ASSERT_EQ(all->size(), 4u);  // one row per tenant and resource, by tenant then resource
  EXPECT_EQ((*all)[0].tenant, "team-a");
  EXPECT_EQ((*all)[0].resource, "cpu");
  EXPECT_DOUBLE_EQ((*all)[0].seconds, 1.75);
  EXPECT_DOUBLE_EQ(sum_of(*all, "team-a", "video"), 2.0);
  EXPECT_DOUBLE_EQ(sum_of(*all, "team-b", "cpu"), 4.0);
  EXPECT_DOUBLE_EQ(sum_of(*all, "team-b", "nvenc"), 3.5);

  Result<std::vector<UsageRow>> b = store->usage()->sum_usage("team-b", now - day, now + day);
  ASSERT_TRUE(b.is_ok()) << b.status().message();
  ASSERT_EQ(b->size(), 2u);
  EXPECT_EQ((*b)[0].tenant, "team-b");
  EXPECT_EQ((*b)[1].tenant, "team-b");
  // A period that ended before the attempts did holds none of them.
  EXPECT_TRUE(store->usage()->sum_usage(std::nullopt, now - day, now - day / 2)->empty());

  ASSERT_EQ(*store->jobs().purge_ended_before(99999999999), 3);
  Result<std::vector<UsageRow>> kept = store->usage()->sum_usage(std::nullopt, 0, now + day);
  ASSERT_TRUE(kept.is_ok()) << kept.status().message();
  EXPECT_EQ(kept->size(), 4u) << "the purge took billed usage with the jobs";
  EXPECT_DOUBLE_EQ(sum_of(*kept, "team-a", "cpu"), 1.75);
}

// A retried job waits out its backoff on the store's clock: the write sets its not-before to
// the store's now plus the delay; until then a claim does not offer it (a job queued without a
// delay is offered meanwhile); once the store's clock passes it (the test moves the row's time
// back rather than waiting), it is claimed as attempt 2.
TYPED_TEST(StoreContract, ARetriedJobIsNotClaimedBeforeItsNotBeforeOnTheStoresClock) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord job = queued_on("retry", BackendKind::kSoftware, 5);
  ASSERT_TRUE(*store->jobs().insert(job));
  std::optional<JobRecord> first = start_on(store->jobs(), "retry", "node-a");
  ASSERT_TRUE(first);
  requeue(*first, AttemptUse::kSpent,
          {AttemptOutcome::kCrashed, Status(Code::kInternal, "worker crashed", true), 1500},
          3600000);
  ASSERT_TRUE(*store->jobs().write(*first, RowState{JobState::kRunning, 1, false}, nullptr));
  int64_t store_now = this->engine_.scalar(std::string("SELECT ") + TypeParam::kNow);
  JobRecord back = **store->jobs().get("retry");
  EXPECT_EQ(back.state, JobState::kQueued);
  EXPECT_GE(back.not_before_ms, store_now + 3600000 - 60000);  // the store's now, not 1500's
  EXPECT_LE(back.not_before_ms, store_now + 3600000);
  JobRecord other = queued_on("fresh", BackendKind::kSoftware, 0);
  ASSERT_TRUE(*store->jobs().insert(other));
  std::vector<std::string> offered;
  Result<std::optional<JobRecord>> claimed = store->jobs().claim(
      claim_for("node-b", {"software"}), [&](JobRecord& j, std::optional<Notification>&) {
        offered.push_back(j.id);
        return false;
      });
  ASSERT_TRUE(claimed.is_ok()) << claimed.status().message();
  EXPECT_EQ(offered, std::vector<std::string>{"fresh"});  // "retry" outranks it, but waits
  // A write of the queued job without a delay (a cancel's, say) keeps the not-before.
  back.retry_delay_ms = 0;
  ASSERT_TRUE(*store->jobs().write(back, RowState{JobState::kQueued, 1, false}, nullptr));
  EXPECT_EQ((*store->jobs().get("retry"))->not_before_ms, back.not_before_ms);
  store.reset();  // written by another connection: SQLite's store holds its file while open
  this->engine_.exec("UPDATE jobs SET not_before_ms = not_before_ms - 3700000 WHERE id = 'retry'");
  store = this->open();
  ASSERT_TRUE(store);
  std::optional<JobRecord> second = start_on(store->jobs(), "retry", "node-b");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->attempt, 2);
}

// A database the previous release made (schema version 4) gets the history table, with a row
// for each job that ran (its latest attempt, from the job's own columns: the earlier ones were
// not kept), none for a job never started, and its jobs claimable at once.
TYPED_TEST(StoreContract, ADatabaseOfThePreviousVersionGetsTheAttemptHistory) {
  this->engine_.make_previous_database();
  ASSERT_EQ(this->engine_.schema_version(), 4);
  const std::string columns =
      "INSERT INTO jobs (id, request_id, state, priority, labels, spec, create_ms, start_ms, "
      "end_ms, attempt, device, progress, report, error_code, error_message, error_retryable, "
      "node, backend) VALUES ";
  const std::string spec =
      "'{\"input\":\"/media/in.mp4\",\"outputs\":[{\"path\":\"/media/o.mkv\",\"codec\":"
      "\"h264\"}]}'";
  this->engine_.exec(columns + "('done', NULL, 4, 0, '{}', " + spec +
                     ", 1000, 2000, 3000, 2, 'software', '{}', '', 'input', 'moov atom not "
                     "found', 0, 'node-x', 'software'), ('waiting', NULL, 1, 0, '{}', " +
                     spec + ", 1000, 0, 0, 0, '', '{}', '', 'ok', '', 0, '', 'software')");
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord done = **store->jobs().get("done");
  ASSERT_EQ(done.attempts.size(), 1u);
  EXPECT_EQ(done.attempts[0].number, 2);
  EXPECT_EQ(done.attempts[0].node, "node-x");
  EXPECT_EQ(done.attempts[0].device, "software");
  EXPECT_EQ(done.attempts[0].start_ms, 2000);
  EXPECT_EQ(done.attempts[0].end_ms, 3000);
  EXPECT_EQ(done.attempts[0].outcome, AttemptOutcome::kFailed);
  EXPECT_EQ(done.attempts[0].error.code(), Code::kInput);
  EXPECT_EQ(done.attempts[0].error.message(), "moov atom not found");
  JobRecord waiting = **store->jobs().get("waiting");
  EXPECT_TRUE(waiting.attempts.empty());
  EXPECT_EQ(waiting.not_before_ms, 0);
  std::optional<JobRecord> started = start_on(store->jobs(), "waiting", "node-a");
  ASSERT_TRUE(started);
  EXPECT_EQ((*store->jobs().get("waiting"))->attempts.size(), 1u);
  store.reset();  // read by another connection: SQLite's store holds its file while open
  EXPECT_EQ(this->engine_.schema_version(), this->engine_.latest_version());
}

// ---- Job logs (job_logs.h): each attempt's lines, bounded by its first and last lines.

JobLogLine log_line(int attempt, int64_t seq, std::string text,
                    LogLevel level = LogLevel::kWarning) {
  return {attempt, seq, 1700000000000 + seq, level, std::move(text)};
}

// `count` lines of attempt `attempt` from seq `from`, "line N" (padded to `bytes` when given),
// appended in batches of 100 as a running attempt flushes them.
void append_lines(JobLogs& logs, const std::string& id, int attempt, int64_t from, int64_t count,
                  size_t bytes = 0) {
  std::vector<JobLogLine> batch;
  for (int64_t seq = from; seq < from + count; ++seq) {
    std::string text = "line " + std::to_string(seq) + " ";
    text.resize(std::max(bytes, text.size()), 'x');
    batch.push_back(log_line(attempt, seq, text));
    if (batch.size() == 100 || seq + 1 == from + count) {
      Status appended = logs.append_log(id, attempt, batch);
      ASSERT_TRUE(appended.is_ok()) << appended.message();
      batch.clear();
    }
  }
}

std::vector<std::string> log_texts(const JobLog& log) {
  std::vector<std::string> texts;
  for (const JobLogLine& line : log.lines) texts.push_back(line.text);
  return texts;
}

TYPED_TEST(StoreContract, AJobsLogIsReadBackInOrderByAttempt) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord job = queued("logged", 1);
  ASSERT_TRUE(*store->jobs().insert(job));
  ASSERT_TRUE(store->logs()
                  .append_log("logged", 1,
                              {log_line(1, 0, "a 'caf\u00e9' source", LogLevel::kError),
                               log_line(1, 1, "second")})
                  .is_ok());
  ASSERT_TRUE(store->logs().append_log("logged", 1, {log_line(1, 2, "third")}).is_ok());
  ASSERT_TRUE(store->logs().append_log("logged", 2, {log_line(2, 0, "retried")}).is_ok());
  Result<JobLog> all = store->logs().read_log("logged", 0);
  ASSERT_TRUE(all.is_ok()) << all.status().message();
  EXPECT_EQ(log_texts(*all),
            (std::vector<std::string>{"a 'caf\u00e9' source", "second", "third", "retried"}));
  EXPECT_FALSE(all->truncated);
  EXPECT_EQ(all->lines[0].level, LogLevel::kError);
  EXPECT_EQ(all->lines[0].time_ms, 1700000000000);
  EXPECT_EQ(all->lines[3].attempt, 2);
  EXPECT_EQ(log_texts(*store->logs().read_log("logged", 2)), std::vector<std::string>{"retried"});
  EXPECT_TRUE(store->logs().read_log("nobody", 0)->lines.empty());
}

// 1200 lines: the first 500 and the last 500 are kept, the read says lines were dropped.
TYPED_TEST(StoreContract, ALogPastTheBoundKeepsItsFirstAndLastLines) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  append_lines(store->logs(), "chatty", 1, 0, 1200);
  ASSERT_TRUE(store->logs().append_log("chatty", 2, {log_line(2, 0, "retried")}).is_ok());
  Result<JobLog> first = store->logs().read_log("chatty", 1);
  ASSERT_TRUE(first.is_ok()) << first.status().message();
  ASSERT_EQ(first->lines.size(), 1000u);
  EXPECT_TRUE(first->truncated);
  EXPECT_EQ(first->lines[0].text, "line 0 ");
  EXPECT_EQ(first->lines[499].text, "line 499 ");
  EXPECT_EQ(first->lines[500].text, "line 700 ");
  EXPECT_EQ(first->lines[999].text, "line 1199 ");
  Result<JobLog> second = store->logs().read_log("chatty", 2);
  EXPECT_FALSE(second->truncated);  // the bound is per attempt
  EXPECT_EQ(second->lines.size(), 1u);
}

// Lines of 4000 bytes: each side keeps what fits in 128 KiB (32 lines), so at most 256 KiB.
TYPED_TEST(StoreContract, ALogOfLongLinesStaysWithin256KiB) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  append_lines(store->logs(), "wide", 1, 0, 300, 4000);
  Result<JobLog> log = store->logs().read_log("wide", 1);
  ASSERT_TRUE(log.is_ok()) << log.status().message();
  ASSERT_EQ(log->lines.size(), 64u);
  EXPECT_TRUE(log->truncated);
  EXPECT_EQ(log->lines[31].text.substr(0, 8), "line 31 ");
  EXPECT_EQ(log->lines[32].text.substr(0, 9), "line 268 ");
  EXPECT_EQ(log->lines[63].text.substr(0, 9), "line 299 ");
}

TYPED_TEST(StoreContract, PurgingAJobPurgesItsLog) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  JobRecord old_done = finished("old"), kept = finished("kept");
  old_done.end_ms = 100;
  kept.end_ms = 900;
  kept.request_id = "";
  ASSERT_TRUE(*store->jobs().insert(old_done));
  ASSERT_TRUE(*store->jobs().insert(kept));
  ASSERT_TRUE(store->logs().append_log("old", 2, {log_line(2, 0, "gone")}).is_ok());
  ASSERT_TRUE(store->logs().append_log("kept", 2, {log_line(2, 0, "stays")}).is_ok());
  ASSERT_EQ(*store->jobs().purge_ended_before(500), 1);
  EXPECT_TRUE(store->logs().read_log("old", 0)->lines.empty());
  EXPECT_EQ(log_texts(*store->logs().read_log("kept", 0)), std::vector<std::string>{"stays"});
  store.reset();  // read by another connection: SQLite's store holds its file while open
  EXPECT_EQ(this->engine_.scalar("SELECT COUNT(*) FROM job_logs"), 1);
}

// Each tenant's webhook secret is read through its jobs: a tenant's own, "" for one without
// (the default tenant: the node's keys sign), nothing for a job that does not exist.
TYPED_TEST(StoreContract, AJobsWebhookSecretIsItsTenantsAndARotationReplacesIt) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  TenantDirectory& tenants = store->tenants();
  ASSERT_TRUE(*tenants.create_tenant({"team-a", TenantRole::kTenant, {}, 1, 5}, ""));
  JobRecord of_a = queued("of-a", 1), of_default = queued("of-default", 2);
  of_a.tenant = "team-a";
  ASSERT_TRUE(*store->jobs().insert(of_a));
  ASSERT_TRUE(*store->jobs().insert(of_default));
  EXPECT_EQ(**tenants.job_webhook_secret("of-a"), "") << "a new tenant has none until one is set";
  Result<bool> set = tenants.set_webhook_secret("team-a", "whsec_Zmlyc3Q=");
  ASSERT_TRUE(set.is_ok()) << set.status().message();
  EXPECT_TRUE(*set);
  EXPECT_EQ(**tenants.job_webhook_secret("of-a"), "whsec_Zmlyc3Q=");
  EXPECT_EQ(**tenants.job_webhook_secret("of-default"), "");
  ASSERT_TRUE(*tenants.set_webhook_secret("team-a", "whsec_c2Vjb25k"));
  EXPECT_EQ(**tenants.job_webhook_secret("of-a"), "whsec_c2Vjb25k");
  EXPECT_FALSE(*tenants.set_webhook_secret("team-z", "whsec_c2Vjb25k"));
  Result<std::optional<std::string>> none = tenants.job_webhook_secret("no-such-job");
  ASSERT_TRUE(none.is_ok()) << none.status().message();
  EXPECT_FALSE(none->has_value());
}

// CreateTenant's one write: the tenant's row holds the secret it was made with from the first
// read on (no second statement to fail between), and a second create of the id, refused, keeps
// the first one's secret.
TYPED_TEST(StoreContract, ATenantIsMadeWithItsWebhookSecretAndARefusedCreateKeepsIt) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  TenantDirectory& tenants = store->tenants();
  Result<bool> created =
      tenants.create_tenant({"team-a", TenantRole::kTenant, {}, 1, 5}, "whsec_Zmlyc3Q=");
  ASSERT_TRUE(created.is_ok()) << created.status().message();
  EXPECT_TRUE(*created);
  JobRecord of_a = queued("of-a", 1);
  of_a.tenant = "team-a";
  ASSERT_TRUE(*store->jobs().insert(of_a));
  EXPECT_EQ(**tenants.job_webhook_secret("of-a"), "whsec_Zmlyc3Q=");
  EXPECT_FALSE(*tenants.create_tenant({"team-a", TenantRole::kTenant, {}, 1, 6}, "whsec_c2Vjb25k"));
  EXPECT_EQ(**tenants.job_webhook_secret("of-a"), "whsec_Zmlyc3Q=");
}

// UpdateTenant's write: what is given replaces the stored value, what is not is kept, 0 removes a
// quota, and the key's read sees it (the scheduler and CreateJob read tenants that way). An
// unknown tenant is false with nothing written.
TYPED_TEST(StoreContract, AnUpdateReadsBackGivenFieldsOnlyAndAnUnknownTenantIsFalse) {
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  TenantDirectory& tenants = store->tenants();
  TenantRecord made{"team-a", TenantRole::kTenant, {}, 2, 5, {3, 4, 5000}};
  ASSERT_TRUE(*tenants.create_tenant(made, ""));
  TenantUpdate update;
  update.weight = 7;
  update.max_queued = 0;
  update.engine_seconds_per_day = 1'000'000'000'000;  // past 32 bits: BIGINT end to end
  Result<bool> updated = tenants.update_tenant("team-a", update);
  ASSERT_TRUE(updated.is_ok()) << updated.status().message();
  EXPECT_TRUE(*updated);
  TenantRecord read = **tenants.find_tenant("team-a");
  EXPECT_EQ(read.weight, 7);
  EXPECT_EQ(read.quotas.max_queued, 0) << "0 given: no limit";
  EXPECT_EQ(read.quotas.max_running, 4) << "not given: kept";
  EXPECT_EQ(read.quotas.engine_seconds_per_day, 1'000'000'000'000);
  ASSERT_TRUE(*tenants.update_tenant("team-a", TenantUpdate{std::nullopt, std::nullopt, 9, {}}));
  read = **tenants.find_tenant("team-a");
  EXPECT_EQ(read.weight, 7);
  EXPECT_EQ(read.quotas.max_running, 9);
  Result<bool> unknown = tenants.update_tenant("team-z", update);
  ASSERT_TRUE(unknown.is_ok()) << unknown.status().message();
  EXPECT_FALSE(*unknown);
  EXPECT_FALSE(tenants.find_tenant("team-z")->has_value());
}

// A database of version 8 (before the webhook secrets) gets the column: its tenants have none,
// so their notices are signed with the node's keys as before.
TYPED_TEST(StoreContract, ADatabaseOfVersion8GetsWebhookSecretsAndItsTenantsHaveNone) {
  {
    std::optional<JobStore> store = this->open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(*store->tenants().create_tenant({"team-a", TenantRole::kTenant, {}, 1, 5}, ""));
    JobRecord job = queued("of-a", 1);
    job.tenant = "team-a";
    ASSERT_TRUE(*store->jobs().insert(job));
  }
  this->engine_.exec(kUndoWebhookSecretsSql);
  if constexpr (std::is_same_v<TypeParam, SqliteEngine>)
    this->engine_.set_schema_version(8);
  else
    this->engine_.exec("DELETE FROM schema_migrations WHERE version > 8");
  ASSERT_EQ(this->engine_.schema_version(), 8);
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  Result<std::optional<std::string>> secret = store->tenants().job_webhook_secret("of-a");
  ASSERT_TRUE(secret.is_ok() && secret->has_value()) << secret.status().message();
  EXPECT_EQ(**secret, "");
  EXPECT_TRUE(*store->tenants().set_webhook_secret("team-a", "whsec_Zmlyc3Q="));
  store.reset();
  EXPECT_EQ(this->engine_.schema_version(), this->engine_.latest_version());
}

// A database of version 7 (tenants, before usage) gets the usage table; its tenants keep working,
// with no quota.
TYPED_TEST(StoreContract, ADatabaseOfVersion7GetsUsageAndItsTenantsHaveNoQuota) {
  {
    std::optional<JobStore> store = this->open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(*store->tenants().create_tenant({"team-a", TenantRole::kTenant, {}, 2, 5}, ""));
  }
  this->engine_.exec(kUndoUsageSql);
  if constexpr (std::is_same_v<TypeParam, SqliteEngine>)
    this->engine_.set_schema_version(7);
  else
    this->engine_.exec("DELETE FROM schema_migrations WHERE version > 7");
  ASSERT_EQ(this->engine_.schema_version(), 7);
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  Result<std::optional<TenantRecord>> tenant = store->tenants().find_tenant("team-a");
  ASSERT_TRUE(tenant.is_ok() && tenant->has_value()) << tenant.status().message();
  EXPECT_EQ((**tenant).weight, 2);
  EXPECT_EQ((**tenant).quotas.max_queued, 0);
  EXPECT_EQ((**tenant).quotas.engine_seconds_per_day, 0);
  store.reset();
  EXPECT_EQ(this->engine_.schema_version(), this->engine_.latest_version());
  EXPECT_EQ(this->engine_.scalar("SELECT COUNT(*) FROM attempt_usage"), 0);
}

// A database of version 6 (before tenants) gets the tenants: its jobs are tenant "default"'s,
// their request ids still hold, and "default" is listed as the admin.
TYPED_TEST(StoreContract, ADatabaseOfVersion6GetsTenantsAndItsJobsAreTheDefaults) {
  int64_t seq = 0;
  {
    std::optional<JobStore> store = this->open();
    ASSERT_TRUE(store);
    JobRecord job = queued("before", 1);
    job.request_id = "req-before";
    ASSERT_TRUE(*store->jobs().insert(job));
    seq = job.seq;
  }
  this->engine_.undo_tenants();
  if constexpr (std::is_same_v<TypeParam, SqliteEngine>)
    this->engine_.set_schema_version(6);
  else
    this->engine_.exec("DELETE FROM schema_migrations WHERE version > 6");
  ASSERT_EQ(this->engine_.schema_version(), 6);
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  Result<std::optional<JobRecord>> found = store->jobs().get("before");
  ASSERT_TRUE(found.is_ok() && found->has_value()) << found.status().message();
  EXPECT_EQ((**found).tenant, kDefaultTenant);
  EXPECT_EQ((**found).seq, seq);
  JobRecord again = queued("again", 2);
  again.request_id = "req-before";
  EXPECT_FALSE(*store->jobs().insert(again));
  EXPECT_EQ(again.id, "before");
  JobRecord other = queued("other", 3);
  other.tenant = "team-a";
  other.request_id = "req-before";
  EXPECT_TRUE(*store->jobs().insert(other));
  EXPECT_GT(other.seq, seq);
  Result<std::vector<TenantRecord>> tenants = store->tenants().list_tenants();
  ASSERT_TRUE(tenants.is_ok()) << tenants.status().message();
  ASSERT_EQ(tenants->size(), 1u);
  EXPECT_EQ((*tenants)[0].role, TenantRole::kAdmin);
  store.reset();
  EXPECT_EQ(this->engine_.schema_version(), this->engine_.latest_version());
}

// A database of version 5 (the attempt history, before the job logs) gets the table; its jobs
// read as before and have no lines.
TYPED_TEST(StoreContract, ADatabaseOfVersion5GetsTheJobLogs) {
  {
    std::optional<JobStore> store = this->open();
    ASSERT_TRUE(store);
    JobRecord job = queued("before", 1);
    ASSERT_TRUE(*store->jobs().insert(job));
  }
  this->engine_.exec("DROP TABLE job_logs");
  this->engine_.undo_tenants();
  if constexpr (std::is_same_v<TypeParam, SqliteEngine>)
    this->engine_.set_schema_version(5);
  else
    this->engine_.exec("DELETE FROM schema_migrations WHERE version > 5");
  ASSERT_EQ(this->engine_.schema_version(), 5);
  std::optional<JobStore> store = this->open();
  ASSERT_TRUE(store);
  EXPECT_TRUE(store->jobs().get("before")->has_value());
  EXPECT_TRUE(store->logs().read_log("before", 0)->lines.empty());
  ASSERT_TRUE(store->logs().append_log("before", 1, {log_line(1, 0, "now")}).is_ok());
  EXPECT_EQ(log_texts(*store->logs().read_log("before", 1)), std::vector<std::string>{"now"});
  store.reset();  // read by another connection: SQLite's store holds its file while open
  EXPECT_EQ(this->engine_.schema_version(), this->engine_.latest_version());
}

// ---- PostgreSQL alone: what only a shared server has.

class PostgresStore : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    if (!engine_.prepare(why_not) && !HasFailure()) GTEST_SKIP() << why_not;
  }
  std::optional<JobStore> open() {
    Result<JobStore> store = engine_.open();
    EXPECT_TRUE(store.is_ok()) << store.status().message();
    if (!store.is_ok()) return std::nullopt;
    return std::move(*store);
  }
  PostgresEngine engine_;
};

TEST_F(PostgresStore, DaemonsStartingTogetherMigrateOnce) {
  constexpr int kDaemons = 4;
  std::vector<Status> opened(kDaemons);
  std::vector<std::thread> daemons;
  for (int i = 0; i < kDaemons; ++i)
    daemons.emplace_back([&, i] { opened[i] = engine_.open().status(); });
  for (std::thread& t : daemons) t.join();
  for (const Status& status : opened) EXPECT_TRUE(status.is_ok()) << status.message();
  EXPECT_EQ(engine_.scalar("SELECT COUNT(*) FROM schema_migrations"), pg_schema_version());
}

TEST_F(PostgresStore, TwoDaemonsInsertingOneRequestIdAtOnceMakeOneJob) {
  std::optional<JobStore> a = open(), b = open();
  ASSERT_TRUE(a && b);
  JobRecord from_a = queued("from-a", 1), from_b = queued("from-b", 1);
  from_a.request_id = from_b.request_id = "same";
  std::thread other([&] { ASSERT_TRUE(b->jobs().insert(from_b).is_ok()); });
  ASSERT_TRUE(a->jobs().insert(from_a).is_ok());
  other.join();
  EXPECT_EQ(from_a.id, from_b.id);
  EXPECT_EQ(engine_.scalar("SELECT COUNT(*) FROM jobs"), 1);
}

// Two nodes given one request_id at once while its tenant has one place left: whichever inserts
// second finds the tenant at its max_queued, and returns the first's job, not RESOURCE_EXHAUSTED.
// (The tenant's row lock orders them, so the second always meets the full queue.)
TEST_F(PostgresStore, TwoDaemonsInsertingOneRequestIdAtTheLastPlaceMakeOneJobAndBothReturnIt) {
  std::optional<JobStore> a = open(), b = open();
  ASSERT_TRUE(a && b);
  TenantRecord tenant{"team-a", TenantRole::kTenant, {}, 1, 0, {1, 0, 0}};
  ASSERT_TRUE(*a->tenants().create_tenant(tenant, ""));
  JobRecord from_a = queued("from-a", 1), from_b = queued("from-b", 1);
  from_a.tenant = from_b.tenant = "team-a";
  from_a.request_id = from_b.request_id = "same";
  Status status_b;
  std::thread other([&] { status_b = b->jobs().insert(from_b).status(); });
  Status status_a = a->jobs().insert(from_a).status();
  other.join();
  EXPECT_TRUE(status_a.is_ok()) << status_a.message();
  EXPECT_TRUE(status_b.is_ok()) << status_b.message();
  EXPECT_EQ(from_a.id, from_b.id);
  EXPECT_EQ(engine_.scalar("SELECT COUNT(*) FROM jobs"), 1);
}

TEST_F(PostgresStore, TheStoreReconnectsAfterItsConnectionIsKilled) {
  std::optional<JobStore> store = open();
  ASSERT_TRUE(store);
  JobRecord job = queued("before", 1);
  ASSERT_TRUE(*store->jobs().insert(job));
  // A server restart, as the client sees it: its backend gone.
  engine_.exec(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
      "AND pid <> pg_backend_pid()");
  Result<std::optional<JobRecord>> found = store->jobs().get("before");
  ASSERT_TRUE(found.is_ok()) << found.status().message();
  EXPECT_TRUE(found->has_value());
}

TEST_F(PostgresStore, EveryDaemonSeesEveryNode) {
  std::optional<JobStore> a = open(), b = open();
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->nodes().heartbeat(node("node-a", {})).is_ok());
  ASSERT_TRUE(b->nodes().heartbeat(node("node-b", {"j9"})).is_ok());
  for (JobStore* store : {&*a, &*b}) {
    Result<std::vector<NodeRecord>> nodes = store->nodes().list();
    ASSERT_TRUE(nodes.is_ok()) << nodes.status().message();
    ASSERT_EQ(nodes->size(), 2u);
    EXPECT_EQ((*nodes)[0].id, "node-a");
    EXPECT_EQ((*nodes)[1].id, "node-b");
    EXPECT_EQ((*nodes)[1].running_jobs, std::vector<std::string>{"j9"});
  }
}

// SKIP LOCKED: daemons claiming at once each take different jobs, and every job is taken once.
TEST_F(PostgresStore, NodesClaimingAtOnceTakeEachJobOnce) {
  constexpr int kJobs = 40, kNodes = 4;
  std::optional<JobStore> setup = open();
  ASSERT_TRUE(setup);
  for (int i = 0; i < kJobs; ++i) {
    JobRecord job = queued("j" + std::to_string(i), 1000 + i);
    ASSERT_TRUE(*setup->jobs().insert(job));
  }
  std::vector<std::vector<std::string>> taken(kNodes);
  std::vector<std::thread> nodes;
  for (int n = 0; n < kNodes; ++n)
    nodes.emplace_back([&, n] {
      std::optional<JobStore> store = open();
      std::string name = "node-" + std::to_string(n);
      auto take = [&](JobRecord& j, std::optional<Notification>&) { return run_here(j, name); };
      while (true) {
        Result<std::optional<JobRecord>> claimed =
            store->jobs().claim(claim_for(name, {"auto"}), take);
        ASSERT_TRUE(claimed.is_ok()) << claimed.status().message();
        if (!*claimed) return;
        taken[n].push_back((*claimed)->id);
      }
    });
  for (std::thread& t : nodes) t.join();
  std::set<std::string> all;
  size_t count = 0;
  for (const auto& ids : taken) {
    all.insert(ids.begin(), ids.end());
    count += ids.size();
  }
  EXPECT_EQ(count, static_cast<size_t>(kJobs));  // none twice
  EXPECT_EQ(all.size(), static_cast<size_t>(kJobs));
  EXPECT_EQ(engine_.scalar("SELECT COUNT(*) FROM jobs WHERE attempt = 1 AND state = 2"), kJobs);
}

// LISTEN/NOTIFY: what one daemon does to a job, another hears.
TEST_F(PostgresStore, AnotherNodeHearsAJobQueuedChangedAndCancelled) {
  std::optional<JobStore> a = open(), b = open();
  ASSERT_TRUE(a && b);
  std::unique_ptr<StoreEvents> events = a->leases().events();
  ASSERT_TRUE(events);
  // The first wait connects: anything before it may have been missed.
  std::vector<StoreEvent> first = events->wait(5);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].kind, StoreEvent::Kind::kMissed);
  JobRecord job = queued("heard", 1000);
  ASSERT_TRUE(*b->jobs().insert(job));
  auto take = [](JobRecord& j, std::optional<Notification>&) { return run_here(j, "node-b"); };
  ASSERT_TRUE(b->jobs().claim(claim_for("node-b", {"auto"}), take)->has_value());
  ASSERT_EQ(*a->jobs().request_cancel("heard"), CancelAnswer::kAccepted);
  std::vector<StoreEvent> heard;
  for (int i = 0; i < 20 && heard.size() < 4; ++i)
    for (StoreEvent& e : events->wait(0.5)) heard.push_back(e);
  auto has = [&](StoreEvent::Kind kind) {
    return std::any_of(heard.begin(), heard.end(),
                       [&](const StoreEvent& e) { return e.kind == kind && e.job_id == "heard"; });
  };
  EXPECT_TRUE(has(StoreEvent::Kind::kQueued));
  EXPECT_TRUE(has(StoreEvent::Kind::kChanged));
  EXPECT_TRUE(has(StoreEvent::Kind::kCancel));
}

// ---- No server needed: what the settings and errors say.

TEST(StoreLocation, APasswordNeverAppearsInErrorsOrShownUrls) {
  const std::string secret = "s3cr3t-Pa55";
  std::string url = "postgresql://transcoded:" + secret + "@/jobs?host=/nonexistent-tc-dir";
  Result<JobStore> store = open_job_store({url, "", ""});
  ASSERT_FALSE(store.is_ok());
  EXPECT_EQ(store.status().message().find(secret), std::string::npos) << store.status().message();
  EXPECT_NE(store.status().message().find("cannot connect"), std::string::npos)
      << store.status().message();
  EXPECT_TRUE(store.status().retryable());
  EXPECT_EQ(redact_store_url(url).find(secret), std::string::npos);
  EXPECT_NE(redact_store_url(url).find("transcoded:***@"), std::string::npos);
  std::string keyword = "postgresql:///jobs?host=/x&password=" + secret + "&user=u";
  EXPECT_EQ(redact_store_url(keyword).find(secret), std::string::npos) << redact_store_url(keyword);
}

TEST(StoreLocation, AnotherSchemeIsRefusedNamingTheSetting) {
  Result<JobStore> store = open_job_store({"mysql://db/jobs", "", "/tmp"});
  ASSERT_FALSE(store.is_ok());
  EXPECT_EQ(store.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(store.status().message().rfind("store: ", 0), 0u) << store.status().message();
}

TEST(StoreLocation, AnEmptyPasswordFileIsRefusedNamingIt) {
  tc::testing::TempDir dir;
  std::string empty = dir.file("password", "\n");
  Result<JobStore> store =
      open_job_store({"postgresql:///jobs?host=/nonexistent-tc-dir", empty, ""});
  ASSERT_FALSE(store.is_ok());
  EXPECT_EQ(store.status().code(), Code::kInvalidArgument);
  EXPECT_NE(store.status().message().find("store_password_file"), std::string::npos);
}

}  // namespace
