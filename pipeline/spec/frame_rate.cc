#include "pipeline/spec/frame_rate.h"

#include <charconv>

#include "pipeline/core/user_text.h"

namespace tc {
namespace {

bool parse_positive(std::string_view text, int& out) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size() && !text.empty() && out > 0;
}

std::string problem(const FrameRate& rate) {
  if (rate.num <= 0 || rate.den <= 0) return "is not positive";
  if (int64_t(rate.num) > int64_t(kMaxFrameRate) * rate.den)
    return "is more than " + std::to_string(kMaxFrameRate) + " frames a second";
  return "";
}

}  // namespace

Result<FrameRate> parse_frame_rate(std::string_view text) {
  FrameRate rate;
  size_t slash = text.find('/');
  bool read = parse_positive(text.substr(0, slash), rate.num) &&
              (slash == std::string_view::npos || parse_positive(text.substr(slash + 1), rate.den));
  std::string why = read ? problem(rate) : "is not N or N/D (e.g. 25, 30000/1001)";
  if (!why.empty())
    return Status(Code::kInvalidArgument, "frame rate " + quote_value(text) + " " + why);
  return rate;
}

std::string frame_rate_text(const FrameRate& rate) {
  std::string text = std::to_string(rate.num);
  return rate.den == 1 ? text : text + "/" + std::to_string(rate.den);
}

Status validate_frame_rate(const FrameRate& rate, const std::string& field) {
  if (!rate.set() && rate.num == 0) return Status::ok();
  std::string why = problem(rate);
  if (why.empty()) return Status::ok();
  return Status::of_field(Code::kInvalidArgument, field,
                          "frame rate " + frame_rate_text(rate) + " " + why);
}

}  // namespace tc
