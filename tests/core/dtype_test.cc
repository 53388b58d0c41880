// DType, ReduceOp and CollectiveKind cross the plugin boundary by value and
// are written by people in configs, so both the numbers and the spellings
// are part of the contract.
#include "core/common/dtype.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>

#include "strata/sdk/types.h"

namespace strata {
namespace {

using ::testing::HasSubstr;

TEST(DTypeTest, NamesAndSizes) {
  const std::tuple<DType, const char*, size_t> cases[] = {
      {DType::kF32, "f32", 4}, {DType::kF64, "f64", 8}, {DType::kF16, "f16", 2},
      {DType::kBF16, "bf16", 2}, {DType::kI32, "i32", 4}, {DType::kI64, "i64", 8},
      {DType::kU8, "u8", 1},
  };
  for (const auto& [dtype, name, size] : cases) {
    EXPECT_EQ(dtype_name(dtype), name);
    EXPECT_EQ(dtype_size(dtype), size) << name;
    // The canonical name parses back to the same dtype.
    auto parsed = parse_dtype(name);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, dtype);
  }
  EXPECT_EQ(kAllDTypes.size(), static_cast<size_t>(STRATA_DTYPE_COUNT));
}

TEST(DTypeTest, ValuesEqualTheAbi) {
  EXPECT_EQ(to_abi(DType::kF32), STRATA_F32);
  EXPECT_EQ(to_abi(DType::kF64), STRATA_F64);
  EXPECT_EQ(to_abi(DType::kF16), STRATA_F16);
  EXPECT_EQ(to_abi(DType::kBF16), STRATA_BF16);
  EXPECT_EQ(to_abi(DType::kI32), STRATA_I32);
  EXPECT_EQ(to_abi(DType::kI64), STRATA_I64);
  EXPECT_EQ(to_abi(DType::kU8), STRATA_U8);
  EXPECT_EQ(to_abi(ReduceOp::kMean), STRATA_MEAN);
  EXPECT_EQ(to_abi(CollectiveKind::kReduceScatter), STRATA_REDUCE_SCATTER);
  // An unknown ABI value has size 0, which callers use to refuse it.
  EXPECT_EQ(sdk::dtype_size(STRATA_DTYPE_COUNT), 0u);
}

TEST(DTypeTest, ParsesAliases) {
  const std::pair<const char*, DType> aliases[] = {
      {"float32", DType::kF32}, {"float", DType::kF32},     {"float64", DType::kF64},
      {"double", DType::kF64},  {"float16", DType::kF16},   {"half", DType::kF16},
      {"bfloat16", DType::kBF16}, {"int32", DType::kI32},   {"int64", DType::kI64},
      {"uint8", DType::kU8},
  };
  for (const auto& [text, dtype] : aliases) {
    auto parsed = parse_dtype(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status();
    EXPECT_EQ(*parsed, dtype) << text;
  }
}

TEST(DTypeTest, UnknownDTypeListsTheKnownNames) {
  for (const char* text : {"float8", "F32", "", " f32"}) {
    auto parsed = parse_dtype(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(),
              "unknown dtype '" + std::string(text) +
                  "'; expected one of: f32, f64, f16, bf16, i32, i64, u8, float32, float, "
                  "float64, double, float16, half, bfloat16, int32, int64, uint8");
  }
}

TEST(ReduceOpTest, NamesAndAliases) {
  const std::pair<ReduceOp, const char*> names[] = {
      {ReduceOp::kSum, "sum"}, {ReduceOp::kProd, "prod"}, {ReduceOp::kMin, "min"},
      {ReduceOp::kMax, "max"}, {ReduceOp::kMean, "mean"},
  };
  for (const auto& [op, name] : names) {
    EXPECT_EQ(reduce_op_name(op), name);
    auto parsed = parse_reduce_op(name);
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, op);
  }
  auto avg = parse_reduce_op("avg");
  ASSERT_TRUE(avg.ok());
  EXPECT_EQ(*avg, ReduceOp::kMean);

  auto bad = parse_reduce_op("average");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "unknown reduce op 'average'; expected one of: sum, prod, min, max, mean, avg");
}

TEST(CollectiveKindTest, NamesRoundTrip) {
  for (CollectiveKind kind : kAllCollectives) {
    auto parsed = parse_collective(collective_name(kind));
    ASSERT_TRUE(parsed.ok()) << collective_name(kind);
    EXPECT_EQ(*parsed, kind);
  }
  EXPECT_EQ(collective_name(CollectiveKind::kAllGather), "all_gather");
  auto bad = parse_collective("allreduce");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("unknown collective 'allreduce'"));
  EXPECT_THAT(bad.status().message(), HasSubstr("all_reduce, broadcast, all_gather"));
}

TEST(SdkTypesTest, UnknownValuesHaveRecognisableNames) {
  // Messages built from out-of-range values must not print garbage.
  EXPECT_STREQ(sdk::dtype_name(42), "unknown-dtype");
  EXPECT_STREQ(sdk::redop_name(-1), "unknown-redop");
  EXPECT_STREQ(sdk::op_name(STRATA_OP_COUNT), "unknown-op");
}

}  // namespace
}  // namespace strata
