#include "pipeline/plan/graph_builder.h"

namespace tc {
namespace {

std::string join(const std::string& first, const std::string& second) {
  if (first.empty()) return second;
  if (second.empty()) return first;
  return first + "," + second;
}

}  // namespace

std::vector<Tap> GraphBuilder::fan_out(const Tap& in, const std::string& filters, int count) {
  std::string chain = join(in.filters, filters);
  if (count <= 1) return {Tap{in.label, chain}};
  std::string text = in.label + join(chain, split_ + "=" + std::to_string(count));
  std::vector<Tap> taps;
  for (int i = 0; i < count; ++i) {
    taps.push_back({std::string(split_ == "asplit" ? "[a" : "[v")
                        .append(std::to_string(labels_++))
                        .append("]"),
                    ""});
    text += taps.back().label;
  }
  chains_.push_back(std::move(text));
  return taps;
}

void GraphBuilder::terminate(const Tap& tap, const std::string& filters, const std::string& label) {
  std::string chain = join(tap.filters, filters);
  bool audio = split_ == "asplit";
  chains_.push_back(tap.label + (chain.empty() ? (audio ? "anull" : "null") : chain) + "[" + label +
                    "]");
}

std::string GraphBuilder::text() const {
  std::string text;
  for (const std::string& chain : chains_) text += (text.empty() ? "" : ";") + chain;
  return text;
}

std::string GraphBuilder::substitute(std::string_view pattern, int width, int height,
                                     const std::string& format) {
  return substitute(pattern, std::to_string(width), std::to_string(height), format);
}

std::string GraphBuilder::substitute(std::string_view pattern, const std::string& width,
                                     const std::string& height, const std::string& format) {
  std::string text(pattern);
  for (auto [key, value] :
       {std::pair{"%W", width}, std::pair{"%H", height}, std::pair{"%F", format}})
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key))
      text.replace(at, 2, value);
  return text;
}

}  // namespace tc
