// `transcode`: one-off transcodes in-process (`run`), and the daemon's client (other commands).
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

extern "C" {
#include <libavutil/log.h>
}

#include "service/cli/run_command.h"
#include "service/common/exit_codes.h"
#ifdef TC_WITH_GRPC
#include "service/client/client.h"
#endif

namespace {

void print_usage() {
  std::cout << "usage: transcode <command> [options]\n\n"
               "  run INPUT OUTPUT [options]   transcode in this process (run --help)\n";
#ifdef TC_WITH_GRPC
  std::cout << tc::client::client_help();
#else
  std::cout << "  (built without gRPC: the daemon's client commands are not available)\n";
#endif
}

// libav logs to stderr below our one-line errors; keep it to fatal messages unless asked.
void set_library_log_level(std::vector<std::string>& args) {
  int level = AV_LOG_FATAL;
  for (auto it = args.begin(); it != args.end();)
    if (*it == "--verbose" || *it == "-v") {
      level = AV_LOG_INFO;
      it = args.erase(it);
    } else {
      ++it;
    }
  av_log_set_level(level);
  // SVT-AV1 logs to stderr itself, bypassing av_log: keep it to errors likewise.
  if (level < AV_LOG_INFO) setenv("SVT_LOG", "1", /*overwrite=*/0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "help")) {
    print_usage();
    return argc < 2 ? tc::kExitUsage : tc::kExitOk;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  set_library_log_level(args);
  if (command == "run") return tc::cli::run_main(args);
#ifdef TC_WITH_GRPC
  if (tc::client::is_client_command(command)) return tc::client::client_main(command, args);
#endif
  std::cerr << "transcode: unknown command '" << command << "' (see transcode --help)\n";
  return tc::kExitUsage;
}
