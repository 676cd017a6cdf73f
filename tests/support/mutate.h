// Deterministic corruption of media files for the mutation corpus tests: the same seed file and
// index always give the same bytes (a PRNG of fixed algorithm, no library distributions).
#pragma once

#include <cstddef>
#include <string>

namespace tc::testing {

// How the mutation at an index damaged its seed, for failure messages.
struct Mutation {
  std::string bytes;
  std::string how;  // "bit flips x5", "truncated at 1234", ...
};

// The index-th mutation of `seed`: bit flips, a run of overwritten bytes, a truncation or a
// duplicated chunk (in turn, at positions and sizes drawn from a PRNG seeded by `index`).
Mutation mutate(const std::string& seed, unsigned index);

// How many mutations a test makes: $TC_MUTATIONS when set (a longer run by hand), else `fallback`.
int mutation_count(int fallback);

}  // namespace tc::testing
