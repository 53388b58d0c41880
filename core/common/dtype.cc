#include "core/common/dtype.h"

#include <string>
#include <utility>

#include "strata/sdk/types.h"

namespace strata {
namespace {

template <class Enum, size_t N>
StatusOr<Enum> parse_named(std::string_view text, std::string_view what,
                           const std::pair<std::string_view, Enum> (&names)[N]) {
  std::string known;
  for (const auto& [name, value] : names) {
    if (name == text) return value;
    if (!known.empty()) known += ", ";
    known += name;
  }
  return InvalidArgumentError("unknown " + std::string(what) + " '" +
                              std::string(text) + "'; expected one of: " + known);
}

}  // namespace

std::string_view dtype_name(DType dtype) { return sdk::dtype_name(to_abi(dtype)); }
std::string_view reduce_op_name(ReduceOp op) { return sdk::redop_name(to_abi(op)); }
std::string_view collective_name(CollectiveKind kind) {
  return sdk::op_name(to_abi(kind));
}

StatusOr<DType> parse_dtype(std::string_view text) {
  static constexpr std::pair<std::string_view, DType> kNames[] = {
      {"f32", DType::kF32},     {"f64", DType::kF64},    {"f16", DType::kF16},
      {"bf16", DType::kBF16},   {"i32", DType::kI32},    {"i64", DType::kI64},
      {"u8", DType::kU8},       {"float32", DType::kF32}, {"float", DType::kF32},
      {"float64", DType::kF64}, {"double", DType::kF64}, {"float16", DType::kF16},
      {"half", DType::kF16},    {"bfloat16", DType::kBF16}, {"int32", DType::kI32},
      {"int64", DType::kI64},   {"uint8", DType::kU8}};
  return parse_named(text, "dtype", kNames);
}

StatusOr<ReduceOp> parse_reduce_op(std::string_view text) {
  static constexpr std::pair<std::string_view, ReduceOp> kNames[] = {
      {"sum", ReduceOp::kSum}, {"prod", ReduceOp::kProd}, {"min", ReduceOp::kMin},
      {"max", ReduceOp::kMax}, {"mean", ReduceOp::kMean}, {"avg", ReduceOp::kMean}};
  return parse_named(text, "reduce op", kNames);
}

StatusOr<CollectiveKind> parse_collective(std::string_view text) {
  static constexpr std::pair<std::string_view, CollectiveKind> kNames[] = {
      {"all_reduce", CollectiveKind::kAllReduce},
      {"broadcast", CollectiveKind::kBroadcast},
      {"all_gather", CollectiveKind::kAllGather},
      {"reduce_scatter", CollectiveKind::kReduceScatter},
      {"reduce", CollectiveKind::kReduce},
      {"barrier", CollectiveKind::kBarrier}};
  return parse_named(text, "collective", kNames);
}

}  // namespace strata
