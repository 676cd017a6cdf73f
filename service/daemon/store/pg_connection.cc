#include "service/daemon/store/pg_connection.h"

#include <libpq-fe.h>

#include <poll.h>

#include <cerrno>
#include <charconv>
#include <regex>

namespace tc::daemon {
namespace {

// Every occurrence of `secret` in `text` as "***".
std::string scrub(std::string text, const std::string& secret) {
  if (secret.empty()) return text;
  for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at + 3))
    text.replace(at, secret.size(), "***");
  return text;
}

// libpq's messages end with a newline and may span lines: one line for a log.
std::string one_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

// The password a URL carries (user:PASS@host or password=PASS), to scrub it from libpq's texts
// as well: a server's error may echo part of the connection string.
std::string url_password(const std::string& url) {
  std::smatch m;
  static const std::regex in_authority(R"(^[a-z]+://[^/@:]*:([^@/]*)@)");
  static const std::regex in_query(R"((?:[?&\s]|^)password=([^&\s]*))");
  if (std::regex_search(url, m, in_authority)) return m[1];
  if (std::regex_search(url, m, in_query)) return m[1];
  return "";
}

}  // namespace

void PgRows::Free::operator()(pg_result* r) const {
  PQclear(r);
}

PgRows::PgRows(pg_result* result) : result_(result) {}

bool PgRows::has_result() const {
  return result_ != nullptr;
}

std::string PgRows::error_message() const {
  return PQresultErrorMessage(result_.get());
}

int PgRows::size() const {
  return PQntuples(result_.get());
}

bool PgRows::is_null(int row, int column) const {
  return PQgetisnull(result_.get(), row, column) != 0;
}

std::string PgRows::text(int row, int column) const {
  return PQgetvalue(result_.get(), row, column);
}

int64_t PgRows::integer(int row, int column) const {
  std::string value = text(row, column);
  int64_t number = 0;
  std::from_chars(value.data(), value.data() + value.size(), number);
  return number;
}

int64_t PgRows::affected() const {
  std::string count = PQcmdTuples(result_.get());
  int64_t number = 0;
  std::from_chars(count.data(), count.data() + count.size(), number);
  return number;
}

std::string redact_store_url(const std::string& url) {
  std::string password = url_password(url);
  return password.empty() ? url : scrub(url, password);
}

bool is_postgres_url(const std::string& url) {
  return url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0;
}

// The time limits of every connection (pg_connection.h). Given after the URL's own keywords, so
// they override them: `options` carries the statement and lock timeouts.
PgConnection::Keywords connection_keywords(const std::string& url, const std::string& password) {
  PgConnection::Keywords keywords = {
      {"dbname", url},
      {"connect_timeout", std::to_string(kPgConnectTimeoutS)},
      {"keepalives", "1"},
      {"keepalives_idle", "10"},
      {"keepalives_interval", "5"},
      {"keepalives_count", "3"},
      {"tcp_user_timeout", std::to_string(kPgAnswerDeadlineMs)},
      {"options", "-c statement_timeout=" + std::to_string(kPgStatementTimeoutMs) +
                      " -c lock_timeout=" + std::to_string(kPgLockTimeoutMs)}};
  if (!password.empty()) keywords.emplace_back("password", password);
  return keywords;
}

Result<std::unique_ptr<PgConnection>> PgConnection::connect(const std::string& url,
                                                            const std::string& password) {
  std::string secret = password.empty() ? url_password(url) : password;
  std::unique_ptr<PgConnection> connection(
      new PgConnection(connection_keywords(url, password), secret));
  connection->open();
  pg_conn* conn = connection->conn_;
  if (conn == nullptr) return Status(Code::kInternal, "job store: out of memory");
  if (PQstatus(conn) == CONNECTION_OK) return connection;
  std::string why = scrub(one_line(PQerrorMessage(conn)), secret);
  // The server asked for a password and refused it (or none was given): retrying cannot help.
  if (PQconnectionNeedsPassword(conn) || PQconnectionUsedPassword(conn))
    return Status(Code::kInvalidArgument, "job store " + redact_store_url(url) +
                                              ": authentication failed (check the store's "
                                              "password): " +
                                              why);
  return Status(Code::kInternal, "job store " + redact_store_url(url) + ": cannot connect: " + why,
                true);
}

void PgConnection::open() {
  PQfinish(conn_);
  // expand_dbname: "dbname" is the whole URL; a later keyword overrides the URL's own.
  std::vector<const char*> keys, values;
  for (const auto& [key, value] : keywords_)
    keys.push_back(key.c_str()), values.push_back(value.c_str());
  keys.push_back(nullptr), values.push_back(nullptr);
  conn_ = PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
  // Server notices ("already exists, skipping") are not ours to print on stderr.
  if (conn_ != nullptr)
    PQsetNoticeProcessor(
        conn_, [](void*, const char*) {}, nullptr);
}

PgConnection::~PgConnection() {
  PQfinish(conn_);
}

Status PgConnection::failure(const std::string& what) const {
  std::string why = conn_ ? scrub(one_line(PQerrorMessage(conn_)), password_) : "not connected";
  return {Code::kInternal, "job store: " + what + ": " + why, true};
}

bool PgConnection::connected() {
  if (PQstatus(conn_) == CONNECTION_OK) return true;
  if (in_transaction_ || std::chrono::steady_clock::now() < next_reconnect_) return false;
  open();
  if (PQstatus(conn_) == CONNECTION_OK) return true;
  next_reconnect_ = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  return false;
}

Result<PgRows> PgConnection::query(const std::string& sql, const PgParams& params,
                                   const std::string& what) {
  if (!connected()) return failure(what + " (reconnecting)");
  Result<PgRows> rows = query_once(sql, params, what);
  // Not again after no answer came (conn_ dropped): a hung server would cost a second wait.
  if (rows.is_ok() || in_transaction_ || conn_ == nullptr || PQstatus(conn_) == CONNECTION_OK)
    return rows;
  if (!connected()) return rows;
  return query_once(sql, params, what);
}

Result<PgRows> PgConnection::query_once(const std::string& sql, const PgParams& params,
                                        const std::string& what) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const std::optional<std::string>& p : params) values.push_back(p ? p->c_str() : nullptr);
  // Without parameters, the simple protocol: it takes several statements (a migration step).
  int sent = params.empty() ? PQsendQuery(conn_, sql.c_str())
                            : PQsendQueryParams(conn_, sql.c_str(), static_cast<int>(values.size()),
                                                nullptr, values.data(), nullptr, nullptr, 0);
  if (sent == 0) return failure(what);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kPgAnswerDeadlineMs);
  for (int flushed = PQflush(conn_); flushed != 0; flushed = PQflush(conn_)) {
    if (flushed < 0) return failure(what);
    if (!wait_socket(POLLOUT | POLLIN, deadline)) return abandon(what);
    if (PQconsumeInput(conn_) == 0) return failure(what);
  }
  // As PQexec: the last statement's result, or the first error (the statements after it did not
  // run).
  PgRows rows(nullptr);
  bool failed = false;
  for (;;) {
    while (PQisBusy(conn_) != 0) {
      if (!wait_socket(POLLIN, deadline)) return abandon(what);
      if (PQconsumeInput(conn_) == 0) return failure(what);
    }
    pg_result* result = PQgetResult(conn_);
    if (result == nullptr) break;
    ExecStatusType status = PQresultStatus(result);
    if (failed) {
      PQclear(result);
      continue;
    }
    failed = status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK;
    rows = PgRows(result);
  }
  if (!failed && rows.has_result()) return rows;
  if (!rows.has_result() || PQstatus(conn_) != CONNECTION_OK) return failure(what);
  // The server answered with an error: not a lost connection, so not worth retrying.
  return Status(Code::kInternal,
                "job store: " + what + ": " + scrub(one_line(rows.error_message()), password_));
}

bool PgConnection::wait_socket(short events, std::chrono::steady_clock::time_point deadline) const {
  pollfd socket{PQsocket(conn_), events, 0};
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || socket.fd < 0) return false;
    int ready = ::poll(&socket, 1, static_cast<int>(left.count()));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return false;
  }
}

Status PgConnection::abandon(const std::string& what) {
  PQfinish(conn_);
  conn_ = nullptr;
  return {Code::kInternal,
          "job store: " + what + ": no answer within " +
              std::to_string(kPgAnswerDeadlineMs / 1000) + " s (connection dropped)",
          true};
}

Result<std::vector<PgConnection::Notice>> PgConnection::notices(double timeout_s) {
  std::vector<Notice> heard;
  auto collect = [&] {
    while (pgNotify* n = PQnotifies(conn_)) {
      heard.push_back({n->relname, n->extra});
      PQfreemem(n);
    }
  };
  if (PQconsumeInput(conn_) == 0) return failure("listen");
  collect();
  if (!heard.empty()) return heard;
  pollfd socket{PQsocket(conn_), POLLIN, 0};
  if (socket.fd < 0) return failure("listen");
  if (::poll(&socket, 1, static_cast<int>(timeout_s * 1000)) < 0) return heard;  // EINTR
  if (PQconsumeInput(conn_) == 0 || PQstatus(conn_) != CONNECTION_OK) return failure("listen");
  collect();
  return heard;
}

Status PgConnection::transaction(const std::function<Status()>& body, const std::string& what) {
  TC_RETURN_IF_ERROR(run("BEGIN", "begin " + what));
  in_transaction_ = true;
  Status status = body();
  if (status.is_ok()) status = run("COMMIT", "commit " + what);
  if (!status.is_ok()) (void)run("ROLLBACK", "roll back " + what);
  in_transaction_ = false;
  return status;
}

}  // namespace tc::daemon
