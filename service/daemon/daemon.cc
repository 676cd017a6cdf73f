#include "service/daemon/daemon.h"

#include <signal.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "pipeline/hw/devices.h"
#include "pipeline/hw/inventory_json.h"
#include "service/common/exit_codes.h"
#include "service/daemon/api/proto_convert.h"
#include "service/daemon/api/transcoder_service.h"
#include "service/daemon/cluster/node_heartbeat.h"
#include "service/daemon/cluster/node_id_check.h"
#include "service/daemon/config.h"
#include "service/daemon/jobs/job_manager.h"
#include "service/daemon/metrics/metrics_endpoint.h"
#include "service/daemon/policy/memory_budget.h"
#include "service/daemon/policy/request_policy.h"
#include "service/daemon/server.h"
#include "service/daemon/store/pg_connection.h"
#include "service/daemon/webhook/webhook_delivery.h"
#include "service/daemon/worker/discovery_child.h"
#include "service/daemon/worker/gpu_cache.h"
#include "service/daemon/worker/landlock.h"
#include "service/doctor/doctor.h"

namespace tc::daemon {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// ASan reserves terabytes of address space for its shadow memory: under RLIMIT_AS a worker
// cannot even start, so a sanitizer build runs its workers unlimited, saying so.
void lift_memory_limit_under_asan(DaemonConfig& config) {
  if (!kAddressSanitizer || config.worker_memory_mb == 0) return;
  spdlog::warn(
      "built with AddressSanitizer: worker_memory_mb {} ignored, workers run with no "
      "address-space limit",
      config.worker_memory_mb);
  config.worker_memory_mb = 0;
}

int usage_error(const Status& status) {
  std::fprintf(stderr, "transcoded: %s\n", status.message().c_str());
  return kExitUsage;
}

// A database that is damaged (exit 3) or not writable (exit 6) is not a usage error; any other
// failure to open the state (a bad state_dir, a newer schema) is, as it always was (exit 2). A
// shared store that cannot be reached now may be later: exit 7, for a supervisor to retry.
int store_error(const Status& status, bool shared) {
  std::fprintf(stderr, "transcoded: %s\n", status.message().c_str());
  if (shared && status.retryable()) return kExitUnavailable;
  Code code = status.code();
  return code == Code::kInput || code == Code::kOutput ? exit_code_for(code) : kExitUsage;
}

void setup_logging(const std::string& level) {
  auto logger = spdlog::stderr_color_mt("transcoded");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
}

std::string own_executable() {
  char path[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : "transcoded";
}

std::string working_directory() {
  char path[PATH_MAX];
  return ::getcwd(path, sizeof path) ? path : "/";
}

// SIGTERM and SIGINT are blocked in every thread (set before any starts) and taken here.
sigset_t shutdown_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

// The settings to serve with, checked and completed; or the text --help/--version asked for.
Result<DaemonCommand> configure(const std::vector<std::string>& args) {
  TC_ASSIGN_OR_RETURN(DaemonCommand command, parse_daemon_command_line(args));
  if (command.reply) return command;
  DaemonConfig& config = command.config;
  TC_RETURN_IF_ERROR(validate_config(config));
  TC_RETURN_IF_ERROR(finish_config(config));
  if (config.media_roots.empty()) {
    // The working directory by default, never `/` (a service manager's): every file would do.
    std::string cwd = working_directory();
    if (cwd == "/")
      return Status::of_field(Code::kInvalidArgument, "media_root",
                              "none given, and the working directory is / (set --media-root)");
    config.media_roots.push_back(cwd);
  }
  TC_ASSIGN_OR_RETURN(config.media_roots, canonical_roots(config.media_roots));
  TC_RETURN_IF_ERROR(check_state_dir_apart(config.state_dir, config.media_roots));
  return command;
}

// VA-API always. CUDA, Vulkan and QSV cost a runtime's start-up (CUDA's about 0.5 s), so they are
// looked for where the node offers them (`backend`); a node that names none offers every backend
// it has, CUDA where the NVIDIA kernel driver is loaded. Unoffered, their jobs still run: each
// worker discovers the device itself, an NVENC probe a job (Scheduler::claimable).
DiscoveryOptions daemon_discovery(const DaemonConfig& config) {
  const std::vector<std::string>& backends = config.backends;
  DiscoveryOptions discovery;
  auto offers = [&](const char* name) {
    return std::find(backends.begin(), backends.end(), name) != backends.end();
  };
  discovery.cuda = backends.empty() ? nvidia_driver_loaded(config.proc_root) : offers("cuda");
  discovery.vulkan = offers("vulkan");
  discovery.qsv = offers("qsv");
  return discovery;
}

std::string node_id(const DaemonConfig& config) {
  return config.node_id.empty() ? default_node_id() : config.node_id;
}

// The workers' GPU kernel cache (gpu_cache.h), beside the job database; none (each driver's own,
// which a worker under Landlock cannot keep) when it cannot be made.
std::string workers_gpu_cache(const DaemonConfig& config) {
  std::error_code error;
  std::string dir = (std::filesystem::absolute(config.state_dir, error) / "gpu-cache").string();
  Status made =
      error ? Status(Code::kInternal, "state_dir: " + error.message()) : make_gpu_cache(dir);
  if (made.is_ok()) return dir;
  spdlog::warn("{}: every job compiles its GPU kernels again", made.message());
  return "";
}

// The outbox's backlog as the metrics show it: the oldest notice's age now.
NodeSnapshot::Webhooks webhook_metrics(const NotificationBacklog& backlog) {
  if (backlog.count == 0) return {0, 0};
  return {backlog.count, std::max<int64_t>(0, now_ms() - backlog.oldest_create_ms) / 1000.0};
}

ManagerOptions manager_options(const DaemonConfig& config) {
  ManagerOptions options;
  options.worker_executable = own_executable();
  options.policy = {config.media_roots, config.allowed_protocols, config.max_outputs,
                    config.max_pixels, config.max_duration_s};
  options.supervise = {config.stall_timeout_s, config.cancel_grace_s};
  options.node = node_settings(config);
  options.warm.per_device = config.warm_workers;
  options.warm.idle_s = config.warm_idle_s;
  options.warm.jobs_per_worker = config.worker_jobs;
  options.warm.zygote = config.worker_zygote;
  options.max_attempts = config.max_attempts;
  options.retry_base_s = config.retry_base_s;
  options.retry_cap_s = config.retry_cap_s;
  options.node_id = node_id(config);
  options.max_queue = config.max_queue;
  options.lease_s = config.lease_s;
  options.claim_poll_s = config.claim_poll_s;
  options.node_forget_s = config.node_forget_s;
  options.capable_node_wait_s = config.capable_node_wait_s;
  options.fair_share_window_s = config.fair_share_window_s;
  options.retention_hours = config.retention_hours;
  options.proc_root = config.proc_root;
  options.sample_interval_s = config.sample_interval_s;
  if (!config.webhook_secret.empty()) options.webhook_body = job_json;
  return options;
}

void log_devices(const std::vector<SchedDevice>& devices, const HwInventory& inventory,
                 int warm_workers) {
  for (const SchedDevice& d : devices)
    spdlog::info("device {}: {} slots, {} warm workers", d.name, d.slots, warm_workers);
  for (const HwDevice& hw : inventory.devices)
    if (!hw.usable())
      spdlog::info("device {} not used: {}", hw.path, hw.unusable_reason);
    else if (!hw.huc_seen.empty())  // why low-power encode is CQP-only on xe, or is not
      spdlog::info("device {}: HuC {}", hw.path, hw.huc_seen);
}

// Once at start-up: what `transcode doctor` would flag (its checks that need no test transcode),
// logged and added to the notes that GetCapabilities returns.
void flag_doctor_findings(const DaemonConfig& config, HwInventory& inventory) {
  doctor::Options options;
  options.roots.proc = config.proc_root;
  options.env = doctor::process_env();
  options.test_transcode = false;
  doctor::Report report = doctor::quick_doctor(options, inventory);
  for (const doctor::Check& check : report.checks) {
    if (check.status != doctor::CheckStatus::kFail) continue;
    std::string line = "doctor: " + check.name +
                       (check.subject.empty() ? "" : " (" + check.subject + ")") + ": " +
                       check.seen + "; fix: " + check.fix;
    // A node without a GPU is a deployment choice, not a fault.
    if (report.no_device)
      spdlog::info("{}", line);
    else
      spdlog::warn("{}", line);
    inventory.notes.push_back(std::move(line));
  }
}

// What the child runs: discovery, then the doctor's checks of what it found (they open the
// render nodes too).
HwInventory discover_and_check(const DaemonConfig& config, const DiscoveryOptions& options) {
  HwInventory inventory = discover_devices(options);
  flag_doctor_findings(config, inventory);
  return inventory;
}

// The node's devices, discovered and checked in a child process (discovery_child.h): the daemon
// runs no media and keeps none of the drivers' code or contexts. Where discovery hangs or
// crashes the node still serves software jobs, and GetCapabilities' notes say why it has no
// device.
HwInventory node_inventory(const DaemonConfig& config) {
  DiscoveryOptions options = daemon_discovery(config);
  auto timeout = std::chrono::milliseconds(std::llround(config.discovery_timeout_s * 1000));
  auto start = std::chrono::steady_clock::now();
  Result<HwInventory> found =
      discover_in_child([&] { return discover_and_check(config, options); }, timeout);
  if (found.is_ok()) {
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    spdlog::info("device discovery: {} devices in {:.2f} s", found->devices.size(), took.count());
    return std::move(*found);
  }
  spdlog::error("{}; serving without the node's devices", found.status().message());
  HwInventory none;
  none.notes.push_back(found.status().message());
  return none;
}

// Once at start-up: whether workers run under Landlock, and why not where they cannot.
void log_landlock(const DaemonConfig& config) {
  if (!config.worker_landlock)
    return spdlog::warn("workers without Landlock (worker_landlock off)");
  std::string why;
  if (int abi = landlock_abi(&why); abi > 0)
    return spdlog::info("workers under Landlock (ABI {}): media roots and system directories", abi);
  spdlog::warn("workers without Landlock: {}", why);
}

// A daemon run as root starts workers as root: they drop every capability before they read a
// job (worker_confine.h), so uid 0 keeps only what file modes give its owner.
void log_root() {
  if (::geteuid() != 0) return;
  spdlog::warn(
      "running as root: workers keep uid 0 but drop every capability (no CAP_DAC_OVERRIDE: media "
      "they write must be writable by uid 0 through its mode); run as a user of its own instead");
}

void log_store(const DaemonConfig& config) {
  if (config.store.empty()) return spdlog::info("job store: SQLite in {}", config.state_dir);
  spdlog::info("job store: {}", redact_store_url(config.store));
}

// The jobs at once this node's memory holds (memory_budget.h), logged where it is below the
// devices' slots together; 0 = no such cap. A limit that holds not one worker is refused.
Result<int> memory_node_cap(const DaemonConfig& config, const std::vector<SchedDevice>& devices) {
  std::optional<int64_t> memory_max = cgroup_memory_max(config.cgroup_root, config.proc_root);
  Result<std::optional<int>> cap = memory_job_cap(config.worker_memory_mb, memory_max);
  if (!cap.is_ok()) return cap.status();
  if (!cap->has_value()) return 0;
  int slots = 0;
  for (const SchedDevice& d : devices) slots += d.slots;
  if (**cap < slots)
    spdlog::info(
        "memory: the cgroup's memory.max ({} MiB) holds {} workers of worker_memory_mb {}: at "
        "most {} jobs at once on this node (its devices' slots: {})",
        *memory_max / (1024 * 1024), **cap, config.worker_memory_mb, **cap, slots);
  return **cap;
}

int serve(const DaemonConfig& config) {
  // First, while the daemon has one thread: discovery forks.
  HwInventory inventory = node_inventory(config);
  Result<JobStore> store =
      open_job_store({config.store, config.store_password_file, config.state_dir});
  if (!store.is_ok()) return store_error(store.status(), !config.store.empty());
  log_store(config);
  // Before anything is taken over as this node's: another live daemon may use its id.
  if (Status free = check_node_id_free(store->nodes(), node_id(config), config.lease_s);
      !free.is_ok())
    return store_error(free, true);
  unsigned cores = std::thread::hardware_concurrency();
  std::vector<SchedDevice> devices = devices_from_inventory(inventory, config.slots, cores);
  keep_backends(config.backends, inventory, devices);
  Result<int> node_cap = memory_node_cap(config, devices);
  if (!node_cap.is_ok()) return usage_error(node_cap.status());
  LoadModel load = load_model_for(devices, config.slots, cores);
  Scheduler scheduler(inventory, std::move(devices), std::move(load));
  scheduler.set_node_cap(*node_cap);
  log_devices(scheduler.devices(), inventory, config.warm_workers);
  log_landlock(config);
  log_root();
  ManagerOptions options = manager_options(config);
  options.node.devices_json = inventory_to_json(inventory).dump();
  JobManager manager(std::move(options), *store, std::move(scheduler));
  if (Status started = manager.start(); !started.is_ok()) {
    spdlog::error("{}", started.message());
    return kExitInternal;
  }
  NodeHeartbeat heartbeat(manager, node_id(config), beat_interval_s(config.lease_s));
  if (!heartbeat.first_beat().is_ok()) {
    spdlog::error("{}", heartbeat.first_beat().message());
    return kExitUnavailable;
  }
  std::unique_ptr<WebhookDelivery> webhooks;
  if (!config.webhook_secret.empty()) {
    DeliveryOptions options{{config.webhook_keys, *parse_webhook_allow(config.webhook_allow)}};
    // Each notice signed for its job's tenant (docs/tenants.md, Webhooks).
    options.tenant_secret = [&tenants = store->tenants()](const std::string& job_id) {
      return tenants.job_webhook_secret(job_id);
    };
    webhooks = std::make_unique<WebhookDelivery>(store->outbox(), std::move(options));
  }
  std::unique_ptr<MetricsEndpoint> metrics;
  std::atomic<bool> store_up = true;  // the heartbeat's last answer, for transcoded_store_up
  if (!config.metrics_listen.empty()) {
    Result<std::unique_ptr<MetricsEndpoint>> started =
        MetricsEndpoint::start(config.metrics_listen, [&manager, &webhooks, &store_up] {
          NodeSnapshot snapshot = manager.node_snapshot();
          snapshot.store_up = store_up.load();
          if (webhooks) snapshot.webhooks = webhook_metrics(webhooks->backlog());
          return snapshot;
        });
    if (!started.is_ok()) {
      spdlog::error("{}", started.status().message());
      return kExitUnavailable;
    }
    metrics = std::move(*started);
    spdlog::info("metrics on http://{}/metrics", metrics->address());
    // Before "listening": a script that waits for that line knows both addresses.
    std::printf("metrics %s\n", metrics->address().c_str());
  }
  TranscoderService service(manager, inventory, config.auth_token, config.presets);
  Result<StartedServer> server = start_server(config, &service, manager.tenants());
  if (!server.is_ok()) {
    spdlog::error("{}", server.status().message());
    return kExitUnavailable;
  }
  // SERVING while the store answers the node's beats (README, Cluster: a store outage).
  heartbeat.set_health_sink([&server, &store_up](bool reachable) {
    store_up = reachable;
    set_serving(*server, reachable);
  });
  std::string roots;
  for (const std::string& root : config.media_roots) roots += (roots.empty() ? "" : ", ") + root;
  spdlog::info("listening on {} (media roots: {})", server->address, roots);
  // Machine-readable lines on stdout: tests and scripts learn the ports chosen for :0.
  if (server->health) std::printf("health %s\n", server->health_address.c_str());
  if (server->http) std::printf("http %s\n", server->http->address().c_str());
  std::printf("listening %s\n", server->address.c_str());
  std::fflush(stdout);

  sigset_t signals = shutdown_signals();
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  spdlog::info("{}: shutting down", sigabbrev_np(signal_number));
  heartbeat.set_health_sink({});
  set_serving(*server, false);
  manager.shutdown(config.shutdown_grace_s);
  server->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  spdlog::info("stopped");
  return kExitOk;
}

}  // namespace

NodeSettings node_settings(const DaemonConfig& config) {
  NodeSettings node;
  node.memory_mb = config.worker_memory_mb;
  node.max_pixels = config.max_pixels;
  node.media_roots = config.media_roots;
  node.protocols = config.allowed_protocols;
  node.landlock = config.worker_landlock;
  node.gop_parallel = config.gop_parallel;
  node.gpu_cache = workers_gpu_cache(config);
  return node;
}

int run_daemon(const std::vector<std::string>& args) {
  ::signal(SIGPIPE, SIG_IGN);  // a worker gone before reading its spec is judged by its exit
  Result<DaemonCommand> command = configure(args);
  if (!command.is_ok()) return usage_error(command.status());
  if (command->reply) {
    std::fputs(command->reply->c_str(), stdout);
    return kExitOk;
  }
  setup_logging(command->config.log_level);
  lift_memory_limit_under_asan(command->config);
  for (const std::string& warning : config_warnings(command->config)) spdlog::warn("{}", warning);
  sigset_t signals = shutdown_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return serve(command->config);
}

}  // namespace tc::daemon
