#include "core/collective/call_size.h"

#include <string>

#include "core/common/units.h"

namespace strata {

StatusOr<uint64_t> count_for_bytes(CollectiveKind op, uint64_t bytes, DType dtype, int replicas,
                                   bool exact) {
  const uint64_t elem = dtype_size(dtype);
  const std::string what =
      format_size(bytes) + (bytes >= 1024 ? " (" + std::to_string(bytes) + " B)" : "");
  if (exact && bytes % elem != 0) {
    return InvalidArgumentError(what + " is not a whole number of " +
                                std::string(dtype_name(dtype)) + " elements (" +
                                std::to_string(elem) + " B each)");
  }
  const uint64_t elements = bytes / elem;
  if (op != CollectiveKind::kAllGather && op != CollectiveKind::kReduceScatter) return elements;
  // The size names the whole gathered buffer: each replica owns 1/n of it.
  const auto n = static_cast<uint64_t>(replicas);
  if (exact && elements % n != 0) {
    return InvalidArgumentError(std::string(collective_name(op)) + " size " + what +
                                " is the whole gathered buffer and must split evenly into " +
                                std::to_string(n) + " replica slices of " +
                                std::string(dtype_name(dtype)) + " elements");
  }
  return elements / n;
}

uint64_t bytes_for_count(CollectiveKind op, uint64_t count, DType dtype, int replicas) {
  const uint64_t bytes = count * dtype_size(dtype);
  if (op == CollectiveKind::kAllGather || op == CollectiveKind::kReduceScatter) {
    return bytes * static_cast<uint64_t>(replicas);
  }
  return bytes;
}

std::string describe_call(CollectiveKind op, uint64_t bytes, uint64_t count, DType dtype,
                          ReduceOp redop, int root, bool in_place) {
  if (op == CollectiveKind::kBarrier) return "barrier";
  std::string out = std::string(collective_name(op)) + " of " + format_size(bytes);
  const bool gathered = op == CollectiveKind::kAllGather || op == CollectiveKind::kReduceScatter;
  out += gathered ? " in all (" : " per replica (";
  out += std::to_string(count) + " x " + std::string(dtype_name(dtype));
  out += gathered ? " per replica)" : ")";
  if (op == CollectiveKind::kAllReduce || op == CollectiveKind::kReduceScatter ||
      op == CollectiveKind::kReduce) {
    out += ", redop " + std::string(reduce_op_name(redop));
  }
  if (op == CollectiveKind::kBroadcast || op == CollectiveKind::kReduce) {
    out += ", root " + std::to_string(root);
  }
  return out + (in_place ? ", in place" : ", out of place");
}

}  // namespace strata
