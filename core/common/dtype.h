// Element types, reduction operators and collective kinds as C++ enums. The
// values equal the ABI's, so a cast crosses the plugin boundary.
#ifndef STRATA_CORE_COMMON_DTYPE_H_
#define STRATA_CORE_COMMON_DTYPE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/common/status.h"
#include "strata/abi/types.h"
#include "strata/sdk/types.h"

namespace strata {

enum class DType : int32_t {
  kF32 = STRATA_F32,
  kF64 = STRATA_F64,
  kF16 = STRATA_F16,
  kBF16 = STRATA_BF16,
  kI32 = STRATA_I32,
  kI64 = STRATA_I64,
  kU8 = STRATA_U8,
};
inline constexpr std::array<DType, 7> kAllDTypes = {
    DType::kF32, DType::kF64, DType::kF16, DType::kBF16,
    DType::kI32, DType::kI64, DType::kU8};

enum class ReduceOp : int32_t {
  kSum = STRATA_SUM,
  kProd = STRATA_PROD,
  kMin = STRATA_MIN,
  kMax = STRATA_MAX,
  kMean = STRATA_MEAN,
};
inline constexpr std::array<ReduceOp, 5> kAllReduceOps = {
    ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax,
    ReduceOp::kMean};

enum class CollectiveKind : int32_t {
  kAllReduce = STRATA_ALL_REDUCE,
  kBroadcast = STRATA_BROADCAST,
  kAllGather = STRATA_ALL_GATHER,
  kReduceScatter = STRATA_REDUCE_SCATTER,
  kReduce = STRATA_REDUCE,
  kBarrier = STRATA_BARRIER,
};
inline constexpr std::array<CollectiveKind, 6> kAllCollectives = {
    CollectiveKind::kAllReduce, CollectiveKind::kBroadcast,
    CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
    CollectiveKind::kReduce,    CollectiveKind::kBarrier};

std::string_view dtype_name(DType dtype);          // "f32"
std::string_view reduce_op_name(ReduceOp op);      // "sum"
std::string_view collective_name(CollectiveKind kind);  // "all_reduce"

// Parse names as written in configs and on command lines. Accepts the
// canonical names plus common aliases ("float32", "float", "int64", "mean").
StatusOr<DType> parse_dtype(std::string_view text);
StatusOr<ReduceOp> parse_reduce_op(std::string_view text);
StatusOr<CollectiveKind> parse_collective(std::string_view text);

constexpr strata_dtype_t to_abi(DType d) { return static_cast<strata_dtype_t>(d); }
constexpr strata_redop_t to_abi(ReduceOp r) { return static_cast<strata_redop_t>(r); }
constexpr strata_op_t to_abi(CollectiveKind k) { return static_cast<strata_op_t>(k); }

// Inline: every call's checks ask it, and out of line it was ~1% of a
// small call's cycles once ranks share a core.
constexpr size_t dtype_size(DType dtype) { return sdk::dtype_size(to_abi(dtype)); }

}  // namespace strata

#endif  // STRATA_CORE_COMMON_DTYPE_H_
