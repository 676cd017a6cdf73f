// Writes libavfilter graph text for one input fanned out to labelled outputs. A Tap is a point
// in the graph that one consumer may continue from: a label plus filters not yet written out, so
// that a single consumer extends the chain instead of adding a label.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tc {

struct Tap {
  std::string label;    // "[in]", "[v3]"
  std::string filters;  // "scale=1280:720,format=nv12" still to be applied
};

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string split_filter) : split_(std::move(split_filter)) {}

  // `count` taps that each see `in` after `filters`; a split when count > 1.
  std::vector<Tap> fan_out(const Tap& in, const std::string& filters, int count);
  // Ends a tap at output `label` ("out0"), after `filters` (a pass-through when there are none).
  void terminate(const Tap& tap, const std::string& filters, const std::string& label);
  std::string text() const;

  // "scale=%W:%H:format=%F" -> "scale=1280:720:format=nv12".
  static std::string substitute(std::string_view pattern, int width, int height,
                                const std::string& format = "");
  // The same with expressions for the sides ("'min(640,...)'"), evaluated by the filter.
  static std::string substitute(std::string_view pattern, const std::string& width,
                                const std::string& height, const std::string& format = "");

 private:
  std::string split_;
  std::vector<std::string> chains_;
  int labels_ = 0;
};

}  // namespace tc
