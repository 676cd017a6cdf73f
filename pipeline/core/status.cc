#include "pipeline/core/status.h"

extern "C" {
#include <libavutil/error.h>
}

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iterator>

namespace tc {

namespace {

struct CodeNames {
  Code code;
  std::string_view key;
  std::string_view name;
};

constexpr CodeNames kCodeNames[] = {
    {Code::kOk, "ok", "ok"},
    {Code::kInvalidArgument, "invalid_argument", "invalid argument"},
    {Code::kInput, "input", "input"},
    {Code::kUnsupported, "unsupported", "unsupported"},
    {Code::kDevice, "device", "device"},
    {Code::kOutput, "output", "output"},
    {Code::kCancelled, "cancelled", "cancelled"},
    {Code::kInternal, "internal", "internal"},
};

const CodeNames& names_of(Code code) {
  for (const CodeNames& names : kCodeNames)
    if (names.code == code) return names;
  return kCodeNames[std::size(kCodeNames) - 1];  // kInternal
}

}  // namespace

std::string_view code_name(Code code) {
  return names_of(code).name;
}
std::string_view code_key(Code code) {
  return names_of(code).key;
}

std::optional<Code> parse_code_key(std::string_view key) {
  for (const CodeNames& names : kCodeNames)
    if (names.key == key) return names.code;
  return std::nullopt;
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

// FFmpeg 7.1's mov demuxer, for one, accepts a damaged sample size table at open and fails the
// read of that sample with ENOMEM, where 5.1 refused the table at open (AVERROR_INVALIDDATA).
Status demux_status(int averror, std::string_view context) {
  if (averror == AVERROR(ENOMEM))
    return {Code::kInput, std::string(context) +
                              ": corrupt: a size in it asks for more memory than can be "
                              "allocated (" +
                              av_error_text(averror) + ")"};
  return av_status(averror, Code::kInput, context);
}

void unchecked_error(const Status& status) {
  std::fprintf(stderr, "bug: the value of an error result was read: %s\n",
               status.to_string().c_str());
  std::abort();
}

}  // namespace tc
