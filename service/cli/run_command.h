// `transcode run`: a one-off transcode in this process.
#pragma once

#include <string>
#include <vector>

namespace tc::cli {

int run_main(const std::vector<std::string>& args);

}  // namespace tc::cli
