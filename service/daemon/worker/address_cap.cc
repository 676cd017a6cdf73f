#include "service/daemon/worker/address_cap.h"

#include <sys/resource.h>

namespace tc::daemon {

void cap_address_space(long long mib) {
  if (mib <= 0) return;
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) != 0) return;
  rlim_t bytes = static_cast<rlim_t>(mib) * 1024 * 1024;
  as.rlim_cur = as.rlim_max == RLIM_INFINITY || bytes < as.rlim_max ? bytes : as.rlim_max;
  setrlimit(RLIMIT_AS, &as);
}

bool lift_address_cap_for(const JobSpec& placed) {
  if (placed.backend != BackendKind::kCuda) return false;
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == as.rlim_max) return false;
  as.rlim_cur = as.rlim_max;
  return setrlimit(RLIMIT_AS, &as) == 0;
}

}  // namespace tc::daemon
