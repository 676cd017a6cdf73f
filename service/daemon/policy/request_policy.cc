#include "service/daemon/policy/request_policy.h"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <regex>

#include "pipeline/core/text_field.h"
#include "pipeline/core/user_text.h"

namespace tc::daemon {
namespace {

namespace fs = std::filesystem;

bool real_path(const std::string& path, std::string& resolved) {
  char buffer[PATH_MAX];
  if (!::realpath(path.c_str(), buffer)) return false;
  resolved = buffer;
  return true;
}

bool inside_any(const std::string& path, const std::vector<std::string>& roots) {
  for (const std::string& root : roots)
    if (is_inside(path, root)) return true;
  return false;
}

ApiStatus denied(const std::string& field, const std::string& path) {
  return {ApiCode::kPermissionDenied, ApiReason::kOutsideMediaRoot, field,
          quote_value(path) + " is outside the allowed media roots (media_root)"};
}

ApiStatus invalid(const std::string& field, const std::string& problem) {
  return {ApiCode::kInvalidArgument, ApiReason::kInvalidField, field, problem};
}

ApiStatus missing(const std::string& field, const std::string& problem) {
  return {ApiCode::kInvalidArgument, ApiReason::kPathNotFound, field, problem};
}

ApiStatus over_limit(const std::string& field, const std::string& problem) {
  return {ApiCode::kInvalidArgument, ApiReason::kLimitExceeded, field, problem};
}

// A URL-like input ("http://..."): its scheme, else empty.
std::string scheme_of(const std::string& input) {
  static const std::regex url("^([a-zA-Z][a-zA-Z0-9+.-]*)://");
  std::smatch match;
  return std::regex_search(input, match, url) ? match[1].str() : "";
}

ApiStatus check_input(std::string& input, const RequestPolicy& policy) {
  std::string scheme = scheme_of(input);
  if (!scheme.empty()) {
    for (const std::string& allowed : policy.protocols)
      if (scheme == allowed) return {};
    return {ApiCode::kPermissionDenied, ApiReason::kProtocolNotAllowed, "input",
            "protocol " + quote_value(scheme) + " is not allowed (allow_protocol)"};
  }
  // Absolute paths only: the daemon's working directory means nothing to a client, and a
  // relative name like "concat:a|b" would reach an FFmpeg protocol.
  if (input.empty() || input[0] != '/')
    return invalid("input", quote_value(input) + " is not an absolute path");
  std::string resolved;
  if (!real_path(input, resolved)) {
    // Say "outside" before "missing": no probing for files beyond the roots.
    std::string lexical = fs::path(input).lexically_normal().string();
    if (!inside_any(lexical, policy.roots)) return denied("input", input);
    return missing("input", quote_value(input) + ": no such file");
  }
  if (!inside_any(resolved, policy.roots)) return denied("input", input);
  struct stat st {};
  if (::stat(resolved.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return invalid("input", quote_value(input) + " is not a regular file");
  input = resolved;
  return {};
}

bool is_symlink(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

ApiStatus check_output(OutputSpec& output, const std::string& field, const RequestPolicy& policy) {
  const std::string& path = output.path;
  if (path.empty() || path[0] != '/' || path.back() == '/')
    return invalid(field, quote_value(path) + " is not an absolute file path");
  fs::path p(path);
  std::string name = p.filename().string();
  if (name == "." || name == "..") return invalid(field, quote_value(path) + " is not a file name");
  std::string dir;
  if (!real_path(p.parent_path().string(), dir)) {
    if (!inside_any(p.lexically_normal().string(), policy.roots)) return denied(field, path);
    return missing(field, "directory " + quote_value(p.parent_path().string()) + " does not exist");
  }
  std::string resolved = (fs::path(dir) / name).string();
  if (!inside_any(resolved, policy.roots)) return denied(field, path);
  // A link at the name is refused. One at the temp name is the worker's to refuse: which name
  // that is depends on the attempt (io::partial_name), unknown here, and it creates the file
  // O_CREAT | O_EXCL | O_NOFOLLOW, refusing anything but a stale regular file there.
  if (is_symlink(resolved)) return denied(field, path);
  output.path = resolved;
  return {};
}

// Before any path is resolved: a path of megabytes is refused, not handed to realpath.
ApiStatus check_spec_lengths(const JobSpec& spec) {
  for (const TextField& text : text_fields(spec))
    TC_API_RETURN_IF_ERROR(check_length(text.value, text.max_bytes, text.field));
  return {};
}

ApiStatus check_caps(JobSpec& spec, const RequestPolicy& policy) {
  if (spec.outputs.empty()) return invalid("outputs", "a job needs at least one output");
  if (static_cast<int>(spec.outputs.size()) > policy.max_outputs)
    return over_limit("outputs", std::to_string(spec.outputs.size()) +
                                     " outputs, more than max_outputs (" +
                                     std::to_string(policy.max_outputs) + ")");
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    const OutputSpec& o = spec.outputs[i];
    long long pixels = static_cast<long long>(o.width) * o.height;
    if (policy.max_pixels > 0 && pixels > policy.max_pixels)
      return over_limit("outputs[" + std::to_string(i) + "]",
                        std::to_string(o.width) + "x" + std::to_string(o.height) +
                            " is more than max_pixels (" + std::to_string(policy.max_pixels) + ")");
  }
  if (policy.max_duration_s > 0) {
    if (spec.duration_s > policy.max_duration_s)
      return over_limit("duration_s",
                        "more than max_duration (" + std::to_string(policy.max_duration_s) + " s)");
    // The input's length is known only to the worker: a trim bounds the work regardless.
    if (spec.duration_s == 0) spec.duration_s = policy.max_duration_s;
  }
  return {};
}

std::string size_text(long long w, long long h) {
  return std::to_string(w) + "x" + std::to_string(h);
}

}  // namespace

Status check_source_pixels(const JobSpec& spec, int source_width, int source_height,
                           long long max_pixels) {
  auto over = [max_pixels](long long w, long long h) {
    return max_pixels > 0 && w * h > max_pixels;
  };
  std::string cap = " is more than max_pixels (" + std::to_string(max_pixels) + ")";
  if (over(source_width, source_height))
    return Status::of_field(Code::kInvalidArgument, "input",
                            size_text(source_width, source_height) + cap);
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    long long w = spec.outputs[i].width, h = spec.outputs[i].height;
    if (w == 0 && h == 0) continue;  // the source's size, checked above
    if (w == 0 && source_height > 0) w = h * source_width / source_height;
    if (h == 0 && source_width > 0) h = w * source_height / source_width;
    if (over(w, h))
      return Status::of_field(Code::kInvalidArgument, "outputs[" + std::to_string(i) + "]",
                              size_text(w, h) + cap);
  }
  return {};
}

bool is_inside(const std::string& path, const std::string& root) {
  if (root == "/") return !path.empty() && path[0] == '/';
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                          path[root.size()] == '/');
}

Status check_state_dir_apart(const std::string& state_dir, const std::vector<std::string>& roots) {
  std::error_code error;
  std::string state =
      std::filesystem::weakly_canonical(std::filesystem::absolute(state_dir, error), error)
          .string();
  if (error)
    return Status(Code::kInvalidArgument,
                  "state_dir: " + quote_value(state_dir) + ": " + error.message());
  for (const std::string& root : roots) {
    if (!is_inside(state, root) && !is_inside(root, state)) continue;
    return Status::of_field(Code::kInvalidArgument, "state_dir",
                            quote_value(state) + " and media root " + quote_value(root) +
                                " overlap: a job could write the daemon's state (keep them apart)");
  }
  return Status::ok();
}

Result<std::vector<std::string>> canonical_roots(const std::vector<std::string>& roots) {
  std::vector<std::string> canonical;
  for (const std::string& root : roots) {
    std::string resolved;
    struct stat st {};
    if (!real_path(root, resolved) || ::stat(resolved.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return Status(Code::kInvalidArgument, "media_root: '" + root + "' is not a directory");
    canonical.push_back(resolved);
  }
  return canonical;
}

std::vector<std::string> tenant_policy_roots(const std::vector<std::string>& given,
                                             const std::vector<std::string>& node_roots) {
  std::vector<std::string> roots;
  for (const std::string& root : given) {
    std::string resolved;
    if (real_path(root, resolved) && inside_any(resolved, node_roots)) roots.push_back(resolved);
  }
  return roots;
}

ApiStatus check_tenant_roots(const std::vector<std::string>& given,
                             const std::vector<std::string>& node_roots, const std::string& field) {
  for (const std::string& root : given) {
    TC_API_RETURN_IF_ERROR(check_length(root, kMaxPathBytes, field));
    std::string resolved;
    struct stat st {};
    if (!real_path(root, resolved) || ::stat(resolved.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return invalid(field, quote_value(root) + " is not a directory");
    if (!inside_any(resolved, node_roots))
      return invalid(
          field,
          quote_value(root) + " is not one of the node's media roots (media_root) nor inside one");
  }
  return {};
}

ApiStatus check_length(std::string_view value, size_t max_bytes, const std::string& field) {
  if (value.size() <= max_bytes) return {};
  return {ApiCode::kInvalidArgument, ApiReason::kTooLarge, field,
          std::to_string(value.size()) + " bytes, more than " + std::to_string(max_bytes)};
}

ApiStatus check_labels(const std::map<std::string, std::string>& labels) {
  if (labels.size() > kMaxLabels)
    return {ApiCode::kInvalidArgument, ApiReason::kTooLarge, "labels",
            std::to_string(labels.size()) + " labels, more than " + std::to_string(kMaxLabels)};
  for (const auto& [key, value] : labels) {
    if (key.empty()) return invalid("labels", "a label needs a key");
    TC_API_RETURN_IF_ERROR(check_length(key, kMaxLabelKeyBytes, "labels"));
    // NUL or invalid UTF-8 in a key: the key itself cannot be shown, so "labels" is named.
    TC_API_RETURN_IF_ERROR(ApiStatus::from_spec(check_text(key, kMaxLabelKeyBytes, "labels")));
    std::string field = "labels[" + quote_value(key) + "]";
    TC_API_RETURN_IF_ERROR(check_length(value, kMaxLabelValueBytes, field));
    TC_API_RETURN_IF_ERROR(ApiStatus::from_spec(check_text(value, kMaxLabelValueBytes, field)));
  }
  return {};
}

ApiStatus apply_policy(JobSpec& spec, const RequestPolicy& policy) {
  TC_API_RETURN_IF_ERROR(check_spec_lengths(spec));
  TC_API_RETURN_IF_ERROR(check_caps(spec, policy));
  TC_API_RETURN_IF_ERROR(ApiStatus::from_spec(validate(spec, SpecLimits{policy.max_outputs})));
  TC_API_RETURN_IF_ERROR(check_input(spec.input, policy));
  if (spec.package.on()) {
    // A package's outputs are rendition names inside its directory: the directory is the path
    // that is checked and resolved, as an output file's would be.
    OutputSpec dir;
    dir.path = spec.package.dir;
    while (dir.path.size() > 1 && dir.path.back() == '/') dir.path.pop_back();
    TC_API_RETURN_IF_ERROR(check_output(dir, "package.dir", policy));
    spec.package.dir = dir.path;
    return {};
  }
  for (size_t i = 0; i < spec.outputs.size(); ++i)
    TC_API_RETURN_IF_ERROR(
        check_output(spec.outputs[i], "outputs[" + std::to_string(i) + "].path", policy));
  return {};
}

}  // namespace tc::daemon
