// Issue 39, "node settings reach the worker once": the node's settings go from the daemon's
// configuration into one struct (node_settings), the dispatcher hands it on with the job's
// placement (decide), and the worker reads back exactly that struct from its command line and
// job line; it plans on the device it was placed on without choosing again.
#include <gtest/gtest.h>

#include <filesystem>

#include "pipeline/hw/inventory_json.h"
#include "pipeline/plan/plan.h"
#include "service/daemon/daemon.h"
#include "service/daemon/jobs/dispatcher.h"
#include "service/daemon/worker/worker_main.h"
#include "service/daemon/worker/worker_process.h"
#include "service/daemon/worker/worker_protocol.h"
#include "tests/support/media_tools.h"
#include "tests/unit/fixtures.h"

using namespace tc;
using namespace tc::daemon;

namespace {

DaemonConfig node_config(const std::string& state_dir) {
  DaemonConfig config;
  config.state_dir = state_dir;
  config.worker_memory_mb = 2048;
  config.max_pixels = 3840 * 2160;
  config.media_roots = {"/srv/media", "/srv/more"};
  config.allowed_protocols = {"https"};
  config.worker_landlock = true;
  config.gop_parallel = 3;
  return config;
}

HwDevice nvidia_gpu() {
  HwDevice device;
  device.backend = BackendKind::kCuda;
  device.path = "0";
  device.ordinal = 0;
  device.driver = "nvidia";
  device.decode = {{AV_CODEC_ID_H264, 8}};
  device.encode = {{AV_CODEC_ID_H264, {true, false}}};
  device.can_scale = true;
  return device;
}

// The worker's own reading of what it was started with and handed.
NodeSettings worker_reads(const NodeSettings& node) {
  Result<WorkerOptions> parsed = parse_worker_args(worker_args({"transcoded", node}));
  EXPECT_TRUE(parsed.is_ok()) << parsed.status().to_string();
  return parsed.is_ok() ? parsed->node : NodeSettings{};
}

}  // namespace

TEST(NodeDecisions, EveryNodeSettingGoesFromTheConfigThroughTheDispatcherToTheWorker) {
  tc::testing::TempDir state;
  HwInventory inventory = tc::testing::inventory({tc::testing::intel_gpu("/dev/dri/renderD128")});
  NodeSettings node = node_settings(node_config(state.path()));
  node.devices_json = inventory_to_json(inventory).dump();
  Scheduler scheduler(inventory, devices_from_inventory(inventory, 0, 2));
  JobRecord job;
  job.spec = tc::testing::job({tc::testing::output("out.mp4", 640, 360)});
  NodeDecisions decided = decide(node, scheduler, job, 1);

  const std::string cache = (std::filesystem::path(state.path()) / "gpu-cache").string();
  for (const NodeSettings& seen : {decided.node, worker_reads(decided.node)}) {
    EXPECT_EQ(seen.memory_mb, 2048);
    EXPECT_EQ(seen.max_pixels, 8294400);
    EXPECT_EQ(seen.media_roots, (std::vector<std::string>{"/srv/media", "/srv/more"}));
    EXPECT_EQ(seen.protocols, (std::vector<std::string>{"https"}));
    EXPECT_TRUE(seen.landlock);
    EXPECT_EQ(seen.gop_parallel, 3);
    EXPECT_EQ(seen.gpu_cache, cache);
    EXPECT_EQ(seen.devices_json, inventory_to_json(inventory).dump());
  }
  EXPECT_EQ(decided.device_index, 1);
  EXPECT_EQ(decided.device_name, "vaapi /dev/dri/renderD128");
  EXPECT_FALSE(decided.cuda_ordinal.has_value());
  ASSERT_TRUE(decided.placement.has_value());
  EXPECT_EQ(decided.placement->backend, BackendKind::kVaapi);
  EXPECT_EQ(decided.placement->device_path, "/dev/dri/renderD128");
  EXPECT_EQ(decided.placement->reason, "auto: Intel GPU /dev/dri/renderD128 (i915)");
}

// The worker gets the placement on its job line and plans on that device as the dispatcher
// chose it: the plan's backend, device and reason are the dispatcher's.
TEST(NodeDecisions, TheWorkerPlansWhereTheDispatcherPlacedTheJob) {
  HwInventory inventory = tc::testing::inventory({tc::testing::intel_gpu("/dev/dri/renderD128"),
                                                  tc::testing::intel_gpu("/dev/dri/renderD129")});
  Scheduler scheduler(inventory, devices_from_inventory(inventory, 0, 2));
  JobRecord job;
  job.spec = tc::testing::job({tc::testing::output("out.mp4", 640, 360)});
  NodeDecisions decided = decide({}, scheduler, job, 2);  // the second GPU
  ASSERT_TRUE(decided.placement.has_value());

  Result<WorkerJob> read = parse_job_line(job_line({job.spec, 1, "j", decided.placement}));
  ASSERT_TRUE(read.is_ok()) << read.status().to_string();
  ASSERT_TRUE(read->placement.has_value());
  EXPECT_EQ(*read->placement, *decided.placement);
  JobSpec placed = placed_spec(read->spec, read->placement);
  EXPECT_EQ(placed.backend, BackendKind::kVaapi);
  EXPECT_EQ(placed.device, "/dev/dri/renderD129");
  Result<Plan> plan = make_plan(placed, tc::testing::media(), inventory);
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->backend, BackendKind::kVaapi);
  EXPECT_EQ(plan->device.path, "/dev/dri/renderD129");

  // A job no device of the node runs goes unplaced: the planner refuses it, saying why.
  job.spec.backend = BackendKind::kCuda;
  EXPECT_FALSE(decide({}, scheduler, job, 0).placement.has_value());
}

// The CUDA ordinal NVML samples by is discovery's, typed through the inventory the daemon's
// discovery child hands over, to the attempt: no number is read back out of a path.
TEST(NodeDecisions, ACudaDevicesOrdinalComesFromDiscovery) {
  HwDevice nvidia = nvidia_gpu();
  nvidia.ordinal = 1;
  nvidia.path = "1";
  Result<HwInventory> handed = inventory_from_json(
      inventory_to_json(tc::testing::inventory({tc::testing::intel_gpu(), nvidia})));
  ASSERT_TRUE(handed.is_ok()) << handed.status().to_string();
  EXPECT_FALSE(handed->devices[0].ordinal.has_value());
  Scheduler scheduler(*handed, devices_from_inventory(*handed, 0, 2));
  JobRecord job;
  job.spec = tc::testing::job({tc::testing::output("out.mp4", 640, 360)}, BackendKind::kCuda);
  NodeDecisions decided = decide({}, scheduler, job, 2);
  EXPECT_EQ(decided.device_backend, BackendKind::kCuda);
  EXPECT_EQ(decided.cuda_ordinal, std::optional<unsigned>(1));
}
