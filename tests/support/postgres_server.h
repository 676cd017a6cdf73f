// A real PostgreSQL server for tests: Debian's `postgresql` package, started in a temp directory
// that its `postgres` user owns (data, unix socket and log there; no TCP), torn down after.
// Tests run as root and PostgreSQL refuses root, hence `runuser -u postgres --`.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace tc::testing {

class PostgresServer {
 public:
  // nullptr, with `why_not` set, where the package is not installed; a server that is
  // installed but does not start fails the calling test with its log.
  static std::unique_ptr<PostgresServer> start(std::string& why_not);
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // A new, empty database; its libpq URL ("" on failure, with the reason in `error`).
  std::string create_database(std::string& error);
  std::string url(const std::string& database) const;
  const std::string& socket_dir() const { return dir_; }

 private:
  PostgresServer(std::string bin, std::string dir) : bin_(std::move(bin)), dir_(std::move(dir)) {}
  bool run(const std::string& tool, std::vector<std::string> args, std::string& output) const;

  std::string bin_;  // /usr/lib/postgresql/N/bin
  std::string dir_;  // data/, the socket, log
  bool running_ = false;
  int databases_ = 0;
};

// One server for the whole test process, started on first use and stopped at exit (a gtest
// environment). nullptr with `why_not` where PostgreSQL cannot be had.
PostgresServer* shared_postgres(std::string& why_not);

}  // namespace tc::testing
