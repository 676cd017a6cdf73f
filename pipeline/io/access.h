// Where a job may read and write: the roots its paths resolve below, and the network protocols
// its input may use. The daemon's worker gets its media roots and allow_protocol settings;
// `transcode run` gets the caller's own (caller_access).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pipeline/io/confined_path.h"

namespace tc::io {

struct Access {
  std::shared_ptr<const Roots> roots;
  std::vector<std::string> protocols;  // network protocols beyond files ("https"); empty = none
};

// The caller's permissions: "/" and the working directory as roots, the common network
// protocols for URL inputs.
Result<Access> caller_access();

}  // namespace tc::io
