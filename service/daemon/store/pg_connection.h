// One libpq connection, owned: statements with text parameters, results owned too, errors as
// values. The password (from the URL, PGPASSFILE or a file) never appears in a message: libpq's
// own texts are scrubbed of it, and URLs are only ever shown redacted.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/status.h"

struct pg_conn;
struct pg_result;

namespace tc::daemon {

// A query's rows, as text (the engines parse the numbers they asked for).
class PgRows {
 public:
  explicit PgRows(pg_result* result);
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
  // `url`: a postgresql:// URI or key=value string; `password` overrides the URL's when not
  // empty. kInternal (retryable) naming the redacted URL when the server cannot be reached.
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
  PgConnection(pg_conn* conn, std::string password) : conn_(conn), password_(std::move(password)) {}
  Status failure(const std::string& what) const;
  Result<PgRows> query_once(const std::string& sql, const PgParams& params,
                            const std::string& what);
  bool connected();  // re-establishes a broken connection outside a transaction

  pg_conn* conn_;
  std::string password_;  // what to scrub from libpq's messages
  bool in_transaction_ = false;
};

// The URL with its password replaced by "***" (user:pass@ and password=... both), for logs.
std::string redact_store_url(const std::string& url);

// True for the URL schemes libpq takes as PostgreSQL URIs.
bool is_postgres_url(const std::string& url);

}  // namespace tc::daemon
