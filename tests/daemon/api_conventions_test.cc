// The API's conventions, from its descriptors and its status mapping: every field states its
// behaviour in AIP-203's words, every file names its Go and Java packages, and a failed
// request's status carries a reason and the field at fault that the client decodes.
#include <gtest/gtest.h>

#include <set>

#include "service/client/error_details.h"
#include "service/daemon/api/grpc_status.h"
#include "transcode/v1/error_details.pb.h"
#include "transcode/v1/field_behavior.pb.h"
#include "transcode/v1/transcoder.pb.h"

namespace pb = transcode::v1;
using google::protobuf::Descriptor;
using google::protobuf::FileDescriptor;
using namespace tc::daemon;

namespace {

// Every file of transcode.v1: the service's file and what it imports, transitively.
std::vector<const FileDescriptor*> api_files() {
  std::vector<const FileDescriptor*> files;
  std::vector<const FileDescriptor*> todo = {pb::CreateJobRequest::descriptor()->file(),
                                             pb::ErrorDetail::descriptor()->file()};
  std::set<const FileDescriptor*> seen;
  while (!todo.empty()) {
    const FileDescriptor* file = todo.back();
    todo.pop_back();
    if (file->package() != "transcode.v1" || !seen.insert(file).second) continue;
    files.push_back(file);
    for (int i = 0; i < file->dependency_count(); ++i) todo.push_back(file->dependency(i));
  }
  return files;
}

void collect_messages(const Descriptor* message, std::vector<const Descriptor*>& out) {
  // Map entries are synthesized by protoc: their fields have no options to carry.
  if (message->options().map_entry()) return;
  out.push_back(message);
  for (int i = 0; i < message->nested_type_count(); ++i)
    collect_messages(message->nested_type(i), out);
}

TEST(ApiConventions, EveryFieldStatesItsBehaviour) {
  std::vector<const Descriptor*> messages;
  for (const FileDescriptor* file : api_files())
    for (int i = 0; i < file->message_type_count(); ++i)
      collect_messages(file->message_type(i), messages);
  ASSERT_GE(messages.size(), 20u);  // the walk found the API
  int fields = 0;
  for (const Descriptor* message : messages)
    for (int i = 0; i < message->field_count(); ++i) {
      const auto& options = message->field(i)->options();
      EXPECT_GT(options.ExtensionSize(pb::field_behavior), 0) << message->field(i)->full_name();
      for (int b = 0; b < options.ExtensionSize(pb::field_behavior); ++b)
        EXPECT_NE(options.GetExtension(pb::field_behavior, b), pb::FIELD_BEHAVIOR_UNSPECIFIED)
            << message->field(i)->full_name();
      ++fields;
    }
  EXPECT_GT(fields, 100);
}

TEST(ApiConventions, WhatACallerMustSetIsRequired) {
  auto behaviour = [](const Descriptor* message, const char* field) {
    return message->FindFieldByName(field)->options().GetExtension(pb::field_behavior, 0);
  };
  EXPECT_EQ(behaviour(pb::CreateJobRequest::descriptor(), "config"), pb::REQUIRED);
  EXPECT_EQ(behaviour(pb::JobConfig::descriptor(), "input"), pb::REQUIRED);
  EXPECT_EQ(behaviour(pb::OutputConfig::descriptor(), "path"), pb::REQUIRED);
  EXPECT_EQ(behaviour(pb::OutputConfig::descriptor(), "codec"), pb::OPTIONAL);
  EXPECT_EQ(behaviour(pb::Job::descriptor(), "id"), pb::IDENTIFIER);
  EXPECT_EQ(behaviour(pb::Job::descriptor(), "state"), pb::OUTPUT_ONLY);
}

TEST(ApiConventions, EveryFileNamesItsGoAndJavaPackages) {
  std::vector<const FileDescriptor*> files = api_files();
  EXPECT_EQ(files.size(), 5u);  // with http.proto (issue 41)
  for (const FileDescriptor* file : files) {
    EXPECT_FALSE(file->options().go_package().empty()) << file->name();
    EXPECT_FALSE(file->options().java_package().empty()) << file->name();
    EXPECT_TRUE(file->options().java_multiple_files()) << file->name();
  }
}

TEST(ErrorDetails, StatusCarriesReasonAndFieldTheClientDecodes) {
  ApiStatus api(ApiCode::kPermissionDenied, ApiReason::kOutsideMediaRoot, "outputs[1].path",
                "'/etc/x.mp4' is outside the allowed media roots (media_root)");
  grpc::Status status = to_grpc_status(api.within("config"));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(status.error_message(),
            "outputs[1].path: '/etc/x.mp4' is outside the allowed media roots (media_root)");
  std::optional<pb::ErrorDetail> detail = tc::client::error_detail(status);
  ASSERT_TRUE(detail.has_value());
  EXPECT_EQ(detail->reason(), pb::OUTSIDE_MEDIA_ROOT);
  EXPECT_EQ(detail->field(), "config.outputs[1].path");
  EXPECT_EQ(tc::client::describe(*detail),
            "reason OUTSIDE_MEDIA_ROOT, field config.outputs[1].path");
  // The trailer is a google.rpc.Status: code and message repeat the status's own.
  pb::Status wire;
  ASSERT_TRUE(wire.ParseFromString(status.error_details()));
  EXPECT_EQ(wire.code(), static_cast<int>(grpc::StatusCode::PERMISSION_DENIED));
  EXPECT_EQ(wire.message(), status.error_message());
  EXPECT_EQ(wire.details(0).type_url(), "type.googleapis.com/transcode.v1.ErrorDetail");
}

TEST(ErrorDetails, CodesWithOneCauseGetItsReason) {
  EXPECT_EQ(
      tc::client::error_detail(to_grpc_status({ApiCode::kNotFound, "job 'x' not found"}))->reason(),
      pb::JOB_NOT_FOUND);
  EXPECT_EQ(
      tc::client::error_detail(to_grpc_status({ApiCode::kResourceExhausted, "the queue is full"}))
          ->reason(),
      pb::QUEUE_FULL);
  EXPECT_FALSE(tc::client::error_detail(grpc::Status::OK).has_value());
  EXPECT_FALSE(tc::client::error_detail({grpc::StatusCode::INTERNAL, "x", "not a status"}));
}

TEST(ErrorDetails, SpecErrorsNameTheirField) {
  ApiStatus codec = ApiStatus::from_spec(
      tc::Status::of_field(tc::Code::kInvalidArgument, "outputs[0].codec", "unknown codec 'h266'"));
  EXPECT_EQ(codec.message(), "outputs[0].codec: unknown codec 'h266'");
  EXPECT_EQ(codec.field(), "outputs[0].codec");
  EXPECT_EQ(codec.reason(), ApiReason::kInvalidField);
  EXPECT_EQ(codec.within("config").field(), "config.outputs[0].codec");
  // A message that starts with a path names no field.
  EXPECT_EQ(ApiStatus::from_spec(
                tc::Status(tc::Code::kInvalidArgument, "/m/o.xyz: cannot tell the container"))
                .field(),
            "");
  EXPECT_EQ(ApiStatus::from_spec(tc::Status(tc::Code::kInternal, "boom")).code(),
            ApiCode::kInternal);
}

}  // namespace
