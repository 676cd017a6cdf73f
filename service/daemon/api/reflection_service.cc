#include "service/daemon/api/reflection_service.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include <set>

#include "service/daemon/api/caller_auth.h"
#include "service/daemon/api/grpc_status.h"

namespace tc::daemon {
namespace {

namespace rpb = grpc::reflection::v1alpha;
using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;

const DescriptorPool& pool() {
  return *DescriptorPool::generated_pool();
}

void set_error(rpb::ServerReflectionResponse& response, grpc::StatusCode code,
               const std::string& message) {
  response.mutable_error_response()->set_error_code(code);
  response.mutable_error_response()->set_error_message(message);
}

// The file first, then every file it imports, each once: what a client needs to build the
// descriptors (as gRPC's own reflection answers).
void add_file_and_imports(const FileDescriptor& file, std::set<std::string>& sent,
                          rpb::FileDescriptorResponse& files) {
  if (!sent.insert(file.name()).second) return;
  google::protobuf::FileDescriptorProto proto;
  file.CopyTo(&proto);
  proto.SerializeToString(files.add_file_descriptor_proto());
  for (int i = 0; i < file.dependency_count(); ++i)
    add_file_and_imports(*file.dependency(i), sent, files);
}

void answer_file(const FileDescriptor* file, const std::string& what,
                 rpb::ServerReflectionResponse& response) {
  if (!file) return set_error(response, grpc::StatusCode::NOT_FOUND, what + " not found");
  std::set<std::string> sent;
  add_file_and_imports(*file, sent, *response.mutable_file_descriptor_response());
}

const FileDescriptor* file_of_extension(const rpb::ExtensionRequest& request) {
  const Descriptor* type = pool().FindMessageTypeByName(request.containing_type());
  if (!type) return nullptr;
  const FieldDescriptor* extension = pool().FindExtensionByNumber(type, request.extension_number());
  return extension ? extension->file() : nullptr;
}

void answer_extension_numbers(const std::string& type_name,
                              rpb::ServerReflectionResponse& response) {
  const Descriptor* type = pool().FindMessageTypeByName(type_name);
  if (!type)
    return set_error(response, grpc::StatusCode::NOT_FOUND, "type " + type_name + " not found");
  std::vector<const FieldDescriptor*> extensions;
  pool().FindAllExtensions(type, &extensions);
  rpb::ExtensionNumberResponse& numbers = *response.mutable_all_extension_numbers_response();
  numbers.set_base_type_name(type->full_name());
  for (const FieldDescriptor* extension : extensions)
    numbers.add_extension_number(extension->number());
}

}  // namespace

rpb::ServerReflectionResponse ReflectionService::answer(
    const rpb::ServerReflectionRequest& request) const {
  rpb::ServerReflectionResponse response;
  response.set_valid_host(request.host());
  *response.mutable_original_request() = request;
  switch (request.message_request_case()) {
    case rpb::ServerReflectionRequest::kListServices:
      for (const std::string& name : services_)
        response.mutable_list_services_response()->add_service()->set_name(name);
      break;
    case rpb::ServerReflectionRequest::kFileByFilename:
      answer_file(pool().FindFileByName(request.file_by_filename()),
                  "file " + request.file_by_filename(), response);
      break;
    case rpb::ServerReflectionRequest::kFileContainingSymbol:
      answer_file(pool().FindFileContainingSymbol(request.file_containing_symbol()),
                  "symbol " + request.file_containing_symbol(), response);
      break;
    case rpb::ServerReflectionRequest::kFileContainingExtension:
      answer_file(file_of_extension(request.file_containing_extension()),
                  "extension " +
                      std::to_string(request.file_containing_extension().extension_number()) +
                      " of " + request.file_containing_extension().containing_type(),
                  response);
      break;
    case rpb::ServerReflectionRequest::kAllExtensionNumbersOfType:
      answer_extension_numbers(request.all_extension_numbers_of_type(), response);
      break;
    default:
      set_error(response, grpc::StatusCode::UNIMPLEMENTED, "unknown reflection request");
  }
  return response;
}

grpc::Status ReflectionService::ServerReflectionInfo(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<rpb::ServerReflectionResponse, rpb::ServerReflectionRequest>* stream) {
  Caller caller;  // any authenticated caller may list and describe the services
  ApiStatus allowed = authenticate(*context, token_, tenants_, caller);
  if (!allowed.is_ok()) return to_grpc_status(allowed);
  rpb::ServerReflectionRequest request;
  while (stream->Read(&request))
    if (!stream->Write(answer(request))) break;
  return grpc::Status::OK;
}

}  // namespace tc::daemon
