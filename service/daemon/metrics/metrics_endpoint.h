// The Prometheus text endpoint (`--metrics-listen ADDR`, GET /metrics): prometheus-cpp's
// Exposer (civetweb) serving families built from a NodeSnapshot at every scrape.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/model/node_metrics.h"

namespace prometheus {
class Exposer;
class Collectable;
struct MetricFamily;
}  // namespace prometheus

namespace tc::daemon {

// The families of a snapshot (names under "transcoded_"); see README.md, Metrics. A scrape
// serves these, the process_* families (process_metrics.h) and prometheus-cpp's exposer_*.
std::vector<prometheus::MetricFamily> node_families(const NodeSnapshot& snapshot);
// The same in Prometheus text format 0.0.4.
std::string node_metrics_text(const NodeSnapshot& snapshot);

class MetricsEndpoint {
 public:
  // `listen`: host:port; port 0 picks a free one. kInvalidArgument names metrics_listen.
  static Result<std::unique_ptr<MetricsEndpoint>> start(const std::string& listen,
                                                        std::function<NodeSnapshot()> snapshot);
  ~MetricsEndpoint();
  const std::string& address() const { return address_; }  // as bound

 private:
  MetricsEndpoint() = default;
  std::shared_ptr<prometheus::Collectable> collectable_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  std::string address_;
};

}  // namespace tc::daemon
