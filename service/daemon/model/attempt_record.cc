#include "service/daemon/model/attempt_record.h"

#include <array>
#include <utility>

namespace tc::daemon {
namespace {

constexpr std::array<std::pair<AttemptOutcome, std::string_view>, 7> kNames = {{
    {AttemptOutcome::kRunning, "running"},
    {AttemptOutcome::kSucceeded, "succeeded"},
    {AttemptOutcome::kFailed, "failed"},
    {AttemptOutcome::kCrashed, "crashed"},
    {AttemptOutcome::kCancelled, "cancelled"},
    {AttemptOutcome::kLost, "lost"},
    {AttemptOutcome::kInterrupted, "interrupted"},
}};

}  // namespace

std::string_view outcome_name(AttemptOutcome outcome) {
  for (const auto& [value, name] : kNames)
    if (value == outcome) return name;
  return "unknown";
}

std::optional<AttemptOutcome> parse_outcome(std::string_view name) {
  for (const auto& [value, text] : kNames)
    if (text == name) return value;
  return std::nullopt;
}

}  // namespace tc::daemon
