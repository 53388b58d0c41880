#include "grpc_data_plane.h"

#include "strata/sdk/error.h"
#include "strata/sdk/types.h"

namespace strata::grpc_ring {

void GrpcDataPlane::send(const Header& header, const std::byte* payload) {
  link_.send(encode(header, payload));
}

bool GrpcDataPlane::receive(const Header& want, const Delivery& delivery) {
  grpc::ByteBuffer buffer;
  if (!inbox_.pop(&buffer)) return false;
  const Message message(buffer);
  const std::string from = "a message from rank " + std::to_string(left_);
  const std::optional<Header> got = message.header();
  if (!got) {
    throw sdk::Error(STRATA_DATA_LOSS, from + " is " + std::to_string(message.size()) +
                                           " bytes, shorter than a header");
  }
  check_header(*got, want, from);
  if (message.size() != kHeaderBytes + got->bytes) {
    throw sdk::Error(STRATA_DATA_LOSS, from + " carries " +
                                           std::to_string(message.size() - kHeaderBytes) +
                                           " payload bytes, its header says " +
                                           std::to_string(got->bytes));
  }
  if (delivery.local == nullptr) {
    message.copy_payload(delivery.dst);
  } else {
    message.reduce_payload(delivery.dtype, delivery.redop, delivery.dst, delivery.local,
                           want.bytes / sdk::dtype_size(delivery.dtype), delivery.divisor);
  }
  return true;
}

}  // namespace strata::grpc_ring
