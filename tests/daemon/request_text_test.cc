// Every string of the API is checked on the wire: a NUL byte or invalid UTF-8 in any string field
// of any request is refused naming that field (request_text.h), found by walking the service's
// descriptors so that a field added later is covered without a new test.
#include "service/daemon/api/request_text.h"

#include <gtest/gtest.h>

#include <memory>

#include "tests/daemon/string_fields.h"
#include "transcode/v1/transcoder.pb.h"

namespace pb = transcode::v1;
using namespace tc::daemon;

namespace {

const google::protobuf::ServiceDescriptor& transcoder() {
  return *pb::CreateJobRequest::descriptor()->file()->FindServiceByName("Transcoder");
}

std::string encoded(const tc::test::StringFieldCase& string_field, const std::string& value) {
  const google::protobuf::Descriptor* type = string_field.method->input_type();
  std::unique_ptr<google::protobuf::Message> request(
      google::protobuf::MessageFactory::generated_factory()->GetPrototype(type)->New());
  string_field.set(*request, value);
  std::string wire;
  request->SerializePartialToString(&wire);  // protobuf logs invalid UTF-8, and sends it
  return wire;
}

TEST(RequestText, EveryStringFieldOfEveryRequestRefusesNulAndInvalidUtf8NamingIt) {
  std::vector<tc::test::StringFieldCase> fields = tc::test::every_string_field(transcoder());
  // Today: 4 ids/tokens, request_id, webhook_url, labels (key, value) and JobConfig's strings.
  ASSERT_GT(fields.size(), 20u);
  for (const tc::test::StringFieldCase& field : fields) {
    const google::protobuf::Descriptor& type = *field.method->input_type();
    SCOPED_TRACE(field.method->name() + " " + field.field);
    EXPECT_TRUE(check_request_text(type, encoded(field, "in.mp4")).is_ok());
    for (const std::string& bad : {std::string("a\0b.mp4", 7), std::string("caf\xe9.mp4"),
                                   std::string("\xed\xa0\x80"), std::string("\xc0\xaf")}) {
      ApiStatus status = check_request_text(type, encoded(field, bad));
      EXPECT_EQ(status.code(), ApiCode::kInvalidArgument);
      EXPECT_EQ(status.reason(), ApiReason::kInvalidField);
      EXPECT_EQ(status.field(), field.field) << status.message();
    }
  }
}

TEST(RequestText, BytesThatAreNoMessageAreRefusedNamingNoField) {
  const google::protobuf::Descriptor& type = *pb::CreateJobRequest::descriptor();
  for (const std::string& junk :
       {std::string("\x0a\x05"
                    "ab",
                    4),
        std::string("\xff\xff\xff"), std::string("\x0a\xff\xff\xff\xff\x0f", 6)}) {
    ApiStatus status = check_request_text(type, junk);
    EXPECT_EQ(status.code(), ApiCode::kInvalidArgument);
    EXPECT_EQ(status.field(), "");
  }
  EXPECT_TRUE(check_request_text(type, "").is_ok());
}

}  // namespace
