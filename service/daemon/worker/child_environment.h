// The environment a child of the daemon starts with (its zygote, its workers): only the
// variables that the libraries a worker loads and the test hooks read, never the daemon's own.
// The daemon's environment may hold secrets (PGPASSWORD, a token variable, a cloud provider's
// credentials); a worker runs untrusted media through decoders and has no use for them.
#pragma once

#include <string>
#include <vector>

namespace tc::daemon {

// Whether a worker may see the variable `name`: by exact name (PATH, HOME, TMPDIR, TZ, LANG,
// LD_LIBRARY_PATH, TC_TEST_FAULT) or by the prefix of a library that a worker loads (LC_,
// LIBVA_, VK_, MESA_, CUDA_, NVIDIA_, the sanitizers' options, ...).
bool passed_to_workers(const std::string& name);

// `environment` ("NAME=value" entries, as environ holds them, null-terminated) with only the
// entries passed_to_workers allows, in their order.
std::vector<std::string> child_environment(char* const* environment);

}  // namespace tc::daemon
