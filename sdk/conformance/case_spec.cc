#include "sdk/conformance/case_spec.h"

#include <algorithm>

namespace strata::conformance {

bool is_reducing(CollectiveKind op) {
  return op == CollectiveKind::kAllReduce || op == CollectiveKind::kReduceScatter ||
         op == CollectiveKind::kReduce;
}

bool is_rooted(CollectiveKind op) {
  return op == CollectiveKind::kBroadcast || op == CollectiveKind::kReduce;
}

std::string CaseSpec::test_name() const {
  std::string name = "n" + std::to_string(world);
  if (op == CollectiveKind::kBarrier) return name;
  name += "_c" + std::to_string(count) + "_" + std::string(dtype_name(dtype));
  if (redop) name += "_" + std::string(reduce_op_name(*redop));
  name += in_place ? "_inplace" : "_outofplace";
  return name;
}

std::string CaseSpec::describe() const {
  std::string text = "n=" + std::to_string(world);
  if (op == CollectiveKind::kBarrier) return text;
  text += " count=" + std::to_string(count) + " " + std::string(dtype_name(dtype));
  if (redop) text += " " + std::string(reduce_op_name(*redop));
  text += in_place ? " in place" : " out of place";
  return text;
}

Layout layout_for(const CaseSpec& spec, int replica) {
  Layout l;
  const uint64_t whole = spec.count * static_cast<uint64_t>(spec.world);
  const uint64_t slot = spec.count * static_cast<uint64_t>(replica);
  switch (spec.op) {
    case CollectiveKind::kBarrier: return l;
    case CollectiveKind::kAllGather:
      l.in_count = spec.count;
      l.out_count = whole;
      if (spec.in_place) l.in_offset = slot;
      break;
    case CollectiveKind::kReduceScatter:
      l.in_count = whole;
      l.out_count = spec.count;
      if (spec.in_place) l.out_offset = slot;
      break;
    default:
      l.in_count = spec.count;
      l.out_count = spec.count;
      break;
  }
  if (spec.in_place) l.shared = std::max(l.in_count, l.out_count);
  return l;
}

}  // namespace strata::conformance
