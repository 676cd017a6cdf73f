#include "tests/support/postgres_server.h"

#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

namespace fs = std::filesystem;

// The newest installed major version's programs (Debian 12: 15, Debian 13: 17), under
// TC_TEST_POSTGRESQL_DIR where set (pointed elsewhere it hides the server: the tests then skip).
std::string postgres_bin_dir() {
  const char* set = std::getenv("TC_TEST_POSTGRESQL_DIR");
  std::string root = set != nullptr && *set != '\0' ? set : "/usr/lib/postgresql";
  int newest = 0;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(root, ec)) {
    std::string bin = entry.path().string() + "/bin";
    int major = std::atoi(entry.path().filename().c_str());
    if (fs::exists(bin + "/initdb") && fs::exists(bin + "/pg_ctl") && major > newest)
      newest = major;
  }
  return newest ? root + "/" + std::to_string(newest) + "/bin" : "";
}

// The account the server runs as: `postgres` when we are root, ourselves otherwise.
const passwd* server_account() {
  return geteuid() == 0 ? getpwnam("postgres") : getpwuid(geteuid());
}

std::string read_log(const std::string& path) {
  ProcessResult cat = run_process({"cat", path});
  return cat.out;
}

}  // namespace

bool PostgresServer::run(const std::string& tool, std::vector<std::string> args,
                         std::string& output) const {
  std::vector<std::string> argv;
  if (geteuid() == 0) argv = {"runuser", "-u", "postgres", "--"};
  argv.push_back(bin_ + "/" + tool);
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult result = run_process(argv);
  output = result.out + result.err;
  return result.exit_code == 0;
}

std::unique_ptr<PostgresServer> PostgresServer::start(std::string& why_not) {
  std::string bin = postgres_bin_dir();
  const passwd* account = server_account();
  if (bin.empty() || account == nullptr) {
    why_not = "PostgreSQL is not installed (Debian's postgresql package: scripts/deps test)";
    return nullptr;
  }
  char name[] = "/tmp/tc-pg-XXXXXX";
  if (mkdtemp(name) == nullptr || chown(name, account->pw_uid, account->pw_gid) != 0) {
    ADD_FAILURE() << "cannot make a directory for PostgreSQL";
    return nullptr;
  }
  std::unique_ptr<PostgresServer> server(new PostgresServer(bin, name));
  std::string dir = name, output;
  if (!server->run(
          "initdb",
          {"-D", dir + "/data", "-A", "trust", "-U", "postgres", "-N", "-E", "UTF8", "--locale=C"},
          output)) {
    ADD_FAILURE() << "initdb failed:\n" << output;
    return nullptr;
  }
  // Unix socket in our directory only; fsync off: a test's data need not survive a crash.
  server->running_ = server->run("pg_ctl",
                                 {"-D", dir + "/data", "-l", dir + "/log", "-w", "-t", "60", "-o",
                                  "-k " + dir + " -c listen_addresses= -F", "start"},
                                 output);
  if (!server->running_) {
    ADD_FAILURE() << "pg_ctl start failed:\n" << output << read_log(dir + "/log");
    return nullptr;
  }
  return server;
}

PostgresServer::~PostgresServer() {
  std::string output;
  if (running_) run("pg_ctl", {"-D", dir_ + "/data", "-m", "immediate", "-w", "stop"}, output);
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string PostgresServer::url(const std::string& database) const {
  return "postgresql:///" + database + "?host=" + dir_ + "&user=postgres";
}

std::string PostgresServer::create_database(std::string& error) {
  std::string name = "tc_test_" + std::to_string(getpid()) + "_" + std::to_string(++databases_);
  if (!run("createdb", {"-h", dir_, "-U", "postgres", name}, error)) return "";
  return url(name);
}

namespace {

class SharedPostgres : public ::testing::Environment {
 public:
  void TearDown() override { server.reset(); }
  std::unique_ptr<PostgresServer> server;
  std::string why_not;
  bool tried = false;
};

SharedPostgres* shared_environment() {
  // gtest owns and deletes registered environments.
  static SharedPostgres* environment =
      static_cast<SharedPostgres*>(::testing::AddGlobalTestEnvironment(new SharedPostgres));
  return environment;
}

}  // namespace

PostgresServer* shared_postgres(std::string& why_not) {
  SharedPostgres* shared = shared_environment();
  if (!shared->tried) {
    shared->tried = true;
    shared->server = PostgresServer::start(shared->why_not);
  }
  why_not = shared->why_not;
  return shared->server.get();
}

}  // namespace tc::testing
