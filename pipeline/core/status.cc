#include "pipeline/core/status.h"

extern "C" {
#include <libavutil/error.h>
}

#include <cerrno>

namespace tc {

std::string_view code_name(Code code) {
  switch (code) {
    case Code::kOk:
      return "ok";
    case Code::kInvalidArgument:
      return "invalid argument";
    case Code::kInput:
      return "input";
    case Code::kUnsupported:
      return "unsupported";
    case Code::kDevice:
      return "device";
    case Code::kOutput:
      return "output";
    case Code::kCancelled:
      return "cancelled";
    case Code::kInternal:
      return "internal";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  return std::string(code_name(code_)) + ": " + message_;
}

std::string av_error_text(int averror) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(averror, text, sizeof text);
  return text;
}

Status av_status(int averror, Code code, std::string_view context) {
  std::string message = std::string(context) + ": " + av_error_text(averror);
  if (averror == AVERROR_EXIT) return {Code::kCancelled, std::string(context) + ": cancelled"};
  if (averror == AVERROR(ENOMEM)) return {Code::kInternal, std::move(message), true};
  if (averror == AVERROR(ENOSPC)) return {Code::kOutput, std::move(message), true};
  if (averror == AVERROR_ENCODER_NOT_FOUND || averror == AVERROR_DECODER_NOT_FOUND ||
      averror == AVERROR_MUXER_NOT_FOUND || averror == AVERROR_PATCHWELCOME)
    return {Code::kUnsupported, std::move(message)};
  // EIO from a GPU driver is a hang or reset: worth one more attempt on a fresh process.
  bool retryable = code == Code::kDevice && averror == AVERROR(EIO);
  return {code, std::move(message), retryable};
}

}  // namespace tc
