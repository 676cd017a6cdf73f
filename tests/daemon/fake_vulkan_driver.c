// A Vulkan driver (ICD) that fails the way a broken GPU driver can: the real Vulkan loader loads
// it where VK_ICD_FILENAMES names its manifest, and when the loader first calls into it, it
// hangs (TC_FAKE_VULKAN_DRIVER=hang, as a wedged GPU holds a driver's ioctl; 120 s at most) or
// aborts (anything else, as a driver's failed assertion does). The daemon's tests start a node
// offering vulkan with it, to see discovery's child stopped or its death reported, and the node
// serve.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORTED __attribute__((visibility("default")))

static void misbehave(void) {
  const char* how = getenv("TC_FAKE_VULKAN_DRIVER");
  if (how && strcmp(how, "hang") == 0) {
    alarm(120);  // a hang not stopped ends as SIGALRM: the test fails instead of hanging
    for (;;) pause();
  }
  abort();
}

EXPORTED int vk_icdNegotiateLoaderICDInterfaceVersion(unsigned* version) {
  (void)version;
  misbehave();
  return 0;
}

EXPORTED void* vk_icdGetInstanceProcAddr(void* instance, const char* name) {
  (void)instance;
  (void)name;
  misbehave();
  return 0;
}
