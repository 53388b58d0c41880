// Every Strata dtype and operator maps onto MPI (predefined types and
// operators, or user-defined operators for f16/bf16), and values this build
// does not know are declined with a reason.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cstdint>

#include "mpi_runtime.h"
#include "mpi_test_env.h"
#include "mpi_types.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host_kernels.h"

namespace strata::mpi {
namespace {

TEST(MpiTypes, EveryKnownDtypeAndOperatorMaps) {
  for (strata_dtype_t d = 0; d < STRATA_DTYPE_COUNT; ++d) {
    EXPECT_FALSE(unsupported(d, std::nullopt).has_value()) << "dtype " << d;
    for (strata_redop_t op = 0; op < STRATA_REDOP_COUNT; ++op) {
      EXPECT_FALSE(unsupported(d, op).has_value()) << "dtype " << d << " op " << op;
    }
  }
}

TEST(MpiTypes, DatatypesMatchTheElementSize) {
  const std::array<std::pair<strata_dtype_t, MPI_Datatype>, STRATA_DTYPE_COUNT> expected{{
      {STRATA_F32, MPI_FLOAT},    {STRATA_F64, MPI_DOUBLE},  {STRATA_F16, MPI_UINT16_T},
      {STRATA_BF16, MPI_UINT16_T}, {STRATA_I32, MPI_INT32_T}, {STRATA_I64, MPI_INT64_T},
      {STRATA_U8, MPI_UINT8_T}}};
  for (const auto& [dtype, type] : expected) EXPECT_EQ(datatype_of(dtype), type) << dtype;
}

TEST(MpiTypes, PredefinedOperatorsAndMeanAsSum) {
  EXPECT_EQ(op_of(STRATA_F32, STRATA_SUM), MPI_SUM);
  EXPECT_EQ(op_of(STRATA_I64, STRATA_PROD), MPI_PROD);
  EXPECT_EQ(op_of(STRATA_U8, STRATA_MIN), MPI_MIN);
  EXPECT_EQ(op_of(STRATA_F64, STRATA_MAX), MPI_MAX);
  EXPECT_EQ(op_of(STRATA_I32, STRATA_MEAN), MPI_SUM);  // the plugin divides afterwards
  EXPECT_FALSE(needs_user_op(STRATA_F32));
  EXPECT_TRUE(needs_user_op(STRATA_F16));
  EXPECT_TRUE(needs_user_op(STRATA_BF16));
}

TEST(MpiTypes, UnknownValuesAreDeclinedWithAReason) {
  const auto dtype = unsupported(STRATA_DTYPE_COUNT, std::nullopt);
  ASSERT_TRUE(dtype.has_value());
  EXPECT_NE(dtype->find("unknown to this build"), std::string::npos) << *dtype;
  const auto op = unsupported(STRATA_F32, STRATA_REDOP_COUNT);
  ASSERT_TRUE(op.has_value());
  EXPECT_NE(op->find("reduction operator 5"), std::string::npos) << *op;
  EXPECT_THROW(datatype_of(-1), sdk::Error);
  EXPECT_THROW(op_of(STRATA_F32, 42), sdk::Error);
}

TEST(MpiTypes, HalfOperatorsComputeInFloat) {
  auto h = [](float f) { return sdk::float_to_half(f); };
  std::array<uint16_t, 3> in{h(1.5f), h(-2.0f), h(4.0f)};
  std::array<uint16_t, 3> inout{h(0.5f), h(3.0f), h(0.25f)};
  int len = 3;
  MPI_Datatype type = MPI_UINT16_T;
  user_function(STRATA_F16, STRATA_SUM)(in.data(), inout.data(), &len, &type);
  EXPECT_EQ(sdk::half_to_float(inout[0]), 2.0f);
  EXPECT_EQ(sdk::half_to_float(inout[1]), 1.0f);
  EXPECT_EQ(sdk::half_to_float(inout[2]), 4.25f);

  auto b = [](float f) { return sdk::float_to_bfloat16(f); };
  std::array<uint16_t, 2> bin{b(3.0f), b(-1.0f)};
  std::array<uint16_t, 2> binout{b(2.0f), b(8.0f)};
  len = 2;
  user_function(STRATA_BF16, STRATA_PROD)(bin.data(), binout.data(), &len, &type);
  EXPECT_EQ(sdk::bfloat16_to_float(binout[0]), 6.0f);
  EXPECT_EQ(sdk::bfloat16_to_float(binout[1]), -8.0f);
  user_function(STRATA_BF16, STRATA_MIN)(bin.data(), binout.data(), &len, &type);
  EXPECT_EQ(sdk::bfloat16_to_float(binout[1]), -8.0f);
  EXPECT_EQ(user_function(STRATA_F32, STRATA_SUM), nullptr);
}

// Through MPI itself: the user-defined operator is what MPI_Reduce_local
// (and every reducing collective) calls for f16.
TEST(MpiTypes, UserOperatorsWorkInsideMpi) {
  MpiRuntime::instance().ensure_initialized();
  const MPI_Op op = op_of(STRATA_F16, STRATA_MAX);
  EXPECT_NE(op, MPI_MAX);
  auto h = [](float f) { return sdk::float_to_half(f); };
  std::array<uint16_t, 2> in{h(-1.0f), h(7.5f)};
  std::array<uint16_t, 2> inout{h(-3.0f), h(2.0f)};
  ASSERT_EQ(MPI_Reduce_local(in.data(), inout.data(), 2, datatype_of(STRATA_F16), op),
            MPI_SUCCESS);
  EXPECT_EQ(sdk::half_to_float(inout[0]), -1.0f);
  EXPECT_EQ(sdk::half_to_float(inout[1]), 7.5f);
}

}  // namespace
}  // namespace strata::mpi
