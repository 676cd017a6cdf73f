// Hardware device contexts, opened once per process and shared: discovery's probes and the job's
// pipeline use the same one (creating a CUDA context took about half a second on the H200). A
// daemon runs each job in its own worker process, so no device is shared between jobs.
#pragma once

#include <string>

extern "C" {
#include <libavutil/hwcontext.h>
}

#include "pipeline/core/av.h"
#include "pipeline/core/status.h"

namespace tc {

// A new reference to the device of `type` named `name` (a render node, a CUDA index; empty =
// the default one), opened on first use. Errors are kDevice.
Result<av::BufferRefPtr> open_hw_device(AVHWDeviceType type, const std::string& name);

}  // namespace tc
