// Fuzz target: a job spec's JSON (`transcode run --job FILE`, the daemon's stored specs) through
// job_spec_from_json and validate. A valid spec must survive its own round trip.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "pipeline/spec/job_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  tc::Result<tc::JobSpec> spec = tc::job_spec_from_json(text);
  if (!spec.is_ok()) return 0;
  // Only a valid spec is stored and read back (a NaN start_s, refused here, never equals itself).
  if (!tc::validate(*spec).is_ok()) return 0;
  tc::Result<tc::JobSpec> again = tc::job_spec_from_json(tc::job_spec_to_json(*spec));
  if (!again.is_ok() || !(*again == *spec)) std::abort();  // what we write we must read back
  return 0;
}
