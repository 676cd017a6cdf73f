#include "service/daemon/http/watch_stream.h"

#include <google/protobuf/util/json_util.h>
#include <grpcpp/impl/rpc_method.h>
#include <microhttpd.h>

#include <algorithm>
#include <cstring>

#include "service/daemon/http/grpc_call.h"
#include "service/daemon/http/status_body.h"

namespace tc::daemon {

grpc::Status WatchStream::open(grpc::Channel& channel, const Route& route,
                               const std::string& authorization,
                               const google::protobuf::Message& request,
                               std::unique_ptr<WatchStream>& stream) {
  std::unique_ptr<WatchStream> opened(new WatchStream(route));
  add_authorization(opened->context_, authorization);
  grpc::internal::RpcMethod method(route.grpc_path.c_str(),
                                   grpc::internal::RpcMethod::SERVER_STREAMING);
  opened->reader_.reset(grpc::internal::ClientReaderFactory<grpc::ByteBuffer>::Create(
      &channel, method, &opened->context_, to_bytes(request)));
  opened->next_event();
  if (!opened->status_.ok()) return opened->status_;
  stream = std::move(opened);
  return grpc::Status::OK;
}

WatchStream::~WatchStream() {
  if (finished_ || !reader_) return;
  context_.TryCancel();
  grpc::ByteBuffer ignored;
  while (reader_->Read(&ignored)) {
  }
  reader_->Finish();
}

bool WatchStream::next_event() {
  pending_.clear();
  sent_ = 0;
  if (finished_) return false;
  grpc::ByteBuffer bytes;
  if (!reader_->Read(&bytes)) {
    // The stream's end: an error event unless OK.
    status_ = reader_->Finish();
    finished_ = true;
    if (status_.ok()) return false;
    pending_ = "event: error\ndata: " + status_body(status_) + "\n\n";
    return true;
  }
  std::unique_ptr<google::protobuf::Message> message = new_message(*route_.method->output_type());
  std::string json;
  if (!from_bytes(bytes, *message) ||
      !google::protobuf::util::MessageToJsonString(*message, &json).ok())
    json = status_body({grpc::StatusCode::INTERNAL, "a stream message could not be written"});
  pending_ = "data: " + json + "\n\n";
  return true;
}

ssize_t WatchStream::read(char* out, size_t max) {
  if (sent_ == pending_.size() && !next_event()) return MHD_CONTENT_READER_END_OF_STREAM;
  size_t count = std::min(max, pending_.size() - sent_);
  std::memcpy(out, pending_.data() + sent_, count);
  sent_ += count;
  return static_cast<ssize_t>(count);
}

}  // namespace tc::daemon
