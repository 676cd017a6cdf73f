// This node's part in cluster mode (README, Cluster): taking over the jobs of nodes whose lease
// ran out (and, at start, of this node's previous process), the node's beat (its row, its
// leases, what other nodes offer), and what other nodes do to jobs, as the store's events tell
// (cancels of jobs running here, changes of jobs watched here). Its only lock guards the
// listener's stop flag; the store is called outside every lock.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "service/daemon/jobs/dispatcher.h"
#include "service/daemon/jobs/manager_options.h"
#include "service/daemon/jobs/node_counters.h"
#include "service/daemon/jobs/running_jobs.h"
#include "service/daemon/jobs/watch_hub.h"
#include "service/daemon/store/job_store.h"

namespace tc::daemon {

struct ClusterParts {
  const ManagerOptions& options;
  const JobStore& store;  // its jobs, leases and nodes
  RunningJobs& running;
  WatchHub& hub;
  NodeCounters& counters;
  Dispatcher& dispatcher;
};

class ClusterMembership {
 public:
  explicit ClusterMembership(ClusterParts parts) : parts_(parts) {}
  ~ClusterMembership();  // ends the listener

  // Jobs left RUNNING by a node that died (its worker died with it: the parent-death signal),
  // so their partial outputs are garbage: run again, unless they have had their attempts. At
  // start-up `own_node` is this node, whose previous process is gone whatever its leases say;
  // "" takes only those whose lease ran out.
  Status take_orphans(const std::string& own_node);
  // Starts following the store's events, when other nodes share it.
  void listen();
  void stop();

  // The node's beat (node_heartbeat.h): writes its row, renews its leases (stopping jobs it no
  // longer holds, cancelling those cancelled through another node), takes over jobs whose lease
  // ran out, and learns which backends the live nodes offer. An error: the store is unreachable.
  Status beat(const NodeRecord& node);

 private:
  Status requeue_orphan(JobRecord job, bool lease_expired);
  void renew_leases();
  void listen_loop();
  void on_store_event(const StoreEvent& event);
  void refresh_remote_watch(const std::string& id);

  ClusterParts parts_;
  std::unique_ptr<StoreEvents> events_;  // null with a store no other node shares
  std::atomic<bool> stopping_{false};
  std::thread listener_;
};

}  // namespace tc::daemon
