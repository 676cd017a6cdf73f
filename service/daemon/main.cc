// transcoded: the daemon, or with --worker one job's worker process (the same binary, so a
// deployed daemon never runs a worker of another version).
#include <cstdio>
#include <string>
#include <vector>

#include "service/common/process_exit.h"
#include "service/daemon/daemon.h"
#include "service/daemon/http/openapi.h"
#include "service/daemon/http/routes.h"
#include "service/daemon/worker/worker_main.h"
#include "service/daemon/worker/zygote.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (tc::daemon::is_worker_invocation(args)) return tc::end_process(tc::daemon::worker_main(args));
  // The zygote, or a worker it forked, once that worker's job is done.
  if (tc::daemon::is_zygote_invocation(args)) return tc::end_process(tc::daemon::zygote_main(args));
  // The HTTP API's OpenAPI document (docs/openapi.json), from this binary's descriptors.
  if (args == std::vector<std::string>{"--openapi"})
    return std::fputs(tc::daemon::openapi_document(tc::daemon::transcoder_service()).c_str(),
                      stdout) < 0;
  return tc::daemon::run_daemon(args);
}
