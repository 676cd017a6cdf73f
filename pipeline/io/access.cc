#include "pipeline/io/access.h"

namespace tc::io {

Result<Access> caller_access() {
  TC_ASSIGN_OR_RETURN(Roots roots, Roots::open_caller());
  Access access;
  access.roots = std::make_shared<const Roots>(std::move(roots));
  access.protocols = {"http", "https", "rtmp", "rtmps", "rtsp", "srt", "udp", "rtp"};
  return access;
}

}  // namespace tc::io
