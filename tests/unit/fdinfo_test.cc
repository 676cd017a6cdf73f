// DRM fdinfo parsing, from texts in the kernel's documented formats
// (Documentation/gpu/drm-usage-stats.rst, i915-usage-stats and xe-drm-usage-stats).
#include "pipeline/metrics/fdinfo.h"

#include <gtest/gtest.h>

namespace tc::metrics {
namespace {

constexpr const char* kI915 =
    "pos:    0\n"
    "flags:  0100002\n"
    "mnt_id: 27\n"
    "ino:    1234\n"
    "drm-driver:     i915\n"
    "drm-client-id:  7\n"
    "drm-pdev:       0000:00:02.0\n"
    "drm-total-system0:      24 KiB\n"
    "drm-shared-system0:     0\n"
    "drm-active-system0:     0\n"
    "drm-resident-system0:   16 KiB\n"
    "drm-purgeable-system0:  0\n"
    "drm-engine-render:      9288864723 ns\n"
    "drm-engine-copy:        2035071108 ns\n"
    "drm-engine-video:       7 ns\n"
    "drm-engine-capacity-video:      2\n"
    "drm-engine-video-enhance:       0 ns\n"
    "drm-engine-compute:     0 ns\n";

constexpr const char* kXe =
    "pos:    0\n"
    "flags:  0100002\n"
    "mnt_id: 26\n"
    "ino:    685\n"
    "drm-driver:     xe\n"
    "drm-client-id:  3\n"
    "drm-pdev:       0000:03:00.0\n"
    "drm-total-system:       0\n"
    "drm-shared-system:      0\n"
    "drm-active-system:      0\n"
    "drm-resident-system:    0\n"
    "drm-purgeable-system:   0\n"
    "drm-total-gtt:  192 KiB\n"
    "drm-shared-gtt: 0\n"
    "drm-active-gtt: 0\n"
    "drm-resident-gtt:       192 KiB\n"
    "drm-total-vram0:        23992 KiB\n"
    "drm-shared-vram0:       16 MiB\n"
    "drm-active-vram0:       0\n"
    "drm-resident-vram0:     23992 KiB\n"
    "drm-total-stolen:       0\n"
    "drm-cycles-rcs: 28257900\n"
    "drm-total-cycles-rcs:   7655183225\n"
    "drm-cycles-bcs: 0\n"
    "drm-total-cycles-bcs:   7655183225\n"
    "drm-cycles-vcs: 0\n"
    "drm-total-cycles-vcs:   7655183225\n"
    "drm-engine-capacity-vcs:        2\n"
    "drm-cycles-vecs:        0\n"
    "drm-total-cycles-vecs:  7655183225\n"
    "drm-engine-capacity-vecs:       2\n"
    "drm-cycles-ccs: 0\n"
    "drm-total-cycles-ccs:   7655183225\n"
    "drm-engine-capacity-ccs:        4\n";

TEST(Fdinfo, I915EnginesInNanosecondsWithCapacityAndMemory) {
  std::optional<DrmClient> client = parse_fdinfo(kI915);
  ASSERT_TRUE(client);
  EXPECT_EQ(client->driver, "i915");
  EXPECT_EQ(client->client_id, "7");
  EXPECT_EQ(client->pdev, "0000:00:02.0");
  EXPECT_EQ(client->key(), "i915/0000:00:02.0/7");
  ASSERT_EQ(client->engines.size(), 5u);
  EXPECT_EQ(client->engines["render"].busy, 9288864723u);
  EXPECT_FALSE(client->engines["render"].cycles);
  EXPECT_EQ(client->engines["render"].capacity, 1u);
  EXPECT_EQ(client->engines["copy"].busy, 2035071108u);
  EXPECT_EQ(client->engines["video"].busy, 7u);
  EXPECT_EQ(client->engines["video"].capacity, 2u);
  EXPECT_EQ(client->engines["video-enhance"].busy, 0u);
  EXPECT_EQ(client->memory_total, 24u * 1024);
  EXPECT_EQ(client->memory_resident, 16u * 1024);
}

TEST(Fdinfo, XeCyclesMapToTheSameClassNames) {
  std::optional<DrmClient> client = parse_fdinfo(kXe);
  ASSERT_TRUE(client);
  EXPECT_EQ(client->driver, "xe");
  EXPECT_EQ(client->client_id, "3");
  ASSERT_EQ(client->engines.size(), 5u);
  const EngineCounter& render = client->engines["render"];
  EXPECT_TRUE(render.cycles);
  EXPECT_EQ(render.busy, 28257900u);
  EXPECT_EQ(render.total_cycles, 7655183225u);
  EXPECT_EQ(client->engines["video"].capacity, 2u);
  EXPECT_EQ(client->engines["video-enhance"].capacity, 2u);
  EXPECT_EQ(client->engines["compute"].capacity, 4u);
  EXPECT_EQ(client->engines["copy"].total_cycles, 7655183225u);
  // drm-total-* over every region; drm-shared-* is not a client's own memory.
  EXPECT_EQ(client->memory_total, (192u + 23992u) * 1024);
  EXPECT_EQ(client->memory_resident, (192u + 23992u) * 1024);
}

TEST(Fdinfo, GarbageLinesAreSkipped) {
  std::string text = std::string("garbage without a colon\n") +
                     "::::\n"
                     "drm-engine-render: lots ns\n"
                     "drm-engine-copy: 12 parsecs\n"
                     "drm-total-vram0: 5 furlongs\n"
                     "drm-engine-video:\n"
                     "drm-cycles-rcs: -4\n"
                     "\n"
                     "drm-driver: i915\n"
                     "drm-client-id: 9\n"
                     "drm-engine-video-enhance: 42 ns\r\n"
                     "drm-total-system0: 3\n";
  std::optional<DrmClient> client = parse_fdinfo(text);
  ASSERT_TRUE(client);
  ASSERT_EQ(client->engines.size(), 1u);
  EXPECT_EQ(client->engines["video-enhance"].busy, 42u);
  EXPECT_EQ(client->memory_total, 3u);
}

TEST(Fdinfo, NotADrmClient) {
  EXPECT_FALSE(parse_fdinfo("pos: 0\nflags: 02\nmnt_id: 15\n"));
  EXPECT_FALSE(parse_fdinfo("drm-driver: i915\ndrm-engine-render: 5 ns\n"));  // no client id
  EXPECT_FALSE(parse_fdinfo(""));
}

TEST(Fdinfo, MemoryUnits) {
  EXPECT_EQ(parse_memory_value("24 KiB"), 24u * 1024);
  EXPECT_EQ(parse_memory_value("7 MiB"), 7u * 1024 * 1024);
  EXPECT_EQ(parse_memory_value("1 GiB"), 1024u * 1024 * 1024);
  EXPECT_EQ(parse_memory_value("3"), 3u);
  EXPECT_FALSE(parse_memory_value("3 KB"));
  EXPECT_FALSE(parse_memory_value("KiB"));
}

TEST(Fdinfo, ClassNamesForUsers) {
  EXPECT_EQ(engine_class_name("rcs"), "render");
  EXPECT_EQ(engine_class_name("bcs"), "copy");
  EXPECT_EQ(engine_class_name("vcs"), "video");
  EXPECT_EQ(engine_class_name("vecs"), "video-enhance");
  EXPECT_EQ(engine_class_name("ccs"), "compute");
  EXPECT_EQ(engine_class_name("other"), "other");
  EXPECT_EQ(engine_class_label("render"), "render/3D");
  EXPECT_EQ(engine_class_label("video"), "video (decode+encode)");
  EXPECT_EQ(engine_class_label("video-enhance"), "video-enhance (scaling, VPP)");
  EXPECT_EQ(engine_class_label("copy"), "copy");
}

}  // namespace
}  // namespace tc::metrics
