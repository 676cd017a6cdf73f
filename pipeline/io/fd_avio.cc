#include "pipeline/io/fd_avio.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "pipeline/core/compat.h"

namespace tc::io {
namespace {

constexpr int kBufferSize = 64 * 1024;

// What an AVIOContext's opaque points to.
struct FdStream {
  ScopedFd fd;
  int64_t position = 0;
  bool positional = false;  // a seekable file: pread/pwrite at `position`
};

int read_packet(void* opaque, uint8_t* buffer, int size) {
  auto* stream = static_cast<FdStream*>(opaque);
  for (;;) {
    ssize_t n = stream->positional ? ::pread(stream->fd.get(), buffer, size, stream->position)
                                   : ::read(stream->fd.get(), buffer, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return AVERROR(errno);
    if (n == 0) return AVERROR_EOF;
    stream->position += n;
    return static_cast<int>(n);
  }
}

int write_packet(void* opaque, av::AvioWriteBuffer buffer, int size) {
  auto* stream = static_cast<FdStream*>(opaque);
  int done = 0;
  while (done < size) {
    ssize_t n = stream->positional
                    ? ::pwrite(stream->fd.get(), buffer + done, size - done, stream->position)
                    : ::write(stream->fd.get(), buffer + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return AVERROR(errno);
    stream->position += n;
    done += static_cast<int>(n);
  }
  return size;
}

int64_t seek(void* opaque, int64_t offset, int whence) {
  auto* stream = static_cast<FdStream*>(opaque);
  if (!stream->positional) return AVERROR(ESPIPE);
  struct stat info {};
  if ((whence & AVSEEK_SIZE) || (whence & ~AVSEEK_FORCE) == SEEK_END) {
    if (::fstat(stream->fd.get(), &info) != 0) return AVERROR(errno);
    if (whence & AVSEEK_SIZE) return info.st_size;
  }
  switch (whence & ~AVSEEK_FORCE) {
    case SEEK_SET:
      stream->position = offset;
      break;
    case SEEK_CUR:
      stream->position += offset;
      break;
    case SEEK_END:
      stream->position = info.st_size + offset;
      break;
    default:
      return AVERROR(EINVAL);
  }
  return stream->position;
}

int open_nested(AVFormatContext* ctx, AVIOContext** pb, const char* url, int flags,
                AVDictionary** /*options*/) {
  auto* policy = static_cast<NestedOpens*>(ctx->opaque);
  bool own_url = ctx->url && url && std::string(url) == ctx->url;
  if (policy->own_file >= 0 && own_url && !(flags & AVIO_FLAG_WRITE)) {
    Result<FdAvioPtr> reader =
        make_fd_avio(ScopedFd(::fcntl(policy->own_file, F_DUPFD_CLOEXEC, 0)), AvioMode::kRead);
    if (!reader.is_ok()) return AVERROR(ENOMEM);
    *pb = reader->release();
    return 0;
  }
  if (policy->refused.empty()) policy->refused = url ? url : "";
  av_log(ctx, AV_LOG_ERROR, "refused to open %s: a media file may not refer to other files\n",
         url ? url : "(null)");
  return AVERROR(EPERM);
}

int close_nested(AVFormatContext* /*ctx*/, AVIOContext* pb) {
  FdAvioDeleter()(pb);
  return 0;
}

}  // namespace

void FdAvioDeleter::operator()(AVIOContext* pb) const {
  if (!pb) return;
  auto* stream = static_cast<FdStream*>(pb->opaque);
  av_freep(&pb->buffer);
  avio_context_free(&pb);
  delete stream;  // closes the fd
}

Result<FdAvioPtr> make_fd_avio(ScopedFd fd, AvioMode mode) {
  if (!fd.is_open()) return Status(Code::kInternal, "no file to read or write");
  auto stream = std::make_unique<FdStream>();
  stream->positional = ::lseek(fd.get(), 0, SEEK_CUR) >= 0;
  stream->fd = std::move(fd);
  auto* buffer = static_cast<unsigned char*>(av_malloc(kBufferSize));
  if (!buffer) return Status(Code::kInternal, "out of memory");
  bool write = mode == AvioMode::kWrite;
  AVIOContext* pb = avio_alloc_context(
      buffer, kBufferSize, write ? 1 : 0, stream.get(), write ? nullptr : read_packet,
      write ? write_packet : nullptr, stream->positional ? seek : nullptr);
  if (!pb) {
    av_free(buffer);
    return Status(Code::kInternal, "out of memory");
  }
  stream.release();  // the context's opaque now; FdAvioDeleter frees it
  return FdAvioPtr(pb);
}

int flush_fd_avio(AVIOContext* pb) {
  avio_flush(pb);
  return pb->error;
}

void confine_nested_opens(AVFormatContext* ctx, NestedOpens* policy) {
  ctx->opaque = policy;
  ctx->io_open = open_nested;
  ctx->io_close2 = close_nested;
}

}  // namespace tc::io
