#include "service/daemon/worker/worker_main.h"

#include <nlohmann/json.hpp>

#include <malloc.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

#include <CLI/CLI.hpp>

extern "C" {
#include <libavutil/log.h>
}

#include "pipeline/exec/executor.h"
#include "pipeline/hw/backends.h"
#include "pipeline/hw/device_cache.h"
#include "pipeline/hw/inventory_json.h"
#include "pipeline/probe/media_info.h"
#include "service/common/command_line.h"
#include "service/common/exit_codes.h"
#include "service/common/process_exit.h"
#include "service/daemon/model/job_record.h"
#include "service/daemon/policy/request_policy.h"
#include "service/daemon/worker/address_cap.h"
#include "service/daemon/worker/gpu_cache.h"
#include "service/daemon/worker/landlock.h"
#include "service/daemon/worker/worker_confine.h"
#include "service/daemon/worker/worker_log.h"
#include "service/daemon/worker/worker_protocol.h"

namespace tc::daemon {
namespace {

std::atomic<bool> g_cancel{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

extern "C" void on_terminate(int) {
  g_cancel.store(true);
}

void limit_process(const WorkerOptions& options) {
  // Die with the daemon (a kill -9 of it included); the check after closes the race where it
  // died before prctl took effect.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (options.parent_pid > 0 && getppid() != options.parent_pid) _exit(kExitInternal);
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // a crashing decoder should not fill the disk
  cap_address_space(options.node.memory_mb);
  struct sigaction action {};
  action.sa_handler = on_terminate;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

void emit(const std::string& line) {
  // One write per line, flushed: the daemon's watchdog counts lines, not bytes.
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

// A line of the job's own log, stamped now on this node's clock.
void log_to_job(LogLevel level, std::string_view text) {
  emit(worker_line(JobLogLine{0, 0, now_ms(), level, std::string(text)}));
}

// The job's error goes to its own log too, where its libav lines lead up to it.
int fail(const Status& status) {
  log_to_job(LogLevel::kError, status.to_string());
  emit(worker_line(status));
  return exit_code_for(status.code());
}

// Runs the fault a test asked for, before or instead of the job.
void apply_fault(Fault fault) {
  if (fault == Fault::kCrash) {
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
  }
  if (fault == Fault::kStall)
    while (!g_cancel.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (fault == Fault::kChatty)
    for (int line = 0; line < 1500; ++line)
      av_log(nullptr, AV_LOG_WARNING, "chatty line %d\n", line);
}

// The test fault "slow": the executor calls on_progress for each frame when the interval is 0;
// sleeping there slows the real pipeline down, so a tiny test clip stays mid-run long enough to
// cancel or kill.
void throttle_if_slow(Fault fault, RunOptions& options) {
  if (fault != Fault::kSlow) return;
  options.progress_interval_s = 0;
  options.on_progress = [last =
                             std::chrono::steady_clock::time_point{}](const Progress& p) mutable {
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    auto now = std::chrono::steady_clock::now();
    if (now - last < std::chrono::milliseconds(500)) return;
    last = now;
    emit(worker_line(p));
  };
}

// The test fault "hold": the job stops at its first frame, its outputs open, until a file named
// as its input plus ".release" exists (a latch for a test that acts beside a running job, not a
// sleep), saying its progress meanwhile so that the watchdog sees it alive.
void hold_if_asked(Fault fault, const std::string& input, RunOptions& options) {
  if (fault != Fault::kHold) return;
  options.progress_interval_s = 0;
  options.on_progress = [release = input + ".release", held = true](const Progress& p) mutable {
    while (held && access(release.c_str(), F_OK) != 0) {
      emit(worker_line(p));
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    held = false;
  };
}

// The daemon decides whether the outputs may get their names (the job may have passed to
// another attempt meanwhile): asked on stdout, answered on stdin. No answer, because the daemon
// is gone, is a refusal.
Status ask_daemon_to_publish() {
  emit(publish_request_line());
  Status answer = read_publish_answer(std::cin);
  // SIGTERM interrupts the read: that refusal is a cancel.
  if (!answer.is_ok() && g_cancel.load()) return {Code::kCancelled, "cancelled before publishing"};
  return answer;
}

// The media roots are opened once, here; every path of the job is opened below them.
Result<io::Access> worker_access(const NodeSettings& node) {
  if (node.media_roots.empty()) return Status(Code::kInternal, "worker started without roots");
  TC_ASSIGN_OR_RETURN(io::Roots roots, io::Roots::open_media_roots(node.media_roots));
  return io::Access{std::make_shared<const io::Roots>(std::move(roots)), node.protocols};
}

// The device a warm worker holds open for its job: the job's pipeline takes the same context from
// the process's cache (hw/device_cache.h) instead of opening it again. Errors are kDevice.
Status open_named_device(const std::string& named) {
  if (named.empty()) return Status::ok();
  size_t colon = named.find(':');
  Result<BackendKind> backend = parse_backend(named.substr(0, colon));
  if (!backend.is_ok() || colon == std::string::npos)
    return {Code::kInvalidArgument, "--open-device: not BACKEND:PATH: " + named};
  if (fault_for(std::getenv("TC_TEST_FAULT"), "") == Fault::kDevice)
    return {Code::kDevice, "opening " + named + ": refused by TC_TEST_FAULT=device"};
  const std::string path = named.substr(colon + 1);
  TC_ASSIGN_OR_RETURN(av::BufferRefPtr device,
                      open_hw_device(backend_desc(*backend).device_type, path));
  return Status::ok();
}

// Everything the worker sets up before its job: what it may open, the daemon's devices, the
// device it holds open. A warm worker has done all of it when a job arrives.
Result<RunOptions> worker_run_options(const WorkerOptions& worker) {
  RunOptions options;
  options.cancel = &g_cancel;
  options.progress_interval_s = 0.5;
  options.on_progress = [](const Progress& p) { emit(worker_line(p)); };
  options.publish_gate = ask_daemon_to_publish;
  options.gop_parallel = worker.node.gop_parallel;
  TC_ASSIGN_OR_RETURN(options.access, worker_access(worker.node));
  // libav's lines go to the job's own log at the level each job sets (use_job_log_level), errors
  // to the daemon's log too (worker_log.h), each one line, escaped.
  av_log_set_level(AV_LOG_WARNING);
  route_libav_log();
  set_log_sink(log_to_job);
  if (!worker.node.devices_json.empty()) {
    TC_ASSIGN_OR_RETURN(options.devices, inventory_from_json(nlohmann::json::parse(
                                             worker.node.devices_json, nullptr, false)));
  }
  TC_RETURN_IF_ERROR(open_named_device(worker.open_device));
  if (fault_for(std::getenv("TC_TEST_FAULT"), "") == Fault::kSlowSetup)
    std::this_thread::sleep_for(std::chrono::seconds(2));
  return options;
}

// The first line of stdin: the job. A warm worker waits here.
Result<WorkerJob> read_job() {
  std::string text;
  if (!std::getline(std::cin, text)) {
    if (g_cancel.load()) return Status(Code::kCancelled, "cancelled before start");
    return Status(Code::kInternal, "no job on stdin: the daemon closed it");
  }
  return parse_job_line(text);
}

}  // namespace

Fault fault_for(const char* env_value, const std::string& input) {
  if (!env_value || !*env_value) return Fault::kNone;
  std::string value = env_value;
  // A list: the first entry that hits this input.
  if (size_t comma = value.find(','); comma != std::string::npos) {
    Fault first = fault_for(value.substr(0, comma).c_str(), input);
    return first != Fault::kNone ? first : fault_for(value.c_str() + comma + 1, input);
  }
  std::string kind = value.substr(0, value.find(':'));
  std::string pattern =
      value.find(':') == std::string::npos ? "" : value.substr(value.find(':') + 1);
  if (!pattern.empty() && input.find(pattern) == std::string::npos) return Fault::kNone;
  if (kind == "crash") return Fault::kCrash;
  if (kind == "stall") return Fault::kStall;
  if (kind == "slow") return Fault::kSlow;
  if (kind == "hold") return Fault::kHold;
  if (kind == "device") return Fault::kDevice;
  if (kind == "slow-setup") return Fault::kSlowSetup;
  if (kind == "stop-published") return Fault::kStopPublished;
  if (kind == "crash-first") return Fault::kCrashFirst;
  if (kind == "chatty") return Fault::kChatty;
  return Fault::kNone;
}

// The daemon writes these (worker_process.cc); the one parser of both binaries reads them, so a
// malformed line fails the job instead of running it with a default.
Result<WorkerOptions> parse_worker_args(const std::vector<std::string>& args) {
  WorkerOptions options;
  NodeSettings& node = options.node;
  CLI::App app{"One job's worker, started by the daemon: the job spec on stdin, lines out"};
  set_up_app(app, "transcoded --worker");
  app.add_flag("--worker")->description("run one job");
  app.add_option("--parent-pid", options.parent_pid, "the daemon (0 = do not watch)");
  app.add_option("--memory-mb", node.memory_mb, "RLIMIT_AS in MiB (0 = none)");
  app.add_option("--max-pixels", node.max_pixels, "source frame size cap (0 = none)");
  app.add_option("--media-root", node.media_roots, "what the job may open is below these")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--allow-protocol", node.protocols, "network input protocols")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_flag("--landlock", node.landlock, "see only the roots and system directories");
  app.add_option("--devices", node.devices_json, "the daemon's device inventory (JSON)");
  app.add_option("--open-device", options.open_device, "BACKEND:PATH to open before the job");
  app.add_option("--jobs", options.jobs, "jobs to run, one after another, before exiting")
      ->check(CLI::PositiveNumber);
  app.add_option("--gop-parallel", node.gop_parallel, "libx264 encoders per output (0 = auto)")
      ->check(CLI::Range(0, kMaxGopParallel));
  app.add_option("--gpu-cache", node.gpu_cache, "where GPU drivers keep compiled kernels");
  TC_ASSIGN_OR_RETURN(std::optional<std::string> shown, parse_command_line(app, args));
  if (shown) return Status(Code::kInvalidArgument, "a worker takes no --help or --version");
  return options;
}

bool is_worker_invocation(const std::vector<std::string>& args) {
  return !args.empty() && args[0] == "--worker";
}

// The daemon checked the sizes a request names; the source's size is known only once the job's
// one probe has run: checked there, before any device or decoder is opened, so a 16K upload
// never reaches a decoder.
SourceCheck pixel_check(const JobSpec& spec, long long max_pixels) {
  if (max_pixels <= 0) return {};
  return [&spec, max_pixels](const MediaInfo& media) {
    if (!media.video) return Status::ok();  // planning says what is wrong with it
    return check_source_pixels(spec, media.video->width, media.video->height, max_pixels);
  };
}

JobSpec placed_spec(JobSpec spec, const std::optional<Placement>& placement) {
  if (!placement) return spec;
  spec.backend = placement->backend;
  spec.device = placement->device_path;
  return spec;
}

// What the job's own log keeps of libav's: warnings and errors, and with the job's verbose_log
// its informational lines too (AV_LOG_INFO, what the ffmpeg CLI prints by default; VERBOSE
// would add the filter graph's negotiation, a line per link: noise to a user). Set for each job:
// a warm worker's previous job may have asked otherwise.
void use_job_log_level(const JobSpec& spec) {
  av_log_set_level(spec.verbose_log ? AV_LOG_INFO : AV_LOG_WARNING);
}

// One job, start to end: its result or error line written; the worker's exit code for it.
// After the worker's `last` job the process ends with the pipeline still open (end_process):
// the daemon has the result, and the kernel closes the device faster than its teardown.
int run_one(const WorkerJob& job, RunOptions run, long long max_pixels, bool last) {
  const JobSpec spec = placed_spec(job.spec, job.placement);
  if (lift_address_cap_for(spec)) last = true;  // no later job runs uncapped
  Fault fault = fault_for(std::getenv("TC_TEST_FAULT"), spec.input);
  if (fault == Fault::kCrashFirst) fault = job.attempt == 1 ? Fault::kCrash : Fault::kNone;
  apply_fault(fault);
  if (g_cancel.load()) return fail(Status(Code::kCancelled, "cancelled before start"));
  throttle_if_slow(fault, run);
  hold_if_asked(fault, spec.input, run);
  run.attempt = job.attempt;
  set_log_job(job.id);
  use_job_log_level(spec);
  Result<PreparedJob> prepared = prepare_job(spec, run, pixel_check(spec, max_pixels));
  if (!prepared.is_ok()) return fail(prepared.status());
  // The plan says why its backend was chosen as the dispatcher chose it.
  if (job.placement) prepared->plan.backend_reason = job.placement->reason;
  Result<FinishedJob> finished = run_prepared(*prepared, spec, run);
  if (!finished.is_ok()) return fail(finished.status());
  if (fault == Fault::kStopPublished) raise(SIGSTOP);
  emit(worker_line(finished->report));
  return last ? end_process(kExitOk) : kExitOk;
}

Result<WorkerOptions> set_up_worker(const std::vector<std::string>& args) {
  TC_ASSIGN_OR_RETURN(WorkerOptions options, parse_worker_args(args));
  limit_process(options);
  const NodeSettings& node = options.node;
  if (!node.gpu_cache.empty()) use_gpu_cache(node.gpu_cache);
  // Before the job is read and before a second thread exists: nothing the job names is opened
  // outside the rules, on any thread.
  TC_RETURN_IF_ERROR(
      confine_this_process(node.landlock, worker_landlock_paths(node.media_roots, node.gpu_cache)));
  return options;
}

int serve_jobs(const Result<WorkerOptions>& set_up_worker) {
  if (!set_up_worker.is_ok()) return fail(set_up_worker.status());
  const WorkerOptions& options = *set_up_worker;
  Result<RunOptions> set_up = worker_run_options(options);
  if (!set_up.is_ok()) return fail(set_up.status());
  // Up to --jobs jobs, one at a time; only a job that succeeded lets the worker take another.
  for (int served = 0; served < options.jobs; ++served) {
    emit(ready_line());
    // The rest of stdin is the daemon's answer to publishing, later, then the next job.
    Result<WorkerJob> job = read_job();
    // Its stdin closed after a job: the daemon let it go.
    if (!job.is_ok()) return served > 0 && std::cin.eof() ? kExitOk : fail(job.status());
    bool last = served + 1 == options.jobs;
    if (int code = run_one(*job, *set_up, options.node.max_pixels, last); code != kExitOk)
      return code;
    malloc_trim(0);  // what the job freed goes back before the next one
  }
  return kExitOk;
}

int worker_main(const std::vector<std::string>& args) {
  return serve_jobs(set_up_worker(args));
}

}  // namespace tc::daemon
