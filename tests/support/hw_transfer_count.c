// An LD_PRELOAD library for the tests: counts the frames that cross between a device and memory,
// seen from outside the program, where no report of its own can be wrong about them. Every such
// copy in libav (transcode's own downloads, the hwupload and hwdownload filters) is a call to
// av_hwframe_transfer_data from another library or the program, so this definition takes it
// first and hands it on. Each copy appends a line "up|down WIDTHxHEIGHT" (the device frame's
// size) to the file $TC_TRANSFER_LOG at once: a program that ends with _exit (transcode does)
// runs no exit handler, and one write(2) to an O_APPEND file is whole among threads and
// processes. It links no libav library, only its headers: a shell it is preloaded into stays
// as it was.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <libavutil/frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef int (*TransferFunction)(AVFrame*, const AVFrame*, int);

static TransferFunction real;

// Before main: the next definition (libavutil's). POSIX's way to store dlsym's result in a
// function pointer (ISO C has no conversion between object and function pointers).
__attribute__((constructor)) static void find_real(void) {
  *(void**)(&real) = dlsym(RTLD_NEXT, "av_hwframe_transfer_data");
}

static void log_transfer(int down, const AVFrame* device) {
  const char* path = getenv("TC_TRANSFER_LOG");
  if (!path) return;
  char line[64];
  int length = snprintf(line, sizeof line, "%s %dx%d\n", down ? "down" : "up", device->width,
                        device->height);
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  if (write(fd, line, (size_t)length) != length) {
    // Nothing to do: a short count shows in the test as a missing frame.
  }
  close(fd);
}

int av_hwframe_transfer_data(AVFrame* dst, const AVFrame* src, int flags) {
  int ret = real(dst, src, flags);
  if (ret >= 0) {
    int down = src->hw_frames_ctx != NULL;
    log_transfer(down, down ? src : dst);
  }
  return ret;
}
