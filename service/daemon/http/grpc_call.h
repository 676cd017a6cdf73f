// One forwarded call on the in-process channel, as generic bytes: the gateway holds the routes'
// descriptors, not the generated stubs, so any method with an http option is forwarded alike.
#pragma once

#include <google/protobuf/message.h>
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "service/daemon/http/routes.h"

namespace tc::daemon {

// A fresh, empty message of `type` (the generated class, for protobuf's JSON mapping).
std::unique_ptr<google::protobuf::Message> new_message(const google::protobuf::Descriptor& type);

grpc::ByteBuffer to_bytes(const google::protobuf::Message& message);
bool from_bytes(const grpc::ByteBuffer& bytes, google::protobuf::Message& message);

// The context of a forwarded call: the HTTP Authorization header, when sent, as the gRPC
// "authorization" metadata the service's token check reads.
void add_authorization(grpc::ClientContext& context, const std::string& authorization);

// A unary route's call; `response` is of the method's output type.
grpc::Status call_unary(grpc::Channel& channel, const Route& route,
                        const std::string& authorization, const google::protobuf::Message& request,
                        google::protobuf::Message& response);

}  // namespace tc::daemon
