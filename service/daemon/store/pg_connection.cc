#include "service/daemon/store/pg_connection.h"

#include <libpq-fe.h>

#include <poll.h>

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

Result<std::unique_ptr<PgConnection>> PgConnection::connect(const std::string& url,
                                                            const std::string& password) {
  // expand_dbname: "dbname" is the whole URL; a later "password" keyword overrides its own.
  std::vector<const char*> keys = {"dbname", "connect_timeout"};
  std::vector<const char*> values = {url.c_str(), "10"};
  if (!password.empty()) keys.push_back("password"), values.push_back(password.c_str());
  keys.push_back(nullptr), values.push_back(nullptr);
  pg_conn* conn = PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
  // Server notices ("already exists, skipping") are not ours to print on stderr.
  if (conn != nullptr)
    PQsetNoticeProcessor(
        conn, [](void*, const char*) {}, nullptr);
  std::string secret = password.empty() ? url_password(url) : password;
  std::unique_ptr<PgConnection> connection(new PgConnection(conn, secret));
  if (conn == nullptr) return Status(Code::kInternal, "job store: out of memory");
  if (PQstatus(conn) != CONNECTION_OK)
    return Status(Code::kInternal,
                  "job store " + redact_store_url(url) +
                      ": cannot connect: " + scrub(one_line(PQerrorMessage(conn)), secret),
                  true);
  return connection;
}

PgConnection::~PgConnection() {
  PQfinish(conn_);
}

Status PgConnection::failure(const std::string& what) const {
  return {Code::kInternal,
          "job store: " + what + ": " + scrub(one_line(PQerrorMessage(conn_)), password_), true};
}

bool PgConnection::connected() {
  if (PQstatus(conn_) != CONNECTION_OK && !in_transaction_) PQreset(conn_);
  return PQstatus(conn_) == CONNECTION_OK;
}

Result<PgRows> PgConnection::query(const std::string& sql, const PgParams& params,
                                   const std::string& what) {
  if (!connected()) return failure(what + " (reconnecting)");
  Result<PgRows> rows = query_once(sql, params, what);
  if (rows.is_ok() || in_transaction_ || PQstatus(conn_) == CONNECTION_OK) return rows;
  if (!connected()) return rows;
  return query_once(sql, params, what);
}

Result<PgRows> PgConnection::query_once(const std::string& sql, const PgParams& params,
                                        const std::string& what) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const std::optional<std::string>& p : params) values.push_back(p ? p->c_str() : nullptr);
  // Without parameters, the simple protocol: it takes several statements (a migration step).
  pg_result* result = params.empty()
                          ? PQexec(conn_, sql.c_str())
                          : PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()),
                                         nullptr, values.data(), nullptr, nullptr, 0);
  PgRows rows(result);
  ExecStatusType status = PQresultStatus(result);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return rows;
  if (result == nullptr || PQstatus(conn_) != CONNECTION_OK) return failure(what);
  // The server answered with an error: not a lost connection, so not worth retrying.
  return Status(Code::kInternal, "job store: " + what + ": " +
                                     scrub(one_line(PQresultErrorMessage(result)), password_));
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
