// A server-streaming route as server-sent events: each message of the stream is one event,
// `data: <the message as JSON>`, and a stream that ends in an error ends with `event: error`
// and the status body. The call is opened and its first message read before the HTTP response
// starts, so that a refused call (token, unknown id) is an HTTP status, not an event.
#pragma once

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/sync_stream.h>

#include <sys/types.h>

#include <memory>
#include <string>

#include "service/daemon/http/routes.h"

namespace tc::daemon {

class WatchStream {
 public:
  // Opens the call; not OK = the call's own status before any message (nothing was sent).
  static grpc::Status open(grpc::Channel& channel, const Route& route,
                           const std::string& authorization,
                           const google::protobuf::Message& request,
                           std::unique_ptr<WatchStream>& stream);
  // Cancels the call if it still runs (the client went away, or the gateway stops).
  ~WatchStream();

  // Up to `max` bytes of the event text, blocking for the next message: a libmicrohttpd content
  // reader (MHD_CONTENT_READER_END_OF_STREAM once the stream has ended).
  ssize_t read(char* out, size_t max);

 private:
  explicit WatchStream(const Route& route) : route_(route) {}
  bool next_event();  // pending_ = the next event; false once the stream has ended

  const Route& route_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<grpc::ByteBuffer>> reader_;
  std::string pending_;
  size_t sent_ = 0;
  bool finished_ = false;
  grpc::Status status_;  // the call's, once finished_
};

}  // namespace tc::daemon
