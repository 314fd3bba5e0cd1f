// A stream's end in words, and whether to connect again.
#include <google/protobuf/unknown_field_set.h>

#include <iterator>

#include "president/kit.h"

namespace president {
namespace {

// The first length-delimited field `number` of a message read without its generated code.
std::optional<std::string> Field(const google::protobuf::UnknownFieldSet& fields, int number) {
  for (int i = 0; i < fields.field_count(); ++i) {
    const auto& field = fields.field(i);
    if (field.number() == number && field.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
      return field.length_delimited();
    }
  }
  return std::nullopt;
}

// The codes of a lost connection or a busy server, not of a refusal.
bool Retryable(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
    case grpc::StatusCode::CANCELLED:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::UNKNOWN:
    case grpc::StatusCode::INTERNAL:
    case grpc::StatusCode::ABORTED:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string CodeName(grpc::StatusCode code) {
  static const char* const kNames[] = {
      "OK",          "CANCELLED",      "UNKNOWN",   "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",   "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
      "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};
  int index = int(code);
  return index >= 0 && index < int(std::size(kNames)) ? kNames[index] : Cat("CODE_", index);
}

// The details are a google.rpc.Status (code 1, message 2, details 3: Any) whose Any (type_url 1, value 2) may
// be a google.rpc.ErrorInfo (reason 1). Debian ships no C++ code for google.rpc, so they are read field by field.
std::string ErrorReason(const grpc::Status& status) {
  google::protobuf::UnknownFieldSet rpc_status;
  if (!rpc_status.ParseFromString(status.error_details())) return "";
  for (int i = 0; i < rpc_status.field_count(); ++i) {
    const auto& detail = rpc_status.field(i);
    if (detail.number() != 3 || detail.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) continue;
    google::protobuf::UnknownFieldSet any, info;
    if (!any.ParseFromString(detail.length_delimited())) continue;
    std::string type = Field(any, 1).value_or("");
    const std::string kErrorInfo = "/google.rpc.ErrorInfo";
    if (type.size() < kErrorInfo.size() || type.compare(type.size() - kErrorInfo.size(), kErrorInfo.size(),
                                                       kErrorInfo) != 0) {
      continue;
    }
    if (info.ParseFromString(Field(any, 2).value_or(""))) return Field(info, 1).value_or("");
  }
  return "";
}

std::string Describe(const grpc::Status& status) {
  if (status.ok()) return "the server ended the stream";
  std::string text = CodeName(status.error_code());
  std::string reason = ErrorReason(status);
  if (!reason.empty()) text += " " + reason;
  return text + ": " + status.error_message();
}

void Reconnection::Success() {
  failures_ = 0;
  welcomed_ = true;
}

std::chrono::milliseconds Reconnection::After(const grpc::Status& status) {
  if (!status.ok()) {
    std::string reason = ErrorReason(status);
    if (reason == "DEV_SEAT_WAITING") throw DevSeatWaiting("no match yet: " + status.error_message());
    if (reason == "BAD_TOKEN" || reason == "MISSING_TOKEN") {
      throw Error(Cat("bad ", what_, " token: ", server_, " refuses it (", Describe(status), ")"));
    }
    if (!welcomed_ && status.error_code() == grpc::StatusCode::UNAVAILABLE && reason.empty()) {
      throw Error(Cat("cannot reach ", server_, ": is the server running, and is the address right? (",
                      status.error_message(), ")"));
    }
    if (!Retryable(status.error_code())) throw Error("the server ended the stream: " + Describe(status));
  }
  if (failures_ >= kRetryDelays.size()) {
    throw Error(Cat("lost the connection to ", server_, " and could not connect again (", failures_,
                    " attempts): ", Describe(status)));
  }
  return kRetryDelays[failures_++];
}

}  // namespace president
