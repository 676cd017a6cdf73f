// Errors are values: a Status (code, message, retryable, field) travels up; nothing throws across a
// library boundary. libav's AVERROR is mapped to a Status in one place (av_status below), and
// gRPC statuses and process exit codes are mapped from Code in one place each, at the edges.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace tc {

enum class Code {
  kOk = 0,
  kInvalidArgument,  // the request itself is wrong (bad option, odd size, unknown codec)
  kInput,            // the input cannot be read as media (missing, empty, corrupt, no video)
  kUnsupported,      // valid request, but nothing here can do it (codec, container, device feature)
  kDevice,           // the hardware device is missing, unusable or failed
  kOutput,           // the output cannot be written
  kCancelled,        // stopped on request
  kInternal,         // a bug or an unexpected library failure
};

// For people: "invalid argument".
std::string_view code_name(Code code);
// Stable snake_case names for wires and stores: "invalid_argument"; nullopt for an unknown key.
std::string_view code_key(Code code);
std::optional<Code> parse_code_key(std::string_view key);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message, bool retryable = false)
      : code_(code), message_(std::move(message)), retryable_(retryable) {}
  static Status ok() { return {}; }
  // A failure of one field of a request ("outputs[1].codec"): the message reads
  // "field: problem", and the field travels beside it for programs (the API's error details).
  static Status of_field(Code code, std::string field, std::string_view problem) {
    Status status(code, field + ": " + std::string(problem));
    status.field_ = std::move(field);
    return status;
  }

  bool is_ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  bool retryable() const { return retryable_; }
  const std::string& field() const { return field_; }  // empty when no one field is at fault
  // "input: in.mp4: no such file"
  std::string to_string() const;

 private:
  Code code_ = Code::kOk;
  std::string message_;
  bool retryable_ = false;
  std::string field_;
};

// Prints the status and aborts: a Result's value was read without checking is_ok().
[[noreturn]] void unchecked_error(const Status& status);

// A value or the Status saying why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT
  bool is_ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  // Reading the value of an error is a bug in the caller: it stops the process, saying which
  // error was not checked, rather than read an empty optional.
  T& value() & { return checked(); }
  const T& value() const& { return checked(); }
  T&& value() && { return std::move(checked()); }
  T* operator->() { return &checked(); }
  const T* operator->() const { return &checked(); }
  T& operator*() { return checked(); }
  const T& operator*() const { return checked(); }

 private:
  T& checked() {
    if (!value_) unchecked_error(status_);
    return *value_;
  }
  const T& checked() const {
    if (!value_) unchecked_error(status_);
    return *value_;
  }

  std::optional<T> value_;
  Status status_;
};

// Maps a libav error code to a Status: `code` is the category the caller's stage implies
// (reading input, encoding, writing output); errors that mean something regardless of stage
// (ENOMEM, AVERROR_EXIT, EAGAIN-like transient failures) override it.
Status av_status(int averror, Code code, std::string_view context);
// av_status for demuxing the input (opening, reading, seeking it), where ENOMEM is the input's
// fault: a demuxer sizes its buffers from the file's own fields, so a damaged size asks for an
// allocation libav refuses.
Status demux_status(int averror, std::string_view context);
std::string av_error_text(int averror);

}  // namespace tc

#define TC_CONCAT_INNER(a, b) a##b
#define TC_CONCAT(a, b) TC_CONCAT_INNER(a, b)

#define TC_RETURN_IF_ERROR(expr)                \
  do {                                          \
    ::tc::Status tc_status_ = (expr);           \
    if (!tc_status_.is_ok()) return tc_status_; \
  } while (0)

#define TC_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.is_ok()) return tmp.status();         \
  lhs = std::move(tmp).value()

#define TC_ASSIGN_OR_RETURN(lhs, expr) \
  TC_ASSIGN_OR_RETURN_IMPL(TC_CONCAT(tc_result_, __LINE__), lhs, expr)
