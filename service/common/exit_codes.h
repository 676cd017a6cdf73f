// Process exit codes, mapped from a Status code in this one place (for `transcode` and workers).
#pragma once

#include "pipeline/core/status.h"

namespace tc {

enum ExitCode : int {
  kExitOk = 0,
  kExitFailed = 1,       // a job ended FAILED for a reason not listed below (client commands)
  kExitUsage = 2,        // bad command line or job spec
  kExitInput = 3,        // the input is missing or is not usable media
  kExitUnsupported = 4,  // codec, container or feature not available
  kExitDevice = 5,       // hardware device missing or failed
  kExitOutput = 6,       // output cannot be written
  kExitUnavailable = 7,  // the daemon cannot be reached (client commands)
  kExitCheckFailed = 8,  // `transcode doctor`: a check that applies failed (no device at all: 5)
  kExitLimit = 9,        // refused by a limit: the queue is full, or a tenant's quota (client)
  kExitInternal = 70,    // EX_SOFTWARE
  kExitCancelled = 130,  // as a shell reports SIGINT
};

inline int exit_code_for(Code code) {
  switch (code) {
    case Code::kOk:
      return kExitOk;
    case Code::kInvalidArgument:
      return kExitUsage;
    case Code::kInput:
      return kExitInput;
    case Code::kUnsupported:
      return kExitUnsupported;
    case Code::kDevice:
      return kExitDevice;
    case Code::kOutput:
      return kExitOutput;
    case Code::kCancelled:
      return kExitCancelled;
    case Code::kInternal:
      return kExitInternal;
  }
  return kExitInternal;
}

}  // namespace tc
