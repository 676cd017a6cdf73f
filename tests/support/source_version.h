#pragma once

#include <string>

namespace tc::test {

// The version the repository's VERSION file states (its first line, "0.9.0"), read from the
// source tree at run time: tests compare what the binaries report with the file, never with a
// copy of the value compiled into them.
std::string source_version();

}  // namespace tc::test
