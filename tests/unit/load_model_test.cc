// The load model (service/daemon/model/load_model.h) and the scheduler's admission by it: a device
// takes another job while its running jobs' measured load leaves room for one more job's
// estimate, and the slots stay a cap. The clock is the test's.
#include <gtest/gtest.h>

#include "service/daemon/jobs/job_manager.h"
#include "service/daemon/model/load_model.h"
#include "service/daemon/policy/scheduler.h"
#include "tests/unit/fixtures.h"

namespace tc::daemon {
namespace {

// A sampling interval of a job using `cores` CPU cores and, when `engine_percent` is given,
// a GPU engine that busy.
metrics::EngineUsage usage(double cores, std::optional<double> engine_percent = std::nullopt) {
  metrics::EngineUsage u;
  u.cpu_cores = cores;
  u.interval_s = 0.5;
  u.samples = 1;
  if (engine_percent) {
    u.available = true;
    u.engines.push_back({"video", "video (decode+encode)", *engine_percent, 1});
  }
  return u;
}

LoadSettings two_cores() {
  LoadSettings settings;
  settings.cores = 2;
  return settings;
}

// Teaches device 0 that its jobs use `cores` (and `engine_percent`), until its estimate is
// within 1 % of that.
void teach(LoadModel& model, double cores, std::optional<double> engine_percent = std::nullopt) {
  for (int i = 0; i < 40; ++i) {
    std::string id = "past-" + std::to_string(i);
    model.start(0, id, 0);
    model.finish(id, usage(cores, engine_percent));
  }
}

TEST(LoadModel, AnIdleDeviceTakesOneJobWhateverItsEstimate) {
  LoadModel model(two_cores());
  model.add_device(false, {5, 0});  // a job expected to need more than the node has
  EXPECT_EQ(model.more_jobs(0, 0), 1);
  model.start(0, "a", 0);
  EXPECT_EQ(model.more_jobs(0, 0), 0);
}

// The prior is the old fixed slot: cores / default_slots, so a node that learned nothing
// admits as before (here one software job on 2 cores, eight on 16).
TEST(LoadModel, ThePriorAdmitsAsTheFixedSlotsDid) {
  for (unsigned cores : {2u, 16u}) {
    std::vector<SchedDevice> devices =
        devices_from_inventory({}, 0, cores);  // software only; cap = cores
    Scheduler s({}, devices, load_model_for(devices, 0, cores));
    s.set_clock([] { return 0.0; });
    int placed = 0;
    while (s.place({"j" + std::to_string(placed), 0, placed}).has_value()) ++placed;
    EXPECT_EQ(placed, default_slots(BackendKind::kSoftware, cores)) << cores << " cores";
    EXPECT_EQ(devices[0].slots, static_cast<int>(cores));  // the cap is above it
  }
}

TEST(LoadModel, AJustStartedJobCountsAsTheEstimateNotItsFirstSamples) {
  LoadModel model(two_cores());
  model.add_device(false, {2, 0});
  model.start(0, "a", 10);
  model.sample("a", usage(0.1), 10.5);  // still starting: reads almost nothing yet
  EXPECT_EQ(model.more_jobs(0, 10.5), 0);
  EXPECT_DOUBLE_EQ(model.load(0, 10.5).cores, 2);
  model.sample("a", usage(0.1), 12);  // past the young time: its measurement counts
  EXPECT_DOUBLE_EQ(model.load(0, 12).cores, 0.1);
  EXPECT_EQ(model.more_jobs(0, 12), 1);  // (2.1 - 0.1) / 2 cores a job
}

TEST(LoadModel, TheEstimateLearnsFromFinishedJobs) {
  LoadModel model(two_cores());
  model.add_device(false, {2, 0});
  model.start(0, "a", 0);
  model.finish("a", usage(0.5));
  EXPECT_DOUBLE_EQ(model.estimate(0).cores, 1.25);  // the prior counts as one job
  model.start(0, "never-sampled", 0);
  model.finish("never-sampled", std::nullopt);  // teaches nothing
  EXPECT_DOUBLE_EQ(model.estimate(0).cores, 1.25);
  teach(model, 0.5);
  EXPECT_NEAR(model.estimate(0).cores, 0.5, 0.005);
}

TEST(LoadModel, ALongJobTeachesBeforeItEnds) {
  LoadSettings settings = two_cores();
  settings.learn_after_s = 10;
  LoadModel model(settings);
  model.add_device(false, {2, 0});
  model.start(0, "long", 0);
  model.sample("long", usage(1), 5);
  EXPECT_DOUBLE_EQ(model.estimate(0).cores, 2);
  model.sample("long", usage(1), 10);
  EXPECT_DOUBLE_EQ(model.estimate(0).cores, 1.5);
  model.finish("long", usage(1));  // taught once
  EXPECT_DOUBLE_EQ(model.estimate(0).cores, 1.5);
}

// The brief's figure: 2 cores, jobs measured at 0.5 cores, one running: three more fit.
TEST(LoadModel, CapacityIsTheHeadroomOverOneJobsEstimate) {
  HwInventory none;
  std::vector<SchedDevice> devices = {{BackendKind::kSoftware, "", "software", 8, 0}};
  LoadModel model(two_cores());
  model.add_device(false, {2, 0});
  teach(model, 0.5);
  Scheduler s(none, devices, model);
  double now = 0;
  s.set_clock([&] { return now; });
  ASSERT_EQ(s.place({"a", 0, 1}), 0);
  now = 2;
  s.sample("a", usage(0.5));
  SchedDevice device = s.devices_now()[0];
  EXPECT_EQ(device.load.capacity, 3);
  EXPECT_DOUBLE_EQ(device.load.load_percent, 25);
  EXPECT_NEAR(device.load.job_cores, 0.5, 0.005);
  EXPECT_EQ(device.load.job_engine_percent, 0);
}

TEST(Scheduler, MeasuredSaturationHoldsTheNextJobThoughSlotsAreFree) {
  std::vector<SchedDevice> devices = {{BackendKind::kSoftware, "", "software", 8, 0}};
  LoadModel model(two_cores());
  model.add_device(false, {0.5, 0});
  Scheduler s({}, devices, model);
  double now = 0;
  s.set_clock([&] { return now; });
  ASSERT_EQ(s.place({"heavy", 0, 1}), 0);
  now = 2;
  EXPECT_FALSE(s.sample("heavy", usage(1.9)));  // libx264 on every core
  EXPECT_EQ(s.devices_now()[0].load.capacity, 0);
  EXPECT_FALSE(s.place({"next", 0, 2}).has_value());
  EXPECT_TRUE(s.claimable({"software"}).empty());
  now = 2.5;
  EXPECT_TRUE(s.sample("heavy", usage(0.4)));  // it calmed down: room again, say so
  EXPECT_EQ(s.place({"next", 0, 2}), 0);
}

TEST(Scheduler, TheSlotsStillCapJobsThatUseNothing) {
  std::vector<SchedDevice> devices = {{BackendKind::kSoftware, "", "software", 2, 0}};
  LoadModel model(two_cores());
  model.add_device(false, {0, 0});  // jobs that sleep: the load never holds one
  Scheduler s({}, devices, model);
  s.set_clock([] { return 0.0; });
  EXPECT_EQ(s.place({"a", 0, 1}), 0);
  EXPECT_EQ(s.place({"b", 0, 2}), 0);
  EXPECT_FALSE(s.place({"c", 0, 3}).has_value());
  EXPECT_EQ(s.devices_now()[0].load.capacity, 0);
  s.release(0, "a", usage(0));
  EXPECT_EQ(s.devices_now()[0].load.capacity, 1);
}

TEST(Scheduler, GpuEngineBusyDrivesAGpuDevice) {
  HwInventory inventory = tc::testing::inventory({tc::testing::intel_gpu("/dev/dri/renderD128")});
  std::vector<SchedDevice> devices = devices_from_inventory(inventory, 0, 2);
  ASSERT_EQ(devices.size(), 2u);
  Scheduler s(inventory, devices, load_model_for(devices, 0, 2));
  double now = 0;
  s.set_clock([&] { return now; });
  EXPECT_EQ(s.devices_now()[1].load.job_engine_percent, 25);  // 100 % / the old 4 slots
  ASSERT_EQ(s.place({"gpu", 0, 1, BackendKind::kVaapi}), 1);
  now = 2;
  s.sample("gpu", usage(0.1, 90));  // the video engine nearly full
  EXPECT_EQ(s.devices_now()[1].load.capacity, 0);
  EXPECT_DOUBLE_EQ(s.devices_now()[1].load.load_percent, 90);
  EXPECT_FALSE(s.place({"gpu2", 0, 2, BackendKind::kVaapi}).has_value());
  EXPECT_TRUE(s.sample("gpu", usage(0.1, 50)));
  EXPECT_EQ(s.devices_now()[1].load.capacity, 2);  // (105 - 50) / 25
  // Without engine counters a GPU job counts as its estimate, as a fixed slot did.
  s.sample("gpu", usage(0.1));
  EXPECT_EQ(s.devices_now()[1].load.capacity, 3);  // (105 - 25) / 25
  EXPECT_EQ(s.devices_now()[0].load.capacity, 1);  // the software device is its own
}

// What a finished job teaches: a succeeded job its report's exact cpu_s / wall_s; a failed job
// its samples; a job never sampled (its worker did not start) nothing.
TEST(LoadModel, AJobTeachesWhatItsRunMeasured) {
  WorkerOutcome succeeded;
  succeeded.report.cpu_s = 0.3;
  succeeded.report.wall_s = 1.2;
  std::optional<metrics::EngineUsage> taught = usage_to_learn(succeeded, usage(0.9));
  ASSERT_TRUE(taught.has_value());
  EXPECT_DOUBLE_EQ(taught->cpu_cores, 0.25);
  WorkerOutcome failed;
  failed.status = Status(Code::kInternal, "worker died");
  taught = usage_to_learn(failed, usage(0.9));
  ASSERT_TRUE(taught.has_value());
  EXPECT_DOUBLE_EQ(taught->cpu_cores, 0.9);
  EXPECT_FALSE(usage_to_learn(failed, metrics::EngineUsage{}).has_value());
}

}  // namespace
}  // namespace tc::daemon
