#include "tests/support/mutate.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>

namespace tc::testing {
namespace {

// std::mt19937's output is fixed by the standard; the distributions' are not, hence below().
class Draw {
 public:
  explicit Draw(unsigned seed) : engine_(seed) {}
  size_t below(size_t bound) { return bound == 0 ? 0 : engine_() % bound; }

 private:
  std::mt19937 engine_;
};

std::string flip_bits(std::string bytes, Draw& draw, std::string& how) {
  size_t flips = 1 + draw.below(16);
  for (size_t i = 0; i < flips; ++i)
    bytes[draw.below(bytes.size())] ^= static_cast<char>(1u << draw.below(8));
  how = "bit flips x" + std::to_string(flips);
  return bytes;
}

std::string overwrite_run(std::string bytes, Draw& draw, std::string& how) {
  size_t at = draw.below(bytes.size());
  size_t length = std::min(bytes.size() - at, 1 + draw.below(256));
  bool constant = draw.below(2) == 0;  // 0x00 / 0xff runs hit size fields; random bytes the rest
  char fill = draw.below(2) == 0 ? '\0' : '\xff';
  for (size_t i = at; i < at + length; ++i)
    bytes[i] = constant ? fill : static_cast<char>(draw.below(256));
  how = "overwrote " + std::to_string(length) + " bytes at " + std::to_string(at);
  return bytes;
}

std::string truncate(std::string bytes, Draw& draw, std::string& how) {
  size_t at = draw.below(bytes.size());
  how = "truncated at " + std::to_string(at);
  return bytes.substr(0, at);
}

std::string duplicate_chunk(std::string bytes, Draw& draw, std::string& how) {
  size_t from = draw.below(bytes.size());
  size_t length = std::min(bytes.size() - from, 1 + draw.below(4096));
  size_t to = draw.below(bytes.size());
  bytes.insert(to, bytes.substr(from, length));
  how = "copied " + std::to_string(length) + " bytes from " + std::to_string(from) + " to " +
        std::to_string(to);
  return bytes;
}

}  // namespace

Mutation mutate(const std::string& seed, unsigned index) {
  Draw draw(0x7c0de + index);
  Mutation mutation;
  if (seed.empty()) return mutation;
  switch (index % 4) {
    case 0:
      mutation.bytes = flip_bits(seed, draw, mutation.how);
      break;
    case 1:
      mutation.bytes = overwrite_run(seed, draw, mutation.how);
      break;
    case 2:
      mutation.bytes = truncate(seed, draw, mutation.how);
      break;
    default:
      mutation.bytes = duplicate_chunk(seed, draw, mutation.how);
      break;
  }
  return mutation;
}

int mutation_count(int fallback) {
  const char* text = std::getenv("TC_MUTATIONS");
  int count = text ? std::atoi(text) : 0;
  return count > 0 ? count : fallback;
}

}  // namespace tc::testing
