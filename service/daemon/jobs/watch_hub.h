// Who watches which job, and the events they get (WatchJob). Its lock is held only while it
// hands an event to a job's watchers, never over the store. Subscribing is two steps so that the
// job can be read from the store outside every lock: open() registers the watcher and holds
// back the state changes published meanwhile; start() sends the job as read after open(), then
// the held-back changes it does not already show. None is lost: every change is stored before
// it is published, so one published before open() is in the read.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "service/daemon/model/job_record.h"

namespace tc::daemon {

enum class EventKind { kSnapshot, kState, kProgress };

// Receives a job's events, in order, on whichever thread publishes them. Must not block and
// must not call back into the hub.
class JobWatcher {
 public:
  virtual ~JobWatcher() = default;
  virtual void on_event(EventKind kind, const JobRecord& job) = 0;
};

// Why a queued job does not run yet (JobRecord::waiting_reason); empty when it only waits for
// a slot. Must not call back into the hub.
using WaitingReason = std::function<std::string(const JobRecord&)>;

class WatchHub {
 public:
  WatchHub() = default;
  // Every event of a QUEUED job carries `reason`'s answer, the snapshot and state changes
  // included: a job may start or stop waiting for a node without changing state.
  explicit WatchHub(WaitingReason reason) : reason_(std::move(reason)) {}

  void open(const std::string& id, std::shared_ptr<JobWatcher> watcher);
  // Sends `job` (read after open()) as the snapshot, then the held-back state changes newer
  // than it. `remote`: no attempt of it runs on this node, and it has not ended: its changes
  // come from the store's events (refresh()).
  void start(const JobWatcher* watcher, const JobRecord& job, bool remote);
  void close(const std::string& id, const JobWatcher* watcher);

  void publish(EventKind kind, const JobRecord& job);
  // The job runs here from now on: this node publishes its changes itself.
  void runs_here(const std::string& id);
  // The remotely watched jobs, to read again after a missed event.
  std::vector<std::string> remote() const;
  bool is_remote(const std::string& id) const;
  // `job` as the store holds it now, for a remotely watched job: a state change when its state
  // moved since the last one published, else progress.
  void refresh(const JobRecord& job);

 private:
  struct Watch {
    std::shared_ptr<JobWatcher> watcher;
    bool started = false;
    std::vector<JobRecord> held;  // state changes published before start()
  };
  void send(Watch& watch, EventKind kind, const JobRecord& job);
  // `job` as its watchers see it: with its waiting_reason while QUEUED.
  JobRecord shown(const JobRecord& job) const;

  WaitingReason reason_;
  mutable std::mutex mutex_;
  std::multimap<std::string, Watch> watches_;
  // Jobs watched here and run elsewhere (or not yet claimed): the state last published for each.
  std::map<std::string, JobState> remote_;
};

}  // namespace tc::daemon
