// What other nodes do to jobs, heard through PostgreSQL's LISTEN/NOTIFY (the triggers of schema
// version 4, pg_schema.cc) on a connection of its own: a job queued, changed, or asked to cancel.
// A lost connection is re-made at the next wait, and reported as kMissed: notices sent while it
// was down are gone, so the listener's user looks again at what it cares about.
#pragma once

#include <memory>
#include <string>

#include "service/daemon/store/lease_table.h"
#include "service/daemon/store/pg_connection.h"

namespace tc::daemon {

class PgListener final : public StoreEvents {
 public:
  PgListener(std::string url, std::string password)
      : url_(std::move(url)), password_(std::move(password)) {}
  std::vector<StoreEvent> wait(double timeout_s) override;

 private:
  Status connect();

  const std::string url_;
  const std::string password_;
  std::unique_ptr<PgConnection> db_;  // null while disconnected
};

}  // namespace tc::daemon
