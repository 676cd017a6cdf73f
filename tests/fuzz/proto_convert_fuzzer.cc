// Fuzz target: a gRPC JobConfig (bytes as a client could send them) through the daemon's
// proto-to-spec conversion and the spec's checks. A valid spec must convert back the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "service/api/job_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  transcode::v1::JobConfig config;
  if (!config.ParseFromArray(data, static_cast<int>(size))) return 0;
  tc::Result<tc::JobSpec> spec = tc::spec_from_config(config);
  if (!spec.is_ok()) return 0;
  // Only a valid spec is stored and read back (a NaN start_s, refused here, never equals itself).
  if (!tc::validate(*spec).is_ok()) return 0;
  transcode::v1::JobConfig back;
  tc::config_from_spec(*spec, &back);
  tc::Result<tc::JobSpec> again = tc::spec_from_config(back);
  if (!again.is_ok() || !(*again == *spec)) std::abort();  // the stored form must read back
  return 0;
}
