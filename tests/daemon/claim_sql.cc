// claim_sql [BACKENDS]: prints the claim statement exactly as the PostgreSQL engine sends it
// (lease_sql.h's pg_claim_candidates_sql) for BACKENDS backends (default 2): $1..$BACKENDS the
// backends, the next the fair-share window in ms. bench/claim-explain EXPLAINs what it prints, so
// the bench reads the code's statement, never a copy of its text. Exit 2 on a bad argument.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "service/daemon/store/lease_sql.h"

int main(int argc, char** argv) {
  long backends = 2;
  if (argc > 2) {
    std::fprintf(stderr, "usage: claim_sql [BACKENDS]\n");
    return 2;
  }
  if (argc == 2) {
    char* end = nullptr;
    backends = std::strtol(argv[1], &end, 10);
    if (*argv[1] == '\0' || *end != '\0' || backends < 1 || backends > 64) {
      std::fprintf(stderr, "claim_sql: BACKENDS '%s' is not a count of 1..64\n", argv[1]);
      return 2;
    }
  }
  std::string sql = tc::daemon::pg_claim_candidates_sql(static_cast<size_t>(backends));
  std::fwrite(sql.data(), 1, sql.size(), stdout);
  return 0;
}
