#include "service/daemon/store/attempt_columns.h"

namespace tc::daemon {

AttemptColumns attempt_columns_of(const AttemptRecord& attempt) {
  AttemptColumns row;
  row.number = attempt.number;
  row.node = attempt.node;
  row.device = attempt.device;
  row.start_ms = attempt.start_ms;
  row.end_ms = attempt.end_ms;
  row.outcome = std::string(outcome_name(attempt.outcome));
  row.error_code = std::string(code_key(attempt.error.code()));
  row.error_message = attempt.error.message();
  row.error_retryable = attempt.error.retryable();
  return row;
}

Result<AttemptRecord> attempt_from_columns(const std::string& job_id, const AttemptColumns& row) {
  AttemptRecord attempt;
  attempt.number = static_cast<int>(row.number);
  attempt.node = row.node;
  attempt.device = row.device;
  attempt.start_ms = row.start_ms;
  attempt.end_ms = row.end_ms;
  std::optional<AttemptOutcome> outcome = parse_outcome(row.outcome);
  if (!outcome)
    return Status(Code::kInternal, "job store: job " + job_id + ": attempt " +
                                       std::to_string(row.number) + " has an unknown outcome '" +
                                       row.outcome + "'");
  attempt.outcome = *outcome;
  Code code = parse_code_key(row.error_code).value_or(Code::kInternal);
  if (code != Code::kOk) attempt.error = Status(code, row.error_message, row.error_retryable != 0);
  return attempt;
}

}  // namespace tc::daemon
