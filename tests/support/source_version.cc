#include "tests/support/source_version.h"

#include <fstream>

namespace tc::test {

std::string source_version() {
  std::ifstream file(TC_VERSION_FILE);
  std::string line;
  std::getline(file, line);
  return line;
}

}  // namespace tc::test
