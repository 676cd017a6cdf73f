// The driver of the normal (GCC) build: every file of the seed corpus directories given on the
// command line through the target's LLVMFuzzerTestOneInput once, then, with --mutations N, N
// inputs mutated from those seeds (bit flips, random bytes, cut, repeated and spliced runs). The
// mutations are blind, not coverage-guided, and seeded by a fixed number, so a failure under
// ctest reproduces as it is; the libFuzzer build (scripts/fuzz) guides its search by coverage.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

namespace {

std::vector<Bytes> read_corpus(const std::vector<std::string>& directories) {
  std::vector<Bytes> seeds;
  for (const std::string& directory : directories)
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(directory)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream file(entry.path(), std::ios::binary);
      seeds.emplace_back(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    }
  return seeds;
}

size_t pick(std::mt19937& random, size_t size) {
  return size == 0 ? 0 : std::uniform_int_distribution<size_t>(0, size - 1)(random);
}

// One random edit of `bytes`; `other` is another seed to splice from.
void mutate_once(Bytes& bytes, const Bytes& other, std::mt19937& random) {
  size_t at = pick(random, bytes.size() + 1);
  size_t run = 1 + pick(random, 16);
  switch (pick(random, 6)) {
    case 0:  // flip a bit
      if (!bytes.empty()) bytes[pick(random, bytes.size())] ^= uint8_t(1u << pick(random, 8));
      break;
    case 1:  // an interesting byte: 0, 0xff, 0x7f, 0x80
      if (!bytes.empty())
        bytes[pick(random, bytes.size())] = uint8_t("\x00\xff\x7f\x80"[pick(random, 4)]);
      break;
    case 2:  // cut a run, or the tail
      if (at < bytes.size())
        bytes.erase(bytes.begin() + at, bytes.begin() + std::min(bytes.size(), at + run));
      break;
    case 3:  // repeat a run
      if (at < bytes.size()) {
        Bytes copy(bytes.begin() + at, bytes.begin() + std::min(bytes.size(), at + run));
        bytes.insert(bytes.begin() + at, copy.begin(), copy.end());
      }
      break;
    case 4:  // splice the other seed's tail in
      if (!other.empty()) {
        size_t from = pick(random, other.size());
        bytes.resize(at);
        bytes.insert(bytes.end(), other.begin() + from, other.end());
      }
      break;
    default:  // truncate
      bytes.resize(at);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> directories;
  long mutations = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mutations") == 0 && i + 1 < argc)
      mutations = std::strtol(argv[++i], nullptr, 10);
    else
      directories.emplace_back(argv[i]);
  }
  std::vector<Bytes> seeds = read_corpus(directories);
  if (seeds.empty()) {
    std::printf("no seeds: an empty corpus would test nothing\n");
    return 1;
  }
  for (const Bytes& seed : seeds) LLVMFuzzerTestOneInput(seed.data(), seed.size());
  std::mt19937 random(20261130);
  for (long n = 0; n < mutations; ++n) {
    Bytes bytes = seeds[pick(random, seeds.size())];
    int edits = 1 + int(pick(random, 4));
    for (int e = 0; e < edits; ++e) mutate_once(bytes, seeds[pick(random, seeds.size())], random);
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::printf("replayed %zu seeds, ran %ld mutated inputs\n", seeds.size(), mutations);
  return 0;
}
