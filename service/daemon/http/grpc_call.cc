#include "service/daemon/http/grpc_call.h"

#include <google/protobuf/message.h>
#include <grpcpp/impl/client_unary_call.h>
#include <grpcpp/impl/rpc_method.h>

#include <vector>

namespace tc::daemon {

std::unique_ptr<google::protobuf::Message> new_message(const google::protobuf::Descriptor& type) {
  const google::protobuf::Message* prototype =
      google::protobuf::MessageFactory::generated_factory()->GetPrototype(&type);
  return std::unique_ptr<google::protobuf::Message>(prototype->New());
}

grpc::ByteBuffer to_bytes(const google::protobuf::Message& message) {
  std::string wire = message.SerializeAsString();
  grpc::Slice slice(wire);
  return grpc::ByteBuffer(&slice, 1);
}

bool from_bytes(const grpc::ByteBuffer& bytes, google::protobuf::Message& message) {
  std::vector<grpc::Slice> slices;
  if (!bytes.Dump(&slices).ok()) return false;
  std::string wire;
  for (const grpc::Slice& slice : slices)
    wire.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  return message.ParseFromString(wire);
}

void add_authorization(grpc::ClientContext& context, const std::string& authorization) {
  if (!authorization.empty()) context.AddMetadata("authorization", authorization);
}

grpc::Status call_unary(grpc::Channel& channel, const Route& route,
                        const std::string& authorization, const google::protobuf::Message& request,
                        google::protobuf::Message& response) {
  grpc::ClientContext context;
  add_authorization(context, authorization);
  grpc::internal::RpcMethod method(route.grpc_path.c_str(), grpc::internal::RpcMethod::NORMAL_RPC);
  grpc::ByteBuffer reply;
  grpc::Status status = grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
      &channel, method, &context, to_bytes(request), &reply);
  if (status.ok() && !from_bytes(reply, response))
    return {grpc::StatusCode::INTERNAL, "the service's reply could not be parsed"};
  return status;
}

}  // namespace tc::daemon
