#include "service/daemon/config.h"

#include <yaml-cpp/yaml.h>
#include <CLI/CLI.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>
#include <cstring>
#include <filesystem>
#include <functional>
#include <set>
#include <sstream>

#include "pipeline/core/file.h"
#include "pipeline/spec/job_spec.h"
#include "service/common/command_line.h"
#include "service/daemon/webhook/webhook_address.h"
#include "service/daemon/webhook/webhook_signer.h"

namespace tc::daemon {
namespace {

enum class Kind { kString, kInt, kDouble, kBool, kList };

// One setting: its YAML key, its flag, and how a text value lands in DaemonConfig.
struct Setting {
  const char* key;
  Kind kind;
  const char* help;
  std::function<Status(DaemonConfig&, const std::string&)> set;
  std::function<void(DaemonConfig&)> clear = nullptr;  // lists: forget the file's items
};

std::string flag_of(const char* key) {
  std::string flag = std::string("--") + key;
  for (char& c : flag) c = c == '_' ? '-' : c;
  return flag;
}

// Messages leave the setting's name out: the caller knows how the user spelled it.
Status bad_value(const std::string& value, const char* want) {
  return {Code::kInvalidArgument, "'" + value + "' is not " + want};
}

template <typename T>
Status parse_number(const std::string& text, T& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size()) return {Code::kInvalidArgument, ""};
  return {};
}

Status parse_double(const std::string& text, double& out) {
  try {
    size_t used = 0;
    out = std::stod(text, &used);
    if (used == text.size()) return {};
  } catch (const std::exception&) {
  }
  return {Code::kInvalidArgument, ""};
}

Status parse_bool(const std::string& text, bool& out) {
  if (text == "true" || text == "yes" || text == "1" || text == "on") return out = true, Status{};
  if (text == "false" || text == "no" || text == "0" || text == "off") return out = false, Status{};
  return {Code::kInvalidArgument, ""};
}

Setting string_setting(const char* key, std::string DaemonConfig::*field, const char* help) {
  return {key, Kind::kString, help, [field](DaemonConfig& c, const std::string& v) {
            c.*field = v;
            return Status{};
          }};
}

template <typename T>
Setting int_setting(const char* key, T DaemonConfig::*field, const char* help) {
  return {key, Kind::kInt, help, [field](DaemonConfig& c, const std::string& v) {
            if (!parse_number(v, c.*field).is_ok()) return bad_value(v, "an integer");
            return Status{};
          }};
}

Setting double_setting(const char* key, double DaemonConfig::*field, const char* help) {
  return {key, Kind::kDouble, help, [field](DaemonConfig& c, const std::string& v) {
            if (!parse_double(v, c.*field).is_ok()) return bad_value(v, "a number");
            return Status{};
          }};
}

Setting bool_setting(const char* key, bool DaemonConfig::*field, const char* help) {
  return {key, Kind::kBool, help, [field](DaemonConfig& c, const std::string& v) {
            if (!parse_bool(v, c.*field).is_ok()) return bad_value(v, "true or false");
            return Status{};
          }};
}

Setting list_setting(const char* key, std::vector<std::string> DaemonConfig::*field,
                     const char* help) {
  return {key, Kind::kList, help,
          [field](DaemonConfig& c, const std::string& v) {
            (c.*field).push_back(v);
            return Status{};
          },
          [field](DaemonConfig& c) { (c.*field).clear(); }};
}

const std::vector<Setting>& settings() {
  using C = DaemonConfig;
  static const std::vector<Setting> table = {
      string_setting("listen", &C::listen, "host:port or unix:PATH"),
      string_setting("state_dir", &C::state_dir, "directory of the job database"),
      list_setting("media_root", &C::media_roots,
                   "inputs and outputs must resolve inside one (repeatable)"),
      list_setting("allow_protocol", &C::allowed_protocols,
                   "an input protocol beyond files, e.g. http (repeatable)"),
      int_setting("max_queue", &C::max_queue, "queued jobs at most"),
      int_setting("slots", &C::slots, "cap on jobs at once per device; 0 = per backend"),
      int_setting("max_outputs", &C::max_outputs, "outputs per job at most"),
      int_setting("max_pixels", &C::max_pixels, "width x height of an output at most; 0 = any"),
      double_setting("max_duration", &C::max_duration_s, "seconds of media per job; 0 = any"),
      double_setting("stall_timeout", &C::stall_timeout_s, "seconds without progress"),
      double_setting("cancel_grace", &C::cancel_grace_s, "seconds from SIGTERM to SIGKILL"),
      double_setting("shutdown_grace", &C::shutdown_grace_s, "seconds running jobs get at exit"),
      int_setting("max_attempts", &C::max_attempts,
                  "runs of a job: across node deaths, and retries of retryable failures"),
      double_setting("retry_base", &C::retry_base_s,
                     "seconds before a retryable failure runs again, doubling per attempt"),
      double_setting("retry_cap", &C::retry_cap_s, "seconds a retry waits at most"),
      double_setting("retention_hours", &C::retention_hours, "hours finished jobs are kept"),
      string_setting("store", &C::store,
                     "postgresql://... URL of a shared job store; unset = SQLite in state_dir"),
      string_setting("store_password_file", &C::store_password_file,
                     "file holding the store's password"),
      string_setting("node_id", &C::node_id,
                     "this daemon's name in the cluster; unset = host name"),
      double_setting("lease", &C::lease_s,
                     "seconds a node holds a running job without renewing it (cluster)"),
      double_setting("capable_node_wait", &C::capable_node_wait_s,
                     "seconds a queued job waits for a live node offering its backend, then "
                     "fails; 0 = for ever (cluster)"),
      double_setting("fair_share_window", &C::fair_share_window_s,
                     "seconds of measured use the claim's fair share weighs (the same on every "
                     "node)"),
      double_setting("node_forget", &C::node_forget_s,
                     "seconds after its last heartbeat a gone node is no longer listed (cluster)"),
      double_setting("claim_poll", &C::claim_poll_s,
                     "seconds between looks at the queue besides wake-ups (cluster)"),
      list_setting("backend", &C::backends,
                   "a backend this node offers (repeatable); unset = every one it has"),
      double_setting("discovery_timeout", &C::discovery_timeout_s,
                     "seconds device discovery may take at start-up; then it is stopped and "
                     "the node serves without its devices"),
      int_setting("worker_memory_mb", &C::worker_memory_mb, "address space of a worker; 0 = any"),
      int_setting("warm_workers", &C::warm_workers,
                  "workers kept started and set up, per device, for the next jobs; 0 = none"),
      double_setting("warm_idle", &C::warm_idle_s,
                     "seconds a device's warm workers may wait unused before they stop"),
      int_setting("worker_jobs", &C::worker_jobs,
                  "jobs a warm worker runs one after another before it exits; 1 = a fresh "
                  "process per job"),
      int_setting("gop_parallel", &C::gop_parallel,
                  "libx264 encoders per output, each a chunk of whole GOPs: 0 = auto from the "
                  "cores, 1 = one (less memory)"),
      bool_setting("worker_zygote", &C::worker_zygote,
                   "fork workers from a zygote set up once instead of executing each"),
      bool_setting("worker_landlock", &C::worker_landlock,
                   "Landlock workers to the media roots where the kernel has it"),
      string_setting("tls_cert", &C::tls_cert, "server certificate chain (PEM)"),
      string_setting("tls_key", &C::tls_key, "server private key (PEM)"),
      string_setting("tls_client_ca", &C::tls_client_ca, "CA of client certificates (mTLS)"),
      string_setting("auth_token_file", &C::auth_token_file, "file holding the bearer token"),
      string_setting("preset_dir", &C::preset_dir,
                     "directory of preset files (*.json) served beside the built-in presets; "
                     "unset = built-ins only"),
      string_setting("webhook_secret_file", &C::webhook_secret_file,
                     "file holding the key that signs webhooks; unset = no webhooks"),
      list_setting("webhook_allow", &C::webhook_allow,
                   "CIDR or host webhooks may reach beyond public addresses (repeatable)"),
      bool_setting("allow_insecure_remote", &C::allow_insecure_remote,
                   "listen beyond loopback without TLS"),
      string_setting("log_level", &C::log_level, "trace, debug, info, warn, error"),
      string_setting("metrics_listen", &C::metrics_listen,
                     "host:port of the Prometheus endpoint (/metrics); unset = off"),
      string_setting("health_listen", &C::health_listen,
                     "host:port of a plaintext listener serving only grpc.health.v1 (probes "
                     "beside a TLS listen); unset = off"),
      string_setting("http_listen", &C::http_listen,
                     "host:port of the HTTP/JSON API (the gRPC API's routes, same token and "
                     "TLS); unset = off"),
      string_setting("proc_root", &C::proc_root, "where workers' /proc entries are read"),
      string_setting("cgroup_root", &C::cgroup_root,
                     "the cgroup v2 filesystem whose memory.max bounds the workers' memory"),
      double_setting("sample_interval", &C::sample_interval_s,
                     "seconds between engine samples of a worker"),
  };
  return table;
}

const Setting* find_by_key(const std::string& key) {
  for (const Setting& s : settings())
    if (key == s.key) return &s;
  return nullptr;
}

Status apply_yaml_value(DaemonConfig& config, const Setting& setting, const YAML::Node& value) {
  if (setting.kind == Kind::kList) {
    setting.clear(config);
    if (value.IsScalar()) return setting.set(config, value.as<std::string>());
    if (!value.IsSequence()) return {Code::kInvalidArgument, "expected a list"};
    for (const YAML::Node& item : value)
      TC_RETURN_IF_ERROR(setting.set(config, item.as<std::string>()));
    return {};
  }
  if (!value.IsScalar()) return {Code::kInvalidArgument, "expected a single value"};
  return setting.set(config, value.as<std::string>());
}

// YAML keys are the settings' names; "media_roots"/"allow_protocols" plurals read as lists too.
Status apply_yaml(DaemonConfig& config, const std::string& path) {
  Result<std::string> text = read_file(path);
  if (!text.is_ok()) return {Code::kInvalidArgument, "--config: " + text.status().message()};
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    return {Code::kInvalidArgument, "--config: " + path + ": " + e.what()};
  }
  if (root.IsNull()) return {};
  if (!root.IsMap()) return {Code::kInvalidArgument, "--config: " + path + ": expected a mapping"};
  for (const auto& entry : root) {
    // A list or mapping as a key ("? [a, b]") would throw from as<std::string>().
    if (!entry.first.IsScalar())
      return {Code::kInvalidArgument, "--config: " + path + ": a key must be a setting's name"};
    std::string key = entry.first.as<std::string>();
    const Setting* setting = find_by_key(key);
    if (!setting && !key.empty() && key.back() == 's')
      setting = find_by_key(key.substr(0, key.size() - 1));
    if (!setting) return {Code::kInvalidArgument, path + ": unknown setting '" + key + "'"};
    Status status;
    try {
      status = apply_yaml_value(config, *setting, entry.second);
    } catch (const YAML::Exception& e) {
      status = {Code::kInvalidArgument, e.what()};
    }
    if (!status.is_ok())
      return {Code::kInvalidArgument, path + ": " + key + ": " + status.message()};
  }
  return {};
}

// The daemon's command line, from the settings table: --config FILE, a flag per setting.
struct CommandLine {
  CLI::App app;
  CLI::Option* config_files;
  std::vector<std::pair<const Setting*, CLI::Option*>> flags;
};

void define(CommandLine& line) {
  CLI::App& app = line.app;
  set_up_app(app, "transcoded");
  app.description(
      "The transcoding daemon (gRPC). Every option is also a key of the YAML file given with "
      "--config (the option without --, '-' as '_'); options override the file.\n"
      "`transcoded --worker` (internal) runs one job from stdin; `transcoded --zygote` "
      "(internal) forks workers.");
  line.config_files =
      app.add_option("--config", "YAML file of settings (see config/transcoded.yaml)")
          ->type_name("FILE")
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  for (const Setting& setting : settings()) {
    CLI::Option* flag =
        setting.kind == Kind::kBool
            ? app.add_flag(flag_of(setting.key))
            : app.add_option(flag_of(setting.key))
                  ->type_name(setting.kind == Kind::kString || setting.kind == Kind::kList ? "VALUE"
                                                                                           : "N");
    flag->description(setting.help);
    if (setting.kind == Kind::kList) flag->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    line.flags.emplace_back(&setting, flag);
  }
}

// A flag replaces the file's value; a list flag, repeated, replaces the file's whole list.
Status apply_flag(DaemonConfig& config, const Setting& setting, const CLI::Option& flag) {
  if (flag.count() == 0) return {};
  std::vector<std::string> values = flag.results();
  if (setting.kind == Kind::kList)
    setting.clear(config);
  else
    values = {values.back()};
  for (const std::string& value : values) {
    Status status = setting.set(config, value);
    if (!status.is_ok())
      return {Code::kInvalidArgument, flag_of(setting.key) + ": " + status.message()};
  }
  return {};
}

Status require(bool ok, const char* key, const std::string& what) {
  if (ok) return {};
  return {Code::kInvalidArgument, std::string(key) + " (" + flag_of(key) + "): " + what};
}

}  // namespace

Result<DaemonCommand> parse_daemon_command_line(const std::vector<std::string>& args) {
  CommandLine line;
  define(line);
  DaemonCommand command;
  TC_ASSIGN_OR_RETURN(command.reply, parse_command_line(line.app, args));
  if (command.reply) return command;
  for (const std::string& path : line.config_files->results())
    TC_RETURN_IF_ERROR(apply_yaml(command.config, path));
  for (const auto& [setting, flag] : line.flags)
    TC_RETURN_IF_ERROR(apply_flag(command.config, *setting, *flag));
  return command;
}

Result<DaemonConfig> load_config(const std::vector<std::string>& args, bool& help) {
  TC_ASSIGN_OR_RETURN(DaemonCommand command, parse_daemon_command_line(args));
  help = command.reply.has_value();
  return command.config;
}

namespace {

// "127.0.0.1:50051" -> "127.0.0.1"; "[::1]:50051" -> "::1".
std::string host_of(const std::string& listen) {
  std::string host = listen.substr(0, listen.rfind(':'));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return host;
}

bool is_loopback_ipv4(const in_addr& address) {
  return (ntohl(address.s_addr) >> 24) == 127;
}

}  // namespace

// By address, never by text: "127.0.0.1.example.com" is a hostname that resolves anywhere.
bool is_loopback_address(const std::string& listen) {
  if (listen.rfind("unix:", 0) == 0) return true;
  std::string host = host_of(listen);
  if (host == "localhost") return true;
  in_addr v4{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) return is_loopback_ipv4(v4);
  in6_addr v6{};
  if (::inet_pton(AF_INET6, host.c_str(), &v6) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  if (!IN6_IS_ADDR_V4MAPPED(&v6)) return false;
  std::memcpy(&v4, &v6.s6_addr[12], sizeof v4);
  return is_loopback_ipv4(v4);
}

std::vector<std::string> config_warnings(const DaemonConfig& c) {
  std::vector<std::string> warnings;
  if (c.tls_cert.empty() && !is_loopback_address(c.listen))
    warnings.push_back("listen " + c.listen +
                       ": serving without TLS beyond loopback (allow_insecure_remote): tokens "
                       "and media paths cross the network in clear text");
  // Client certificates (mTLS) are an authentication of their own.
  if (c.auth_token.empty() && c.tls_client_ca.empty() && !is_loopback_address(c.listen))
    warnings.push_back("listen " + c.listen +
                       ": no auth_token_file or tls_client_ca: anyone who reaches the port can "
                       "submit jobs");
  if (!c.metrics_listen.empty() && !is_loopback_address(c.metrics_listen))
    warnings.push_back("metrics_listen " + c.metrics_listen +
                       ": the metrics endpoint has no authentication and is reachable beyond "
                       "loopback");
  return warnings;
}

Status validate_config(const DaemonConfig& c) {
  TC_RETURN_IF_ERROR(require(!c.listen.empty(), "listen", "must not be empty"));
  TC_RETURN_IF_ERROR(
      require(c.listen.rfind("unix:", 0) == 0 || c.listen.find(':') != std::string::npos, "listen",
              "'" + c.listen + "' is not host:port or unix:PATH"));
  TC_RETURN_IF_ERROR(require(!c.state_dir.empty(), "state_dir", "must not be empty"));
  TC_RETURN_IF_ERROR(require(c.max_queue >= 1, "max_queue", "must be at least 1"));
  TC_RETURN_IF_ERROR(require(c.slots >= 0 && c.slots <= 256, "slots", "must be 0..256"));
  TC_RETURN_IF_ERROR(
      require(c.warm_workers >= 0 && c.warm_workers <= 16, "warm_workers", "must be 0..16"));
  TC_RETURN_IF_ERROR(require(c.warm_idle_s > 0, "warm_idle", "must be positive"));
  TC_RETURN_IF_ERROR(require(c.discovery_timeout_s >= 0.1 && c.discovery_timeout_s <= 3600,
                             "discovery_timeout", "must be 0.1..3600 seconds"));
  TC_RETURN_IF_ERROR(
      require(c.worker_jobs >= 1 && c.worker_jobs <= 10000, "worker_jobs", "must be 1..10000"));
  TC_RETURN_IF_ERROR(require(c.gop_parallel >= 0 && c.gop_parallel <= kMaxGopParallel,
                             "gop_parallel", "must be 0.." + std::to_string(kMaxGopParallel)));
  TC_RETURN_IF_ERROR(
      require(c.max_outputs >= 1 && c.max_outputs <= 64, "max_outputs", "must be 1..64"));
  TC_RETURN_IF_ERROR(require(c.max_pixels >= 0, "max_pixels", "must not be negative"));
  TC_RETURN_IF_ERROR(require(c.max_duration_s >= 0, "max_duration", "must not be negative"));
  TC_RETURN_IF_ERROR(require(c.stall_timeout_s > 0, "stall_timeout", "must be positive"));
  TC_RETURN_IF_ERROR(require(c.cancel_grace_s >= 0, "cancel_grace", "must not be negative"));
  TC_RETURN_IF_ERROR(require(c.shutdown_grace_s >= 0, "shutdown_grace", "must not be negative"));
  TC_RETURN_IF_ERROR(require(c.max_attempts >= 1, "max_attempts", "must be at least 1"));
  TC_RETURN_IF_ERROR(require(c.retry_base_s >= 0, "retry_base", "must be at least 0"));
  TC_RETURN_IF_ERROR(
      require(c.retry_cap_s >= c.retry_base_s, "retry_cap", "must be at least retry_base"));
  TC_RETURN_IF_ERROR(require(c.retention_hours > 0, "retention_hours", "must be positive"));
  TC_RETURN_IF_ERROR(require(c.lease_s >= 1 && c.lease_s <= 3600, "lease", "must be 1..3600 s"));
  TC_RETURN_IF_ERROR(
      require(c.capable_node_wait_s >= 0, "capable_node_wait", "must not be negative"));
  TC_RETURN_IF_ERROR(require(c.fair_share_window_s >= 1 && c.fair_share_window_s <= 30 * 86400,
                             "fair_share_window", "must be 1 s..30 days"));
  TC_RETURN_IF_ERROR(
      require(c.claim_poll_s >= 0.05 && c.claim_poll_s <= 60, "claim_poll", "must be 0.05..60 s"));
  TC_RETURN_IF_ERROR(
      require(c.node_forget_s >= c.lease_s, "node_forget", "must be at least lease"));
  for (const std::string& b : c.backends)
    TC_RETURN_IF_ERROR(
        require(b == "software" || b == "vaapi" || b == "qsv" || b == "vulkan" || b == "cuda",
                "backend", "'" + b + "' is not software, vaapi, qsv, vulkan or cuda"));
  TC_RETURN_IF_ERROR(require(c.worker_memory_mb == 0 || c.worker_memory_mb >= 256,
                             "worker_memory_mb", "must be 0 (no limit) or at least 256"));
  TC_RETURN_IF_ERROR(require(c.tls_cert.empty() == c.tls_key.empty(), "tls_key",
                             "tls_cert and tls_key are set together"));
  TC_RETURN_IF_ERROR(require(c.tls_client_ca.empty() || !c.tls_cert.empty(), "tls_client_ca",
                             "needs tls_cert and tls_key"));
  static const std::set<std::string> levels = {"trace", "debug", "info", "warn", "error"};
  TC_RETURN_IF_ERROR(require(levels.count(c.log_level) > 0, "log_level",
                             "'" + c.log_level + "' is not trace, debug, info, warn or error"));
  for (const std::string& p : c.allowed_protocols)
    TC_RETURN_IF_ERROR(require(!p.empty() && p.find_first_of(":/ ") == std::string::npos,
                               "allow_protocol", "'" + p + "' is not a protocol name (e.g. http)"));
  TC_RETURN_IF_ERROR(
      require(c.metrics_listen.empty() || (c.metrics_listen.rfind("unix:", 0) != 0 &&
                                           c.metrics_listen.find(':') != std::string::npos),
              "metrics_listen", "'" + c.metrics_listen + "' is not host:port"));
  TC_RETURN_IF_ERROR(
      require(c.health_listen.empty() || (c.health_listen.rfind("unix:", 0) != 0 &&
                                          c.health_listen.find(':') != std::string::npos),
              "health_listen", "'" + c.health_listen + "' is not host:port"));
  TC_RETURN_IF_ERROR(require(
      c.http_listen.empty() ||
          (c.http_listen.rfind("unix:", 0) != 0 && c.http_listen.find(':') != std::string::npos),
      "http_listen", "'" + c.http_listen + "' is not host:port"));
  TC_RETURN_IF_ERROR(require(c.http_listen.empty() || c.tls_cert.empty() || c.tls_client_ca.empty(),
                             "http_listen", "client certificates (tls_client_ca) are gRPC only"));
  TC_RETURN_IF_ERROR(require(!c.proc_root.empty(), "proc_root", "must not be empty"));
  TC_RETURN_IF_ERROR(require(c.sample_interval_s >= 0.05 && c.sample_interval_s <= 60,
                             "sample_interval", "must be 0.05..60 seconds"));
  bool secure = !c.tls_cert.empty();
  TC_RETURN_IF_ERROR(require(secure || c.allow_insecure_remote || is_loopback_address(c.listen),
                             "listen",
                             "'" + c.listen +
                                 "' is not loopback: set tls_cert and tls_key, "
                                 "or allow_insecure_remote"));
  TC_RETURN_IF_ERROR(require(c.http_listen.empty() || secure || c.allow_insecure_remote ||
                                 is_loopback_address(c.http_listen),
                             "http_listen",
                             "'" + c.http_listen +
                                 "' is not loopback: set tls_cert and tls_key, "
                                 "or allow_insecure_remote"));
  return {};
}

// The lines of webhook_secret_file, like the token's: an editor's newline is no part of one.
// One secret, or two while rotating (the new one and the old, both signing).
Status read_webhook_secret(DaemonConfig& config) {
  if (config.webhook_secret_file.empty()) return {};
  Result<std::string> text = read_file(config.webhook_secret_file);
  if (!text.is_ok())
    return {Code::kInvalidArgument, "webhook_secret_file: " + text.status().message()};
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    Result<std::string> key = webhook_key(line);
    if (!key.is_ok())
      return {Code::kInvalidArgument, "webhook_secret_file: " + key.status().message()};
    if (config.webhook_keys.empty()) config.webhook_secret = line;
    config.webhook_keys.push_back(std::move(*key));
  }
  if (config.webhook_keys.empty())
    return {Code::kInvalidArgument,
            "webhook_secret_file: " + config.webhook_secret_file + " is empty"};
  if (config.webhook_keys.size() > 2)
    return {Code::kInvalidArgument, "webhook_secret_file: at most two secrets (one rotating)"};
  return {};
}

namespace {

// The built-in presets and preset_dir's, each file checked now: a bad one refuses the start.
Status read_presets(DaemonConfig& config) {
  std::error_code error;
  if (!config.preset_dir.empty() && !std::filesystem::is_directory(config.preset_dir, error))
    return {Code::kInvalidArgument, "preset_dir: " + config.preset_dir + " is not a directory"};
  Result<std::vector<Preset>> presets = load_presets(config.preset_dir, {});
  if (!presets.is_ok())
    return {Code::kInvalidArgument, "preset_dir: " + presets.status().message()};
  config.presets = std::move(presets).value();
  return {};
}

}  // namespace

Status finish_config(DaemonConfig& config) {
  if (!config.auth_token_file.empty()) {
    Result<std::string> text = read_file(config.auth_token_file);
    if (!text.is_ok())
      return {Code::kInvalidArgument, "auth_token_file: " + text.status().message()};
    config.auth_token = text->substr(0, text->find_first_of("\r\n"));
    if (config.auth_token.empty())
      return {Code::kInvalidArgument, "auth_token_file: " + config.auth_token_file + " is empty"};
  }
  TC_RETURN_IF_ERROR(read_webhook_secret(config));
  TC_RETURN_IF_ERROR(read_presets(config));
  TC_RETURN_IF_ERROR(parse_webhook_allow(config.webhook_allow).status());
  // Fail at start-up, naming the setting, rather than at the first TLS handshake.
  const std::pair<const char*, const std::string*> files[] = {
      {"tls_cert", &config.tls_cert},
      {"tls_key", &config.tls_key},
      {"tls_client_ca", &config.tls_client_ca}};
  for (const auto& [key, path] : files) {
    if (path->empty()) continue;
    Result<std::string> text = read_file(*path);
    if (!text.is_ok())
      return {Code::kInvalidArgument, std::string(key) + ": " + text.status().message()};
  }
  return {};
}

}  // namespace tc::daemon
