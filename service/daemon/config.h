// The daemon's settings: built-in defaults, then a YAML file (--config FILE), then flags. Every
// setting has a YAML key and a flag, both from one table (config.cc), so neither can be
// forgotten. Errors name the setting, as the user spelled it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/presets/preset.h"

namespace tc::daemon {

// The sanitizers' runtimes keep per-thread state that the zygote's raw clone leaves stale (and
// TSan runs a thread of its own, so the zygote would not be single-threaded): their builds
// execute every worker.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kZygoteByDefault = false;
#else
inline constexpr bool kZygoteByDefault = true;
#endif

struct DaemonConfig {
  // Network
  std::string listen = "127.0.0.1:50051";  // host:port or unix:PATH
  std::string tls_cert;                    // PEM files; TLS is on when cert and key are set
  std::string tls_key;
  std::string tls_client_ca;           // set: clients must present a certificate it signed (mTLS)
  std::string auth_token_file;         // set: RPCs need "authorization: Bearer <its first line>"
  bool allow_insecure_remote = false;  // listen beyond loopback without TLS

  // Storage
  std::string state_dir = "/var/lib/transcoded";
  double retention_hours = 168;  // how long finished jobs are kept
  int max_attempts = 3;          // runs of a job: interrupted by node deaths, or retried
  double retry_base_s = 10;      // the delay before a retryable failure's next attempt, doubling
  double retry_cap_s = 300;      // ... up to this

  // Cluster (README, Cluster)
  std::string store;                // postgresql://... = the shared cluster store; empty = SQLite
  std::string store_password_file;  // the store's password, when neither URL nor PGPASSFILE has it
  std::string node_id;              // this daemon in the cluster; empty = the host name
  double lease_s = 30;           // a running job's lease, renewed every lease_s / 3 (at most 5 s)
  double claim_poll_s = 2;       // the claim loop's poll, besides LISTEN/NOTIFY wake-ups
  double node_forget_s = 86400;  // a gone node's row is dropped this long after its last beat
  // A queued job whose backend no live node offers waits this long for one, then fails; 0 =
  // for ever. An hour: a GPU node's reboot or driver upgrade, not a backend the cluster lacks.
  double capable_node_wait_s = 3600;
  // The claim's fair share weighs the use measured within this many seconds (docs/tenants.md):
  // an hour remembers a tenant's last burst without holding it against them all day. The same
  // on every node of a cluster, or the nodes order tenants differently.
  double fair_share_window_s = 3600;
  std::vector<std::string> backends;  // what this node offers; empty = every backend it has
  // Device discovery at start-up runs in a child given this long (discovery_child.h); past it
  // the node serves without its devices.
  double discovery_timeout_s = 30;

  // Requests
  std::vector<std::string> media_roots;        // empty = the daemon's working directory
  std::vector<std::string> allowed_protocols;  // beyond plain files: "http", "rtmp", ...
  int max_outputs = 8;
  long long max_pixels = 3840LL * 2160;  // per output frame; 0 = no cap
  double max_duration_s = 0;             // of media per job; 0 = no cap

  // Scheduling and workers
  int max_queue = 100;
  int slots = 0;  // cap on jobs at once per device; 0 = per backend (software: cores, GPU: 16)
  double stall_timeout_s = 60;        // no progress for this long: the watchdog kills the worker
  double cancel_grace_s = 10;         // SIGTERM to SIGKILL
  double shutdown_grace_s = 30;       // running jobs may finish for this long on SIGTERM
  long long worker_memory_mb = 8192;  // RLIMIT_AS of a worker; 0 = unlimited; cuda jobs lift it
  bool worker_landlock = true;        // workers see only the roots and system dirs (landlock.h)
  int warm_workers = 1;               // workers started ahead of jobs, per device (worker_pool.h)
  double warm_idle_s = 600;           // a device's warm workers unused this long are stopped
  int worker_jobs = 1;  // jobs a warm worker runs one after another; 1 = fresh per job
  bool worker_zygote = kZygoteByDefault;  // workers forked from a zygote (zygote.h)
  // libx264 encoders per output of a job (README, GOP-parallel encoding): 0 = auto from the
  // cores, as `transcode run`; 1 = one, which keeps a job's memory below the ffmpeg CLI's.
  int gop_parallel = 0;

  std::string log_level = "info";  // trace, debug, info, warn, error

  // Metrics
  std::string metrics_listen;  // host:port of the Prometheus text endpoint; empty = off
  // host:port of a plaintext gRPC listener serving grpc.health.v1 only, for probes that cannot
  // speak TLS (Kubernetes' grpc probes) while `listen` has it; empty = off.
  std::string health_listen;
  // host:port of the HTTP/JSON API: the gRPC API's routes (http.proto), its token and its TLS
  // (tls_cert/tls_key). Empty = off: a second port is a second surface to secure and expose, and
  // a deployment asks for it (docs/daemon.md, HTTP API).
  std::string http_listen;
  // The cgroup v2 filesystem: the memory.max the daemon runs under (memory_budget.h) is read
  // from here (tests: a fake).
  std::string cgroup_root = "/sys/fs/cgroup";
  // Where workers' fdinfo and stat, and the NVIDIA driver's version, are read (tests: a fake).
  std::string proc_root = "/proc";
  double sample_interval_s = 0.5;  // engine and CPU sampling of each worker

  // The token itself, read from auth_token_file by load().
  std::string auth_token;

  // A directory of preset files (*.json, service/presets/preset.h) the daemon serves beside the
  // built-in ones (ListPresets), so a team keeps its presets in one place; empty = built-ins only.
  std::string preset_dir;
  std::vector<Preset> presets;  // the built-ins and preset_dir's, read by finish_config()

  // Webhooks (README, Webhooks): the secrets' file, and the HMAC keys read from it at start-up
  // (one per line; two while rotating, each delivery signed with both).
  std::string webhook_secret_file;
  std::string webhook_secret;  // the first line as written (empty = no webhooks)
  std::vector<std::string> webhook_keys;
  // Where webhooks may go beyond public addresses: CIDRs and host names (webhook_address.h).
  std::vector<std::string> webhook_allow;
};

// What the command line asks for: the settings to serve with, or (--help, --version) a text to
// print on stdout before exiting 0.
struct DaemonCommand {
  DaemonConfig config;
  std::optional<std::string> reply;
};

// Parses the daemon's command line (without argv[0]): the --config files in order, then every
// other flag over them. kInvalidArgument names the flag or YAML key ("unknown option --x").
Result<DaemonCommand> parse_daemon_command_line(const std::vector<std::string>& args);

// The settings alone; `help` is set when --help or --version was given.
Result<DaemonConfig> load_config(const std::vector<std::string>& args, bool& help);

// Checks ranges and the combination of settings (TLS files, a non-loopback listen address).
Status validate_config(const DaemonConfig& config);

// Reads files the config names (the token) and resolves defaults that depend on the process.
Status finish_config(DaemonConfig& config);

// True for 127.0.0.0/8, [::1] (and ::ffff:127.x), localhost and unix: addresses, parsed as
// addresses: any other hostname is not loopback.
bool is_loopback_address(const std::string& listen);
// What a finished configuration exposes that an operator should hear about at start-up: an
// insecure listener beyond loopback, a remote one without a token, a remote metrics endpoint.
std::vector<std::string> config_warnings(const DaemonConfig& config);

}  // namespace tc::daemon
