// One libpq connection, owned: statements with text parameters, results owned too, errors as
// values. The password (from the URL, PGPASSFILE or a file) never appears in a message: libpq's
// own texts are scrubbed of it, and URLs are only ever shown redacted.
//
// Every call has a time limit (docs/cluster.md, Time limits), so a hung or unreachable server
// costs an RPC a bounded wait and an UNAVAILABLE answer, never a hang: connecting gives up after
// kPgConnectTimeoutS; the server ends a statement after kPgStatementTimeoutMs (a lock wait after
// kPgLockTimeoutMs); and the client itself stops waiting for an answer after kPgAnswerDeadlineMs
// (a server that stopped, or a network path that drops packets, answers nothing, not even the
// statement timeout's error), drops the connection and reconnects at the next call. TCP
// keepalives and tcp_user_timeout find a dead peer of an idle connection the same way.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/status.h"

struct pg_conn;
struct pg_result;

namespace tc::daemon {

inline constexpr int kPgConnectTimeoutS = 5;
inline constexpr int kPgStatementTimeoutMs = 10000;
inline constexpr int kPgLockTimeoutMs = 5000;
// Longer than the statement timeout: a server that answers reports its own timeout first.
inline constexpr int kPgAnswerDeadlineMs = 15000;

// A query's rows, as text (the engines parse the numbers they asked for).
class PgRows {
 public:
  explicit PgRows(pg_result* result);
  bool has_result() const;            // false: the connection failed before any answer
  std::string error_message() const;  // the server's, for a failed statement
  int size() const;
  bool is_null(int row, int column) const;
  std::string text(int row, int column) const;
  int64_t integer(int row, int column) const;  // 0 for NULL or not a number
  int64_t affected() const;                    // rows an INSERT, UPDATE or DELETE touched

 private:
  struct Free {
    void operator()(pg_result* r) const;
  };
  std::unique_ptr<pg_result, Free> result_;
};

// Parameters travel as text, out of band ($1, $2, ...): nothing is spliced into SQL.
// nullopt is SQL NULL.
using PgParams = std::vector<std::optional<std::string>>;

class PgConnection {
 public:
  using Keywords = std::vector<std::pair<std::string, std::string>>;  // libpq's, in order
  // `url`: a postgresql:// URI or key=value string; `password` overrides the URL's when not
  // empty. kInternal (retryable) naming the redacted URL when the server cannot be reached;
  // kInvalidArgument (not retryable: a configuration error) when it refused the password.
  static Result<std::unique_ptr<PgConnection>> connect(const std::string& url,
                                                       const std::string& password);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Runs one statement. Outside a transaction, a connection that broke (the server restarted)
  // is re-established and the statement tried once more. `what` names the step in the error.
  Result<PgRows> query(const std::string& sql, const PgParams& params, const std::string& what);
  // Runs `body` between BEGIN and COMMIT; ROLLBACK when it fails. No reconnecting inside: the
  // statements after a lost connection would run outside the transaction.
  Status transaction(const std::function<Status()>& body, const std::string& what);
  Status run(const std::string& sql, const std::string& what) {
    return query(sql, {}, what).status();
  }

  // A NOTIFY heard on a channel this connection LISTENs to.
  struct Notice {
    std::string channel;
    std::string payload;
  };
  // The notices that arrived, waiting up to timeout_s for the first; an error when the
  // connection broke (LISTENs do not survive a reconnection: the caller connects afresh).
  Result<std::vector<Notice>> notices(double timeout_s);

 private:
  PgConnection(Keywords keywords, std::string password)
      : keywords_(std::move(keywords)), password_(std::move(password)) {}
  void open();  // a new connection from keywords_, bounded by the connect timeout
  Status failure(const std::string& what) const;
  Result<PgRows> query_once(const std::string& sql, const PgParams& params,
                            const std::string& what);
  // Waits until the socket is ready for `events`; false when the answer deadline passed.
  bool wait_socket(short events, std::chrono::steady_clock::time_point deadline) const;
  Status abandon(const std::string& what);  // no answer in time: the connection is dropped
  bool connected();  // re-establishes a broken connection outside a transaction

  Keywords keywords_;        // what open() connects with, the password among them
  pg_conn* conn_ = nullptr;  // null after abandon(), until connected() opens another
  std::string password_;     // what to scrub from libpq's messages
  bool in_transaction_ = false;
  // A reconnection that failed is not tried again before this: calls queued behind a hung
  // server answer UNAVAILABLE at once instead of each waiting for its own connect timeout.
  std::chrono::steady_clock::time_point next_reconnect_{};
};

// The URL with its password replaced by "***" (user:pass@ and password=... both), for logs.
std::string redact_store_url(const std::string& url);

// True for the URL schemes libpq takes as PostgreSQL URIs.
bool is_postgres_url(const std::string& url);

}  // namespace tc::daemon
