#include "daemon_fixture.h"

#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "pipeline/core/file.h"

extern char** environ;

namespace tc::test {
namespace fs = std::filesystem;

namespace {

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string capture(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  pclose(pipe);
  return out;
}

}  // namespace

std::string env_or_die(const char* name) {
  const char* value = std::getenv(name);
  if ((!value || !*value) && std::string(name) == "TC_TRANSCODE") value = TC_DEFAULT_TRANSCODE;
  if ((!value || !*value) && std::string(name) == "TRANSCODED") value = TC_DEFAULT_TRANSCODED;
  if (!value || !*value) {
    std::fprintf(stderr, "%s is not set (run the tests through ctest)\n", name);
    std::abort();
  }
  return value;
}

Daemon::~Daemon() {
  if (pid_ > 0) stop(SIGKILL);
}

bool Daemon::start(const std::vector<std::string>& extra_args, const std::string& fault,
                   const std::string& listen) {
  int out[2];
  if (pipe(out) != 0) return false;
  std::vector<std::string> args = {
      env_or_die("TRANSCODED"), "--listen",  listen,        "--state-dir", state_dir_,
      "--media-root",           media_root_, "--log-level", "warn"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("TC_TEST_FAULT=", 0) != 0) env_strings.push_back(*e);
  if (!fault.empty()) env_strings.push_back("TC_TEST_FAULT=" + fault);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  if (!log_file_.empty())
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_file_.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
  int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (rc != 0) {
    close(out[0]);
    pid_ = -1;
    return false;
  }
  // The daemon's stdout: "metrics ADDR" when asked for, then "listening ADDR".
  auto read_line = [fd = out[0]](std::string& line) {
    line.clear();
    char c;
    bool any = false;
    while (read(fd, &c, 1) == 1) {
      any = true;
      if (c == '\n') break;
      line += c;
    }
    return any;
  };
  std::string line;
  while (read_line(line) && line.rfind("metrics ", 0) == 0) metrics_address_ = line.substr(8);
  close(out[0]);
  if (line.rfind("listening ", 0) != 0) return false;
  address_ = line.substr(10);
  return true;
}

int Daemon::stop(int signal_number) {
  if (pid_ <= 0) return -1;
  kill(pid_, signal_number);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return status;
}

CommandResult run_client(const std::vector<std::string>& args) {
  TempDir dir;
  std::string command = quote(env_or_die("TC_TRANSCODE"));
  for (const std::string& a : args) command += " " + quote(a);
  command += " >" + dir.path() + "/out 2>" + dir.path() + "/err";
  CommandResult result;
  int status = std::system(command.c_str());
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_file_or_empty(dir.path() + "/out");
  result.err = read_file_or_empty(dir.path() + "/err");
  return result;
}

std::string http_get(const std::string& address, const std::string& path) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return "";
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(address.substr(0, colon).c_str(), address.substr(colon + 1).c_str(), &hints,
                  &found) != 0)
    return "";
  int fd = socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  bool connected = fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) == 0;
  freeaddrinfo(found);
  if (!connected) {
    if (fd >= 0) close(fd);
    return "";
  }
  std::string request = "GET " + path + " HTTP/1.0\r\nHost: " + address + "\r\n\r\n";
  if (write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
    close(fd);
    return "";
  }
  std::string response;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof buffer)) > 0) response.append(buffer, static_cast<size_t>(n));
  close(fd);
  size_t body = response.find("\r\n\r\n");
  if (response.rfind("HTTP/1.", 0) != 0 || response.find(" 200 ") == std::string::npos ||
      body == std::string::npos)
    return "";
  return response.substr(body + 4);
}

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t paren = text.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream fields(text.substr(paren + 2));
    std::string state;
    pid_t ppid = 0;
    if (fields >> state >> ppid && ppid == parent) found.push_back(std::stoi(name));
  }
  return found;
}

std::string process_name(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

// The zygote's command line says --zygote from its start, before it names itself; the workers
// it forks inherit that command line but name themselves tc-worker.
bool is_zygote(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string executable, first;
  std::getline(in, executable, '\0');
  std::getline(in, first, '\0');
  return first == "--zygote" && process_name(pid) != "tc-worker";
}

std::vector<pid_t> workers_of(pid_t daemon) {
  std::vector<pid_t> workers = children_of(daemon);
  std::erase_if(workers, is_zygote);
  return workers;
}

pid_t zygote_of(pid_t daemon) {
  for (pid_t pid : children_of(daemon))
    if (is_zygote(pid)) return pid;
  return -1;
}

int shell(const std::string& command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool make_clip(const std::string& path, double seconds) {
  std::string t = std::to_string(seconds);
  return shell("ffmpeg -v error -y -f lavfi -i testsrc2=size=320x240:rate=30 -f lavfi -i sine -t " +
               t + " -c:v libx264 -preset ultrafast -c:a aac " + quote(path)) == 0;
}

int video_frames(const std::string& path) {
  std::string out = capture(
      "ffprobe -v error -select_streams v:0 -count_packets -show_entries "
      "stream=nb_read_packets -of csv=p=0 " +
      quote(path) + " 2>/dev/null");
  return std::atoi(out.c_str());
}

std::vector<std::string> partial_files(const std::string& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() > 8 && name.compare(name.size() - 8, 8, ".partial") == 0)
      found.push_back(entry.path().string());
  }
  return found;
}

bool wait_until(const std::function<bool()>& done, std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return done();
}

}  // namespace tc::test
