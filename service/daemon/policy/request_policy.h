// What a CreateJob may ask for, beyond what tc::validate checks: paths confined to the media
// roots (resolved with realpath, so "../" and symlinks cannot lead out), input protocols from a
// whitelist, and caps on outputs, pixels and duration. Runs on the RPC thread: a few stat
// calls, no media work.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/spec/job_spec.h"
#include "service/daemon/model/api_status.h"

namespace tc::daemon {

// Bounds on what one request may carry. Past them a value is refused (TOO_LARGE) rather than
// stored, listed with every job for the retention time, and echoed into messages and logs.
inline constexpr size_t kMaxLabels = 64;
inline constexpr size_t kMaxLabelKeyBytes = 63;
inline constexpr size_t kMaxLabelValueBytes = 256;
inline constexpr size_t kMaxPathBytes = 4096;  // PATH_MAX
inline constexpr size_t kMaxIdBytes = 128;     // job ids, request ids, page tokens
inline constexpr size_t kMaxNameBytes = 256;   // device, preset, container
// A ListJobs reply at most (beside page_size): gRPC refuses messages over 4 MiB by default.
inline constexpr size_t kMaxListBytes = 1 << 20;

// kInvalidArgument / TOO_LARGE naming `field` when `value` is longer than `max_bytes`.
ApiStatus check_length(std::string_view value, size_t max_bytes, const std::string& field);
// The count and sizes of a job's labels.
ApiStatus check_labels(const std::map<std::string, std::string>& labels);

struct RequestPolicy {
  std::vector<std::string> roots;      // canonical (realpath) directories
  std::vector<std::string> protocols;  // allowed beyond files: "http", "https", ...
  int max_outputs = 8;
  long long max_pixels = 0;   // 0 = no cap
  double max_duration_s = 0;  // 0 = no cap
};

// Resolves each root with realpath; kInvalidArgument names media_root when one is missing.
Result<std::vector<std::string>> canonical_roots(const std::vector<std::string>& roots);

// A tenant's media roots (model/tenant.h) as a policy's: each resolved with realpath, kept only
// while it is one of `node_roots` (canonical) or inside one. A root that no longer resolves, or
// that left the node's, gives the tenant nothing: its paths are refused as outside.
std::vector<std::string> tenant_policy_roots(const std::vector<std::string>& given,
                                             const std::vector<std::string>& node_roots);
// What a tenant may be given: each of `given` a directory that is one of `node_roots` or inside
// one. kInvalidArgument naming `field` and the root otherwise.
ApiStatus check_tenant_roots(const std::vector<std::string>& given,
                             const std::vector<std::string>& node_roots, const std::string& field);

// Checks `spec` and rewrites its paths to their resolved form, so the worker opens exactly what
// was checked. May also set duration_s to the cap when the spec asks for the whole input.
ApiStatus apply_policy(JobSpec& spec, const RequestPolicy& policy);

// The part of the pixel cap only a worker can check, once it knows the source's size: the
// source frame and every output frame (a side of 0 follows the source's aspect) must be at
// most `max_pixels`. kInvalidArgument names max_pixels.
Status check_source_pixels(const JobSpec& spec, int source_width, int source_height,
                           long long max_pixels);

// The daemon's own files never where a job may write (or read): kInvalidArgument naming both
// paths when `state_dir` (resolved as far as it exists) is a media root, inside one, or holds
// one. An output named .../state/jobs.sqlite3 would otherwise replace the job database.
Status check_state_dir_apart(const std::string& state_dir, const std::vector<std::string>& roots);

// True when `path` (canonical) is `root` or below it.
bool is_inside(const std::string& path, const std::string& root);

}  // namespace tc::daemon
